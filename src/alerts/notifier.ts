// The alert notifier: after each build, what started, ended or still lasts (a reminder), as one message per
// channel. Delivery runs in the background, so a channel that is down never delays a build. A message waits in
// the outbox (`.ratefile/alerts.json`, with the known problems, one atomic file so a crash cannot lose one
// without the other) until every channel has it: retries never give up while it is relevant, with backoff
// capped at 30 s, and each channel gets its messages in order, so a problem's start arrives before its end.
// It leaves undelivered only when superseded, when the outbox is full, or when the receiver rejects it: each logged.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { assessHealth } from '../health.js';
import type { Logger } from '../log.js';
import type { HealthLevel } from '../model.js';
import { writeStateFile } from '../state-files.js';
import { RejectedAlert, type Channel, type ChannelName } from './channels.js';
import { enqueue, nextFor, restoreOutbox, settle, type Dropped, type PendingMessage } from './outbox.js';
import {
  compareProblems,
  currentProblems,
  messageText,
  type AlertEvent,
  type AlertState,
  type Problem,
} from './problems.js';
import type { Status } from '../report.js';

export interface NotifierOptions {
  channels: readonly Channel[];
  stateDir: string;
  reminderMs: number;
  log: Logger;
  /** Delay before retry n (1-based) of one message on one channel; default 1 s, 2 s, 4 s… up to 30 s. */
  backoffMs?: (attempt: number) => number;
  /** How a retry waits (default a timer); tests pass a simulated clock. Resolves early when `signal` aborts. */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Messages kept undelivered at most (default 200); beyond, the oldest is dropped (logged). */
  outboxLimit?: number;
}

export interface Notifier {
  /**
   * Compare this build's status (and `more` problems, e.g. silent monitors) with the known problems and queue a
   * message if anything changed; never throws. `recoveries`: what ended a problem of `more`, by key, for its end.
   */
  observe(
    status: Status,
    now: Date,
    more?: readonly Problem[],
    recoveries?: ReadonlyMap<string, string>,
  ): Promise<void>;
  /** Resolves once the outbox is empty (tests): never while a channel stays down. */
  idle(): Promise<void>;
  /** Stop delivering (an attempt under way is abandoned); what is undelivered stays in the outbox for the next start. */
  stop(): Promise<void>;
}

/** What `.ratefile/alerts.json` holds. */
interface Stored extends AlertState {
  outbox: PendingMessage[];
}

const file = (stateDir: string) => join(stateDir, 'alerts.json');

async function readStored(
  stateDir: string,
): Promise<{ active: AlertState['active']; outbox: unknown; problem?: string }> {
  let text: string;
  try {
    text = await readFile(file(stateDir), 'utf8');
  } catch {
    return { active: {}, outbox: undefined };
  }
  try {
    const data = JSON.parse(text) as Partial<Stored> | null;
    const active = typeof data?.active === 'object' && data.active !== null ? data.active : {};
    return { active, outbox: data?.outbox };
  } catch (error) {
    return { active: {}, outbox: undefined, problem: (error as Error).message };
  }
}

const defaultBackoff = (attempt: number) => Math.min(30_000, 1000 * 2 ** (attempt - 1));
const defaultWait = (ms: number, signal: AbortSignal) =>
  delay(ms, undefined, { signal, ref: false }).catch(() => undefined);

/**
 * One delivery attempt, abandoned when the notifier stops: a signal of its own (listeners on the long-lived
 * `stopping` signal are removed again), and not awaited past the stop where a channel cannot cancel (SMTP).
 */
async function sendOnce(channel: Channel, message: PendingMessage, stopping: AbortSignal): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  stopping.addEventListener('abort', stop, { once: true });
  try {
    await new Promise<void>((resolve, reject) => {
      controller.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
      channel.send(message, controller.signal).then(resolve, reject);
    });
  } finally {
    stopping.removeEventListener('abort', stop);
  }
}

const rank: Record<HealthLevel, number> = { ok: 0, degraded: 1, failing: 2 };
/** A message's level: the worst of health's and of the problems now open that health does not count (monitors). */
function messageLevel(health: HealthLevel, problems: readonly Problem[]): HealthLevel {
  return problems.reduce<HealthLevel>(
    (worst, problem) => (problem.level && rank[problem.level] > rank[worst] ? problem.level : worst),
    health,
  );
}

const labels: Record<AlertEvent['kind'], string> = { start: 'PROBLEM', reminder: 'STILL', end: 'RESOLVED' };
/** A message in a log line by its id and events (keys only: texts can be long). */
const described = (message: PendingMessage) => {
  const events = message.events
    .slice(0, 3)
    .map((event) => `${labels[event.kind]} ${event.key}`)
    .join(', ');
  return `alert ${message.id} (${events}${message.events.length > 3 ? `, +${message.events.length - 3}` : ''})`;
};

