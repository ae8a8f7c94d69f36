// The monitor's view of us under `start` (in-process, clock injected): a loopback info.zip whose rows for our own
// id (`self: 100`) the test writes by hand. BTC → SBERRUB is listed 60 s late after a change (lagging, then the
// lag measured), USDTTRC20 → SBERRUB at our rate with another reserve (differs, an alert after `alertAfter`),
// BTC → USDTTRC20 not at all (missing). Status (`status --json`), /metrics, the dashboard and .ratefile/listing.json
// say so; a restart keeps the published rates' times.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseDocument } from '../../../src/pure/check/tree.js';
import type { ListingView } from '../../../src/pure/compete/listing.js';
import { dump } from '../../support/bestchange.js';
import { projectsPerTest } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';
import { servicesPerTest } from '../../support/service.js';
import { serversPerTest } from '../../support/listen.js';
import { webhook } from '../../support/webhook.js';

const project = projectsPerTest();
const start = servicesPerTest();
const listen = serversPerTest();

/** `from>to` → `in:out` of each item of the published parserfile.xml. */
async function publishedRates(dir: string): Promise<Map<string, string>> {
  const text = await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8');
  const rates = new Map<string, string>();
  for (const item of parseDocument(text).root?.children ?? []) {
    const field = (name: string) => item.children.find((child) => child.name === name)?.text ?? '';
    rates.set(`${field('from')}>${field('to')}`, `${field('in')}:${field('out')}`);
  }
  return rates;
}

