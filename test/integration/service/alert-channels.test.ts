// What alerts say and when: problems from a status, start/end/reminder against the known ones (pure); the outbox
// (pure); and delivery through a real webhook receiver on loopback that is down, slow or restarted, with the
// notifier's retries on a simulated clock (a 70 s outage takes no 70 s).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createChannels, type AlertMessage } from '../../../src/service/alerts/channels.js';
import { createNotifier, type Notifier, type NotifierOptions } from '../../../src/service/alerts/notifier.js';
import { enqueue, restoreOutbox, type PendingMessage } from '../../../src/service/alerts/outbox.js';
import {
  compareProblems,
  currentProblems,
  messageText,
  type AlertEvent,
  type AlertState,
} from '../../../src/service/alerts/problems.js';
import { createLogger } from '../../../src/base/log.js';
import { pollUntil } from '../../support/http.js';
import type { Status } from '../../../src/pure/status/report.js';

const at = '2026-11-21T12:00:00.000Z';
const now = new Date(at);
const status = (overrides: Partial<Status> = {}): Status => ({
  version: 1,
  lastBuild: { at, durationMs: 1, ok: true },
  lastSuccessAt: at,
  schedulePeriodMs: 30_000,
  maintenance: false,
  sources: [],
  exports: [],
  published: ['A>B', 'C>D', 'E>F', 'G>H', 'I>J'],
  heldBack: [],
  ...overrides,
});

describe('currentProblems', () => {
  it('a held jump carries the exact accept command; out of hours is no problem', () => {
    const problems = currentProblems(
      status({
        heldBack: [
          { direction: 'BTC>SBERRUB', kind: 'jump', reason: 'rate moved 12% from the last published 9000000' },
          { direction: 'USDTTRC20>CASHRUB', kind: 'hours', reason: 'outside working hours' },
        ],
      }),
      now,
    );
    expect(problems).toEqual([
      { key: 'health:degraded', text: 'health degraded: 1 of 6 directions withheld for a fault: BTC → SBERRUB' },
      {
        key: 'jump:BTC>SBERRUB',
        text: 'jump held BTC → SBERRUB: rate moved 12% from the last published 9000000; to publish it now: ratefile accept BTC SBERRUB',
      },
    ]);
  });

  it('a failed build, a rejected config and maintenance are problems of their own', () => {
    const keys = currentProblems(
      status({ lastBuild: { at, durationMs: 1, ok: false, error: 'x' }, configError: 'y', maintenance: true }),
      now,
    ).map((p) => p.key);
    expect(keys).toEqual(['health:degraded', 'build', 'config', 'maintenance']);
  });
});

describe('a price war', () => {
  it('starts an alert naming the rival for its cool-down, and ends it when the war is over', () => {
    const war = { rival: 'Bravo', rivalId: 200, rounds: 3, since: at, until: '2026-11-21T12:15:00.000Z' };
    const competing = (withWar: boolean): NonNullable<Status['competing']> => [
      {
        direction: 'BTC>SBERRUB',
        target: '1',
        place: 2,
        competitors: 4,
        basis: withWar ? 'war' : 'place',
        ...(withWar ? { war } : {}),
      },
    ];
    const during = currentProblems(status({ competing: competing(true) }), now);
    expect(during).toContainEqual({
      key: 'war:BTC>SBERRUB',
      text: 'BTC → SBERRUB in a price war with Bravo (#200): 3 of our moves answered in a row; rate held until 2026-11-21T12:15:00.000Z',
    });
    const started = compareProblems({ active: {} }, during, now, 3_600_000);
    expect(started.events.map((e) => `${e.kind} ${e.key}`)).toEqual(['start war:BTC>SBERRUB']);
    const later = new Date('2026-11-21T12:16:00.000Z');
    const over = compareProblems(
      started.state,
      currentProblems(status({ competing: competing(false) }), later),
      later,
      3_600_000,
    );
    // (The status is a minute older by then: health has its own alert.)
    expect(over.events.filter((e) => e.key.startsWith('war:')).map((e) => `${e.kind} ${e.key}`)).toEqual([
      'end war:BTC>SBERRUB',
    ]);
  });
});