export function createNotifier(options: NotifierOptions): Notifier {
  const { log } = options;
  const backoff = options.backoffMs ?? defaultBackoff;
  const wait = options.wait ?? defaultWait;
  const limit = options.outboxLimit ?? 200;
  const names = options.channels.map((channel) => channel.name);
  const stopping = new AbortController();
  let stored: Stored = { active: {}, outbox: [] };
  // One delivery loop per channel while it is owed messages: a slow channel holds up only itself.
  const loops = new Map<ChannelName, Promise<void>>();
  const failing = new Set<ChannelName>();
  let saving = Promise.resolve();

  const logDropped = (dropped: readonly Dropped[]) => {
    for (const { message, channels, why } of dropped) {
      const fields = { event: 'alert-dropped', id: message.id, channels, why };
      if (why === 'superseded')
        log.info(
          `${described(message)} not sent to ${channels.join(', ')}: a later message reports the same problems`,
          fields,
        );
      else if (why === 'full')
        log.warn(
          `${described(message)} dropped undelivered for ${channels.join(', ')}: more than ${limit} alerts waiting`,
          fields,
        );
      else
        log.warn(
          `${described(message)} dropped undelivered for ${channels.join(', ')}: no such channel configured any more`,
          fields,
        );
    }
  };

  /** Writes the state as it is when the write starts; writes never overlap, so the last one holds the latest. */
  const save = (): Promise<void> => {
    saving = saving.then(async () => {
      try {
        await writeStateFile(file(options.stateDir), `${JSON.stringify(stored, null, 2)}\n`);
      } catch (error) {
        log.warn(`alerts: ${(error as Error).message}`, { event: 'alerts' });
      }
    });
    return saving;
  };

  const deliver = async (channel: Channel): Promise<void> => {
    let attempt = 0;
    for (;;) {
      // Only what is in the file is sent: a crash then resends it under its id rather than making a new one.
      await saving;
      const message = stopping.signal.aborted ? undefined : nextFor(stored.outbox, channel.name);
      if (!message) {
        loops.delete(channel.name);
        return;
      }
      try {
        await sendOnce(channel, message, stopping.signal);
      } catch (error) {
        if (stopping.signal.aborted) continue;
        if (error instanceof RejectedAlert) {
          log.error(
            `${described(message)} given up on ${channel.name}: the receiver rejects it (${error.message}), retrying cannot help`,
            { event: 'alert-dropped', id: message.id, channels: [channel.name], why: 'rejected' },
          );
          stored = { ...stored, outbox: settle(stored.outbox, message.id, channel.name) };
          attempt = 0;
          await save();
          continue;
        }
        attempt += 1;
        if (!failing.has(channel.name)) {
          failing.add(channel.name);
          log.warn(`alert channel ${channel.name} failing, retrying until it works: ${(error as Error).message}`, {
            event: 'alert-channel',
            channel: channel.name,
            ok: false,
          });
        }
        await wait(backoff(attempt), stopping.signal);
        continue;
      }
      attempt = 0;
      if (failing.delete(channel.name))
        log.info(`alert channel ${channel.name} works again`, {
          event: 'alert-channel',
          channel: channel.name,
          ok: true,
        });
      stored = { ...stored, outbox: settle(stored.outbox, message.id, channel.name) };
      await save();
    }
  };

  /** Starts a channel's loop unless it runs; started a tick later, so the loop's own delete never precedes this set. */
  const kick = () => {
    for (const channel of options.channels) {
      if (loops.has(channel.name) || stopping.signal.aborted) continue;
      loops.set(
        channel.name,
        Promise.resolve().then(() => deliver(channel)),
      );
    }
  };

  // What the last run left undelivered goes out first, before anything this run finds.
  const loaded = readStored(options.stateDir).then(({ active, outbox, problem }) => {
    if (problem !== undefined)
      log.warn(
        `alerts: ${file(options.stateDir)} is unreadable, known problems and undelivered alerts are lost: ${problem}`,
        { event: 'alerts' },
      );
    const restored = restoreOutbox(outbox, names, limit);
    if (restored.unreadable > 0)
      log.warn(
        `alerts: ${restored.unreadable} undelivered alert(s) in ${file(options.stateDir)} unreadable, left out`,
        { event: 'alerts' },
      );
    logDropped(restored.dropped);
    stored = { active, outbox: restored.outbox };
    kick();
  });

  return {
    async observe(status, now, more = [], recoveries = new Map()) {
      try {
        await loaded;
        const problems = [...currentProblems(status, now), ...more];
        const compared = compareProblems(stored, problems, now, options.reminderMs, recoveries);
        let outbox = stored.outbox;
        if (compared.events.length > 0) {
          const message = {
            id: randomUUID(),
            at: now.toISOString(),
            level: messageLevel(assessHealth(status, now).level, problems),
            events: compared.events,
            text: messageText(compared.events),
          };
          const queued = enqueue(outbox, message, names, limit);
          logDropped(queued.dropped);
          outbox = queued.outbox;
        }
        stored = { ...compared.state, outbox };
        // Written before any delivery starts: a message is in the file before a receiver can have it.
        await save();
        kick();
      } catch (error) {
        log.warn(`alerts: ${(error as Error).message}`, { event: 'alerts' });
      }
    },
    async idle() {
      await loaded;
      while (loops.size > 0) await Promise.all(loops.values());
      await saving;
    },
    async stop() {
      stopping.abort();
      await loaded;
      await Promise.all(loops.values());
      await saving;
    },
  };
}