describe("the monitor's view of us", () => {
  it('finds a listing that lags, one that differs and a missing direction, and measures the lag', async () => {
    let gamma = '4900000';
    /** Our own rows as BestChange lists them, by currency ids `from;to`: `give;get;reserve`. */
    const self = new Map<string, string>();
    const feed = await listen(() =>
      Buffer.from(
        dump({
          'bm_cycodes.dat': '1;SBERRUB\n2;BTC\n3;USDTTRC20\n',
          'bm_exch.dat': '100;Us;;0;1\n30;Gamma;;0;1\n',
          'bm_cities.dat': '',
          'bm_info.dat': 'last_update=12:00:00, 21 ноября\ncurrent_version=2.02\n',
          'bm_rates.dat': [
            `2;1;30;1;${gamma};9000000;0.1;0;0.001;10;0`,
            '3;1;30;1;95;9000000;0.1;0;0;0;0',
            '2;3;30;1;49000;9000000;0.1;0;0;0;0',
            ...[...self].map(([pair, row]) => `${pair};100;${row};0.1;0;0;0;0`),
          ].join('\r\n'),
        }),
      ),
    );
    const hook = await webhook();
    onTestFinished(hook.close);
    const made = await project({
      'ratefile.config.yaml': `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, baseUrl: "${feed}", retries: 0, self: 100, listing: { alertAfter: 90s } }
currencies:
  BTC: { reserve: "3" }
  SBERRUB: { reserve: "50000000" }
  USDTTRC20: { reserve: "200000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 2%, compete: { place: 1, floor: 1%, ceiling: 3% } }
  - { from: USDTTRC20, to: SBERRUB, margin: 2%, compete: { place: 1, floor: 1%, ceiling: 10% } }
  - { from: BTC, to: USDTTRC20, margin: 2%, compete: { place: 1, floor: 1%, ceiling: 10% } }
alerts:
  webhook: { url: "${hook.url}" }
`,
      'quotes.json': JSON.stringify({
        quotes: [
          { pair: 'BTC/RUB', bid: '5000000', ask: '5000000' },
          { pair: 'USDT/RUB', bid: '100', ask: '100' },
          { pair: 'BTC/USDT', bid: '50000', ask: '50000' },
        ],
      }),
    });
    let now = Date.parse('2026-11-21T12:00:00Z');
    const clock = () => new Date(now);
    let service = await start(made, { now: clock });
    /** 30 s later, once a build has used the feed fetched then (the feed's refresh is 30 s). */
    const rebuild = async () => {
      now += 30_000;
      const at = new Date(now).toISOString();
      for (let tries = 0; tries < 500; tries++) {
        await service.rebuild();
        if (service.status()?.sources.find((s) => s.name === 'bc')?.lastSuccessAt === at) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(service.status()?.sources.find((s) => s.name === 'bc')?.lastSuccessAt).toBe(at);
    };
    const views = () => new Map((service.status()?.listing ?? []).map((view) => [view.direction, view]));
    const ours = await publishedRates(made.dir);
    expect(ours.get('BTC>SBERRUB')).toBe('1:4900000.01');
    const usdt = ours.get('USDTTRC20>SBERRUB')!;
    // As published: BTC → SBERRUB; USDTTRC20 → SBERRUB at our rate with a reserve of 1,000 (we publish 50,000,000).
    self.set('2;1', '1;4900000.01;50000000');
    self.set('3;1', `${usdt.replace(':', ';')};1000`);
    await rebuild();
    expect(views().get('BTC>SBERRUB')).toMatchObject({ state: 'same', differences: [] });
    expect(views().get('USDTTRC20>SBERRUB')).toMatchObject({
      state: 'differs',
      differences: ['reserve: listed 1000, published 50000000'],
    });
    expect(views().get('BTC>USDTTRC20')).toMatchObject({ state: 'missing', differences: ['published, not listed'] });
    // First seen with no memory: no lag measured for a rate that may have been published before.
    expect(views().get('BTC>SBERRUB')?.lagSeconds).toBeUndefined();

    // Gamma moves: we publish 4,910,000.01 at 12:01:00; BestChange goes on listing the old rate for a minute.
    gamma = '4910000';
    await rebuild();
    const changedAt = new Date(now).toISOString();
    expect((await publishedRates(made.dir)).get('BTC>SBERRUB')).toBe('1:4910000.01');
    await rebuild();
    expect(views().get('BTC>SBERRUB')).toMatchObject({
      state: 'lagging',
      since: changedAt,
      differences: ['rate: listed 1:4900000.01, published 1:4910000.01'],
      listed: { rate: '1:4900000.01' },
    });
    // Listed at 12:02:00 at the feed's precision (one decimal shown: 4910000.0 is within one unit of it).
    self.set('2;1', '1;4910000.0;50000000');
    await rebuild();
    expect(views().get('BTC>SBERRUB')).toMatchObject({ state: 'same', lagSeconds: 60 });
    expect(views().get('BTC>SBERRUB')?.since).toBeUndefined();
    await service.alertsIdle();

    // The reserve and the missing direction have lasted past `alertAfter` (90 s): an alert each, none for the lag.
    const started = hook.alerts().filter((e) => e.key.startsWith('listing:') && e.kind === 'start');
    expect(started.map((e) => e.key).sort()).toEqual(['listing:BTC>USDTTRC20', 'listing:USDTTRC20>SBERRUB']);
    expect(started.find((e) => e.key === 'listing:USDTTRC20>SBERRUB')?.text).toMatch(
      /^BestChange lists USDTTRC20 → SBERRUB as differs since 2026-11-21T12:00:00\.000Z: reserve: listed 1000, published 50000000$/,
    );

    const metrics = await (await fetch(`${service.base}metrics`)).text();
    expect(metrics).toMatch(/^ratefile_listing_lag_seconds_count 1$/m);
    expect(metrics).toMatch(/^ratefile_listing_lag_seconds_sum 60$/m);
    expect(metrics).toMatch(/^ratefile_listing_directions\{state="missing"\} 1$/m);
    expect(metrics).toMatch(/^ratefile_listing_directions\{state="differs"\} 1$/m);
    expect(metrics).toMatch(/^ratefile_listing_last_lag_seconds\{direction="BTC>SBERRUB"\} 60$/m);
    const health = (await (await fetch(`${service.base}healthz`)).json()) as { listing: ListingView[] };
    expect(health.listing.map((view) => [view.direction, view.state])).toEqual([
      ['BTC>SBERRUB', 'same'],
      ['USDTTRC20>SBERRUB', 'differs'],
      ['BTC>USDTTRC20', 'missing'],
    ]);
    const page = await (await fetch(service.base)).text();
    expect(page).toContain('id="listing"');
    expect(page).toMatch(/BTC → USDTTRC20<\/td><td[^>]*>missing/);

    // Fixed: listed as published, and BTC → USDTTRC20 listed: both alerts end.
    self.set('3;1', `${usdt.replace(':', ';')};50000000`);
    const btcUsdt = (await publishedRates(made.dir)).get('BTC>USDTTRC20')!;
    self.set('2;3', `${btcUsdt.replace(':', ';')};200000`);
    await rebuild();
    await service.alertsIdle();
    expect([...views().values()].map((view) => view.state)).toEqual(['same', 'same', 'same']);
    const ended = hook.alerts().filter((e) => e.key.startsWith('listing:') && e.kind === 'end');
    expect(ended).toHaveLength(2);

    // status --json carries the same, from the status file.
    const status = await runRatefile(['status', '--json'], made.dir);
    const listing = (JSON.parse(status.stdout) as { listing: ListingView[] }).listing;
    expect(listing.find((view) => view.direction === 'BTC>SBERRUB')).toMatchObject({ state: 'same', lagSeconds: 60 });

    // The published rates' times survive a restart: a change listed after it is still measured.
    await service.stop();
    const kept = JSON.parse(await readFile(join(made.dir, '.ratefile', 'listing.json'), 'utf8')) as {
      directions: Record<string, { versions: unknown[] }>;
    };
    expect(kept.directions['BTC>SBERRUB']?.versions).toHaveLength(2);
    service = await start(made, { now: clock });
    gamma = '4920000';
    await rebuild();
    self.set('2;1', '1;4920000.01;50000000');
    await rebuild();
    expect(views().get('BTC>SBERRUB')).toMatchObject({ state: 'same', lagSeconds: 30 });
  }, 120_000);
});