describe('compareProblems', () => {
  const problem = { key: 'source:x', text: 'source x failing' };
  it('start once, nothing while it lasts, a reminder after the interval, end once', () => {
    const empty: AlertState = { active: {} };
    const first = compareProblems(empty, [problem], now, 3_600_000);
    expect(first.events).toEqual([{ kind: 'start', ...problem }]);
    const later = (ms: number) => new Date(now.getTime() + ms);
    const second = compareProblems(first.state, [problem], later(3_599_999), 3_600_000);
    expect(second.events).toEqual([]);
    const third = compareProblems(second.state, [problem], later(3_600_000), 3_600_000);
    expect(third.events).toEqual([{ kind: 'reminder', ...problem }]);
    expect(compareProblems(third.state, [problem], later(3_700_000), 3_600_000).events).toEqual([]);
    const fourth = compareProblems(third.state, [], later(3_700_000), 3_600_000);
    expect(fourth.events).toEqual([{ kind: 'end', ...problem }]);
    expect(fourth.state).toEqual({ active: {} });
    expect(messageText([...first.events, ...third.events, ...fourth.events])).toBe(
      'PROBLEM: source x failing\nSTILL: source x failing\nRESOLVED: was source x failing',
    );
  });
});

describe('outbox', () => {
  const message = (id: string, ...events: [AlertEvent['kind'], string][]): AlertMessage => ({
    id,
    at,
    level: 'failing',
    text: id,
    events: events.map(([kind, key]) => ({ kind, key, text: key })),
  });
  const ids = (outbox: readonly PendingMessage[]) => outbox.map((m) => `${m.id}:${m.channels.join('+')}`);

  it('a start and its end both wait, in order; a reminder goes once a later message reports its problem', () => {
    let outbox: PendingMessage[] = [];
    const add = (m: AlertMessage, channels: ('webhook' | 'telegram')[] = ['webhook', 'telegram']) => {
      const next = enqueue(outbox, m, channels, 10);
      outbox = next.outbox;
      return next.dropped.map((d) => `${d.message.id}:${d.channels.join('+')}:${d.why}`);
    };
    expect(add(message('1', ['start', 'a'], ['start', 'b']))).toEqual([]);
    expect(add(message('2', ['reminder', 'a'], ['reminder', 'b']))).toEqual([]);
    // Only a's end on telegram: the reminder about b still says something there.
    expect(add(message('3', ['end', 'a']), ['telegram'])).toEqual([]);
    expect(add(message('4', ['reminder', 'b']), ['telegram'])).toEqual(['2:telegram:superseded']);
    expect(ids(outbox)).toEqual(['1:webhook+telegram', '2:webhook', '3:telegram', '4:telegram']);
    expect(add(message('5', ['end', 'a'], ['end', 'b']))).toEqual(['2:webhook:superseded', '4:telegram:superseded']);
    expect(ids(outbox)).toEqual(['1:webhook+telegram', '3:telegram', '5:webhook+telegram']);
  });

  it('beyond its limit the oldest messages go (reported); a file of another shape is read without them', () => {
    const full = enqueue([], message('1', ['start', 'a']), ['webhook'], 2);
    const more = enqueue(
      enqueue(full.outbox, message('2', ['end', 'a']), ['webhook'], 2).outbox,
      message('3', ['start', 'a']),
      ['webhook'],
      2,
    );
    expect(ids(more.outbox)).toEqual(['2:webhook', '3:webhook']);
    expect(more.dropped.map((d) => `${d.message.id}:${d.why}`)).toEqual(['1:full']);

    const stored = [
      ...more.outbox,
      { id: 4 },
      null,
      { ...more.outbox[0], id: 'x', events: [{ kind: 'boom', key: 'a', text: '' }] },
      { ...more.outbox[0], id: '6', channels: ['email', 'webhook'] },
    ];
    const restored = restoreOutbox(JSON.parse(JSON.stringify(stored)), ['webhook'], 2);
    expect(restored.unreadable).toBe(3);
    expect(ids(restored.outbox)).toEqual(['3:webhook', '6:webhook']);
    expect(restored.dropped.map((d) => `${d.message.id}:${d.channels.join('+')}:${d.why}`)).toEqual([
      '6:email:unconfigured',
      '2:webhook:full',
    ]);
    expect(restoreOutbox({ not: 'a list' }, ['webhook'], 2)).toEqual({ outbox: [], unreadable: 1, dropped: [] });
  });
});

