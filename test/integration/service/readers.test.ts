// Who reads the exports, on the real server on loopback: fetches with chosen user agents are recorded by monitor and
// export, shown on the dashboard, counted in /metrics and kept over a restart; a monitor that stops fetching, or is
// answered with something other than the file, starts an alert on a real webhook receiver, and its next good fetch ends it.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReadersView } from '../../../src/service/readers/tracker.js';
import { rawRequest } from '../../support/http.js';
import { projectsPerTest, sampleConfig } from '../../support/project.js';
import { servicesPerTest } from '../../support/service.js';
import { webhook as startWebhook, type Webhook } from '../../support/webhook.js';

const project = projectsPerTest();
const start = servicesPerTest();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

// Quotes without a time are as old as their file: off, so the clock can move on without the source going stale.
// Builds once a day: only the test's rebuild() runs them, so none started before a fetch judges it.
const config = `${sampleConfig.replace('path: quotes.json }', 'path: quotes.json, maxAge: "off" }')}schedule: "0 0 * * *"
monitors:
  bestchange: { agent: BestChangeBot, window: 10m }
  sumo: { agent: "/^Sumo\\\\//", address: 127.0.0.0/8, window: 10m, exports: [reffile.xml] }
`;
const bestchange = 'Mozilla/5.0 (compatible; BestChangeBot/1.0; +https://www.bestchange.com/)';

async function readersView(port: number): Promise<ReadersView> {
  const response = await rawRequest({ port, path: '/dashboard.json' });
  return (JSON.parse(response.body.toString()) as { readers: ReadersView }).readers;
}

/** A webhook receiver (test/support/webhook.ts), closed after each test. */
async function webhook(): Promise<Webhook> {
  const hook = await startWebhook();
  closers.push(hook.close);
  return hook;
}

describe('fetch records of the built-in server', () => {
  it('records each fetch by monitor and export, shows it, counts it, and keeps it over a restart', async () => {
    const made = await project({ 'ratefile.config.yaml': config });
    let now = new Date('2026-11-26T10:00:00Z');
    const service = await start(made, { now: () => now });
    const port = service.port!;
    const first = await rawRequest({ port, path: '/parserfile.xml', headers: { 'user-agent': bestchange } });
    expect(first.status).toBe(200);
    now = new Date('2026-11-26T10:00:30Z');
    const again = await rawRequest({
      port,
      path: '/parserfile.xml',
      headers: { 'user-agent': bestchange, 'if-none-match': String(first.headers.etag) },
    });
    expect(again.status).toBe(304);
    expect(
      (await rawRequest({ port, path: '/reffile.xml', method: 'HEAD', headers: { 'user-agent': 'Sumo/2.1' } })).status,
    ).toBe(200);
    expect((await rawRequest({ port, path: '/parserfile.xml', headers: { 'user-agent': 'curl/8.5.0' } })).status).toBe(
      200,
    );
    // Pages and other paths from no monitor are nobody's fetch of an export.
    await rawRequest({ port, path: '/healthz', headers: { 'user-agent': bestchange } });
    await rawRequest({ port, path: '/favicon.ico', headers: { 'user-agent': 'curl/8.5.0' } });

    const view = await readersView(port);
    expect(view.sources).toEqual(['server']);
    expect(view.fetches).toEqual([
      {
        monitor: 'bestchange',
        export: 'parserfile.xml',
        fetches: 2,
        notModifiedShare: 0.5,
        failed: 0,
        lastAt: '2026-11-26T10:00:30.000Z',
        agent: bestchange,
      },
      {
        monitor: 'sumo',
        export: 'reffile.xml',
        fetches: 1,
        notModifiedShare: 0,
        failed: 0,
        lastAt: '2026-11-26T10:00:30.000Z',
        agent: 'Sumo/2.1',
      },
      {
        monitor: null,
        export: 'parserfile.xml',
        fetches: 1,
        notModifiedShare: 0,
        failed: 0,
        lastAt: '2026-11-26T10:00:30.000Z',
      },
    ]);
    expect(view.monitors.map((m) => `${m.name} ${m.export ?? '*'} ${m.state}`)).toEqual([
      'bestchange * ok',
      'sumo reffile.xml ok',
    ]);
    const page = (await rawRequest({ port, path: '/' })).body.toString();
    expect(page).toContain('<h2 id="readers">Readers</h2>');
    expect(page).toContain('compatible; BestChangeBot/1.0');
    expect(page).toMatch(/<td data-label="304s" class="num"><div>50%<\/div><\/td>/);

    const metrics = (await rawRequest({ port, path: '/metrics' })).body.toString();
    expect(metrics).toContain(
      'ratefile_export_fetches_total{file="parserfile.xml",monitor="bestchange",class="2xx"} 1',
    );
    expect(metrics).toContain(
      'ratefile_export_fetches_total{file="parserfile.xml",monitor="bestchange",class="3xx"} 1',
    );
    expect(metrics).toContain('ratefile_export_fetches_total{file="reffile.xml",monitor="sumo",class="2xx"} 1');
    expect(metrics).toContain('ratefile_export_fetches_total{file="parserfile.xml",monitor="other",class="2xx"} 1');
    expect(metrics).toContain(
      `ratefile_monitor_last_fetch_timestamp_seconds{monitor="bestchange"} ${Date.parse('2026-11-26T10:00:30Z') / 1000}`,
    );
    expect(metrics).toContain('ratefile_monitor_ok{monitor="sumo"} 1');

    await service.stop();
    const saved = JSON.parse(await readFile(join(made.dir, '.ratefile', 'readers.json'), 'utf8')) as {
      version: number;
      since?: number;
    };
    expect(saved.version).toBe(1);
    // When watching began, for `ratefile status` (another process) to judge a monitor never seen.
    expect(saved.since).toBe(Date.parse('2026-11-26T10:00:00Z'));
    const restarted = await start(made, { now: () => now });
    expect((await readersView(restarted.port!)).fetches).toEqual(view.fetches);
  });
});