interface Hit {
  id: string | undefined;
  body: { id?: string; events: AlertEvent[] };
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A webhook receiver on 127.0.0.1 that can go down (connections refused) and come back on the same port. */
async function receiver(
  answer: (hit: number, response: ServerResponse) => void = (_hit, response) => response.end('ok'),
) {
  const hits: Hit[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      hits.push({
        id: request.headers['x-ratefile-alert-id'] as string | undefined,
        body: JSON.parse(body) as Hit['body'],
      });
      answer(hits.length, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const down = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  cleanups.push(() => (server.listening ? down() : Promise.resolve()));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    hits,
    down,
    up: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
  };
}

/** Time that moves only when the notifier waits to retry; `at(ms, step)` runs a step once that much has passed. */
function simulatedClock() {
  const start = Date.parse(at);
  let elapsed = 0;
  const waits: number[] = [];
  const steps: { at: number; run: () => Promise<unknown> }[] = [];
  return {
    now: () => new Date(start + elapsed),
    elapsed: () => elapsed,
    waits,
    at: (ms: number, run: () => Promise<unknown>) => void steps.push({ at: ms, run }),
    wait: async (ms: number) => {
      waits.push(ms);
      elapsed += ms;
      for (const step of steps.filter((s) => s.at <= elapsed)) {
        steps.splice(steps.indexOf(step), 1);
        await step.run();
      }
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

async function notifierOn(
  url: string,
  options: Partial<NotifierOptions> & { timeoutMs?: number; stateDir?: string } = {},
) {
  const stateDir = options.stateDir ?? (await mkdtemp(join(tmpdir(), 'ratefile-alerts-')));
  if (!options.stateDir) cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
  let log = '';
  const { timeoutMs, ...rest } = options;
  const channels = createChannels(
    { reminder: 20_000, webhook: { url } },
    {},
    globalThis.fetch,
    timeoutMs === undefined ? {} : { timeoutMs },
  );
  const notifier: Notifier = createNotifier({
    channels,
    stateDir,
    reminderMs: 20_000,
    log: createLogger({ write: (text: string) => (log += text) }),
    ...rest,
  });
  cleanups.push(() => notifier.stop());
  return { notifier, stateDir, log: () => log };
}

const failing = status({ lastBuild: { at, durationMs: 1, ok: false, error: 'quotes file missing' } });
const healthy = status();
const kinds = (hit: Hit | undefined) => [...new Set(hit?.body.events.map((e) => e.kind))];
const keys = (hit: Hit | undefined) => hit?.body.events.map((e) => e.key).sort();
const outboxIn = async (stateDir: string) =>
  (JSON.parse(await readFile(join(stateDir, 'alerts.json'), 'utf8')) as { outbox: PendingMessage[] }).outbox;

describe('alert delivery', () => {
  it('a 70 s outage: the problem, a reminder and the end wait; the start arrives once, then the end once, each by its id', async () => {
    const hook = await receiver();
    await hook.down();
    const clock = simulatedClock();
    const { notifier, stateDir, log } = await notifierOn(hook.url, { wait: clock.wait });
    clock.at(20_000, () => notifier.observe(failing, clock.now())); // a reminder, while the receiver is still down
    clock.at(40_000, () => notifier.observe(healthy, clock.now())); // the end
    clock.at(70_000, () => hook.up());
    await notifier.observe(failing, clock.now());
    await notifier.idle();

    expect(hook.hits).toHaveLength(2);
    const [started, ended] = hook.hits;
    expect(kinds(started)).toEqual(['start']);
    expect(kinds(ended)).toEqual(['end']);
    expect(keys(started)).toEqual(['build', 'health:degraded']);
    expect(keys(ended)).toEqual(keys(started));
    for (const hit of hook.hits) expect(hit.id).toMatch(/^[0-9a-f-]{36}$/);
    for (const hit of hook.hits) expect(hit.body.id).toBe(hit.id);
    expect(started?.id).not.toBe(ended?.id);
    // The reminder said nothing the end does not: logged, not sent.
    expect(log()).toMatch(
      /alert [0-9a-f-]{36} \(STILL health:degraded, STILL build\) not sent to webhook: a later message reports the same problems/,
    );
    expect(log().match(/alert channel webhook failing, retrying until it works/g)).toHaveLength(1);
    expect(log()).toMatch(/alert channel webhook works again/);
    // Retried on backoff capped at 30 s, so delivered within 30 s of the receiver's return.
    expect(Math.max(...clock.waits)).toBe(30_000);
    expect(clock.elapsed()).toBeGreaterThanOrEqual(70_000);
    expect(clock.elapsed()).toBeLessThanOrEqual(100_000);
    expect(await outboxIn(stateDir)).toEqual([]);
  });

  it('a receiver slower than the timeout: every retry carries the same id, in the header and the body', async () => {
    const hook = await receiver((hit, response) => {
      if (hit <= 2) setTimeout(() => response.end('late'), 600);
      else response.end('ok');
    });
    const clock = simulatedClock();
    const { notifier, log } = await notifierOn(hook.url, { wait: clock.wait, timeoutMs: 150 });
    await notifier.observe(failing, clock.now());
    await notifier.idle();
    expect(hook.hits).toHaveLength(3);
    const id = hook.hits[0]?.id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(hook.hits.map((hit) => [hit.id, hit.body.id])).toEqual(Array(3).fill([id, id]));
    expect(log()).toMatch(/alert channel webhook failing, retrying until it works: .*(timeout|aborted)/i);
  });

  it('across a restart: what one notifier could not deliver, the next one sends under the same id, before anything new', async () => {
    const hook = await receiver();
    await hook.down();
    const first = await notifierOn(hook.url);
    await first.notifier.observe(failing, new Date(at));
    await pollUntil(async () => (/alert channel webhook failing/.test(first.log()) ? true : undefined), 10_000, 20);
    await first.notifier.stop();
    const [pending, ...rest] = await outboxIn(first.stateDir);
    expect(rest).toEqual([]);
    expect(pending).toMatchObject({ channels: ['webhook'], events: [{ kind: 'start' }, { kind: 'start' }] });

    await hook.up();
    const second = await notifierOn(hook.url, { stateDir: first.stateDir });
    await second.notifier.observe(healthy, new Date(Date.parse(at) + 60_000));
    await second.notifier.idle();
    expect(hook.hits.map((hit) => [hit.id, kinds(hit)])).toEqual([
      [pending?.id, ['start']],
      [expect.any(String), ['end']],
    ]);
    expect(hook.hits[1]?.id).not.toBe(pending?.id);
    expect(await outboxIn(first.stateDir)).toEqual([]);
  });

  it('stop abandons an attempt the receiver never answers; the message stays for the next start', async () => {
    const hook = await receiver(() => undefined);
    const { notifier, stateDir } = await notifierOn(hook.url, { timeoutMs: 600_000 });
    await notifier.observe(failing, new Date(at));
    await pollUntil(async () => (hook.hits.length > 0 ? true : undefined), 10_000, 20);
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise((resolve) => (timer = setTimeout(resolve, 20_000, 'still waiting')));
    expect(await Promise.race([notifier.stop().then(() => 'stopped'), stuck])).toBe('stopped');
    clearTimeout(timer);
    expect((await outboxIn(stateDir)).map((m) => m.id)).toEqual([hook.hits[0]?.id]);
  });

  it('nothing leaves the outbox unlogged: the oldest beyond the limit, and a message the receiver rejects', async () => {
    const hook = await receiver((_hit, response) => {
      response.writeHead(400);
      response.end('bad request');
    });
    await hook.down();
    const clock = simulatedClock();
    const { notifier, stateDir, log } = await notifierOn(hook.url, {
      wait: clock.wait,
      outboxLimit: 2,
      backoffMs: () => 1_000,
    });
    clock.at(3_000, async () => {
      await notifier.observe(healthy, clock.now());
      await notifier.observe(failing, clock.now());
    });
    clock.at(5_000, () => hook.up());
    await notifier.observe(failing, clock.now());
    await notifier.idle();
    expect(log()).toMatch(
      /warn alert [0-9a-f-]{36} \(PROBLEM health:degraded, PROBLEM build\) dropped undelivered for webhook: more than 2 alerts waiting/,
    );
    expect(
      log().match(
        /error alert [0-9a-f-]{36} \(\w+ health:degraded, \w+ build\) given up on webhook: the receiver rejects it \(HTTP 400\)/g,
      ),
    ).toHaveLength(2);
    expect(hook.hits.map(kinds)).toEqual([['end'], ['start']]);
    expect(await outboxIn(stateDir)).toEqual([]);
  });
});