/**
 * A service with a webhook for alerts, on a clock the test moves: `step(ms)` moves it, builds and waits for the
 * alerts to go out; `fetchAs(agent)` fetches an export as a monitor would.
 */
async function alertingService() {
  const hook = await webhook();
  const made = await project({
    'ratefile.config.yaml': `${config}alerts:\n  webhook: { url: "${hook.url}" }\n`,
  });
  let now = new Date('2026-11-26T10:00:00Z');
  const service = await start(made, { now: () => now });
  const port = service.port!;
  const fetchAs = (agent: string, path = '/parserfile.xml') =>
    rawRequest({ port, path, headers: { 'user-agent': agent } });
  const step = async (ms: number) => {
    now = new Date(now.getTime() + ms);
    await service.rebuild();
    await service.alertsIdle();
  };
  return { hook, made, port, fetchAs, step };
}

describe('the silent-monitor alert', () => {
  it('starts when a monitor has not fetched within its window or got no rate file, and ends when it fetches fine', async () => {
    const { hook, made, port, fetchAs, step } = await alertingService();

    // Within the window nobody is missed yet.
    await step(5 * 60_000);
    expect(hook.events('monitor')).toEqual([]);
    await fetchAs(bestchange);
    await step(6 * 60_000);
    expect(hook.events('monitor')).toEqual(['start monitor-silent:sumo:reffile.xml']);
    // bestchange fetched at 5 min: silent after 15.
    await step(5 * 60_000);
    expect(hook.events('monitor').slice(1)).toEqual(['start monitor-silent:bestchange']);
    await fetchAs(bestchange);
    await fetchAs('Sumo/2.1', '/reffile.xml');
    await step(1_000);
    expect(hook.events('monitor').slice(2).sort()).toEqual([
      'end monitor-silent:bestchange',
      'end monitor-silent:sumo:reffile.xml',
    ]);

    // The file gone (a 404), then a wrong path given to the monitor: each an answer that is no rate file.
    await rm(join(made.dir, 'public', 'parserfile.xml'));
    expect((await fetchAs(bestchange)).status).toBe(404);
    await step(1_000);
    expect(hook.events('monitor').slice(4)).toEqual(['start monitor-answer:bestchange']);
    const view = await readersView(port);
    expect(view.monitors[0]).toMatchObject({
      state: 'failing',
      failure: { status: 404, why: 'HTTP 404', export: 'parserfile.xml' },
    });
    expect(view.fetches[0]).toMatchObject({ failed: 1, lastFailure: { status: 404, why: 'HTTP 404' } });
    expect((await rawRequest({ port, path: '/' })).body.toString()).toContain('NOT GETTING THE FILE');
    // The build republished it: the next fetch gets it, and the alert ends.
    expect((await fetchAs(bestchange)).status).toBe(200);
    await step(1_000);
    expect(hook.events('monitor').slice(5)).toEqual(['end monitor-answer:bestchange']);
    expect((await fetchAs(bestchange, '/parserfile.xml.bak')).status).toBe(404);
    await step(1_000);
    expect(hook.events('monitor').slice(6)).toEqual(['start monitor-answer:bestchange']);
    const metrics = (await rawRequest({ port, path: '/metrics' })).body.toString();
    expect(metrics).toContain('ratefile_export_fetches_total{file="other",monitor="bestchange",class="4xx"} 1');
    expect(metrics).toContain('ratefile_monitor_ok{monitor="bestchange"} 0');
  });
  it('a monitor whose client asks for gzip or brotli gets the file: no alert, monitor ok, its bytes counted', async () => {
    const { hook, port, step } = await alertingService();
    const fetched = [];
    for (const encoding of ['gzip', 'br', 'gzip, deflate, br'])
      fetched.push(
        await rawRequest({
          port,
          path: '/parserfile.xml',
          headers: { 'user-agent': bestchange, 'accept-encoding': encoding },
        }),
      );
    expect(fetched.map((r) => r.headers['content-encoding'])).toEqual(['gzip', 'br', 'br']);
    await rawRequest({
      port,
      path: '/reffile.xml',
      headers: { 'user-agent': 'Sumo/2.1', 'accept-encoding': 'gzip' },
    });
    await step(1_000);
    expect(hook.events('monitor')).toEqual([]);
    const view = await readersView(port);
    expect(view.monitors.map((m) => `${m.name} ${m.state}`)).toEqual(['bestchange ok', 'sumo ok']);
    expect(view.fetches[0]).toMatchObject({ monitor: 'bestchange', fetches: 3, failed: 0 });
    expect((await rawRequest({ port, path: '/' })).body.toString()).not.toContain('NOT GETTING THE FILE');
    const metrics = (await rawRequest({ port, path: '/metrics' })).body.toString();
    expect(metrics).toContain('ratefile_monitor_ok{monitor="bestchange"} 1');
    expect(metrics).toContain('ratefile_monitor_ok{monitor="sumo"} 1');
  });
  it('a silent monitor alerts at its own level (degraded, health being ok) and its end says it fetched again', async () => {
    const { hook, made, fetchAs, step } = await alertingService();
    const bodies = () =>
      hook.bodies.map(
        (body) => JSON.parse(body) as { level: string; events: { kind: string; key: string; text: string }[] },
      );
    await fetchAs(bestchange);
    await fetchAs('Sumo/2.1', '/reffile.xml');
    await step(16 * 60_000);
    const started = bodies().find((body) => body.events.some((e) => e.key === 'monitor-silent:bestchange'));
    // Health is ok (the exports are published); the message is as bad as its worst open problem.
    expect(started?.level).toBe('degraded');
    expect(started?.events.find((e) => e.key === 'monitor-silent:bestchange')?.text).toBe(
      'monitor bestchange has not fetched any export for 16 min (window 10 min), last at 2026-11-26T10:00:00.000Z',
    );
    await fetchAs(bestchange);
    await fetchAs('Sumo/2.1', '/reffile.xml');
    await step(1_000);
    const ended = bodies().at(-1)!;
    expect(ended.level).toBe('ok');
    expect(ended.events.map((e) => [e.kind, e.key, e.text]).sort()).toEqual([
      [
        'end',
        'monitor-silent:bestchange',
        'monitor bestchange fetched any export again at 2026-11-26T10:16:00.000Z, after 16 min without a fetch (window 10 min)',
      ],
      [
        'end',
        'monitor-silent:sumo:reffile.xml',
        'monitor sumo fetched reffile.xml again at 2026-11-26T10:16:00.000Z, after 16 min without a fetch (window 10 min)',
      ],
    ]);

    // Answered with no rate file: failing, whatever health says; its end says it got the file again.
    await rm(join(made.dir, 'public', 'parserfile.xml'));
    expect((await fetchAs(bestchange)).status).toBe(404);
    await step(1_000);
    const answered = bodies().at(-1)!;
    expect(answered.events.map((e) => `${e.kind} ${e.key}`)).toEqual(['start monitor-answer:bestchange']);
    expect(answered.level).toBe('failing');
    expect((await fetchAs(bestchange)).status).toBe(200);
    await step(1_000);
    expect(bodies().at(-1)!.events).toEqual([
      {
        kind: 'end',
        key: 'monitor-answer:bestchange',
        text: 'monitor bestchange got a rate file again for any export, last at 2026-11-26T10:16:02.000Z',
      },
    ]);
  });
});
