import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../../src/io/build/build.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { QuoteCache } from '../../../src/io/quotes/quotes.js';
import { successStatus } from '../../../src/pure/status/status.js';
import { repoRoot } from '../../support/process.js';
import { startReplay, type ReplayServer } from '../../support/replay.js';

describe('build with live sources', () => {
  let dir: string;
  let replay: ReplayServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratefile-sources-build-'));
    await cp(join(repoRoot, 'templates'), join(dir, 'templates'), { recursive: true });
    replay = await startReplay([
      {
        path: '/venue',
        responses: [{ body: '{"time": "2026-11-21T11:59:50Z", "usdt": {"bid": "92.10", "ask": "92.35"}}' }],
      },
      {
        path: '/old',
        responses: [{ body: '{"time": "2026-11-21T11:50:00Z", "usdt": {"bid": "92.10", "ask": "92.35"}}' }],
      },
    ]);
  });
  afterAll(async () => {
    await replay.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function configWith(path: string, extra = '') {
    await writeFile(
      join(dir, 'ratefile.config.yaml'),
      `sources:
  venue: { type: json, url: "https://venue.example${path}", time: time, pairs: { USDT/RUB: { bid: usdt.bid, ask: usdt.ask } }${extra} }
currencies:
  USDTTRC20: { reserve: "100000" }
  USDTERC20: { reserve: "100000" }
  SBERRUB: { reserve: "5000000" }
directions:
  - { from: USDTTRC20, to: SBERRUB, margin: 1% }
`,
    );
    return loadConfig(join(dir, 'ratefile.config.yaml'));
  }

  const env = () => ({ RATEFILE_JSON_URL: replay.url });
  const now = () => new Date('2026-11-21T12:00:00Z');

  it('reuses quotes within the refresh interval through the quote cache the service keeps', async () => {
    const config = await configWith('/venue', ', refresh: 5m, maxAge: 10m');
    const quoteCache = new QuoteCache();
    const before = replay.requests.length;
    const first = await build(config, { now, env: env(), quoteCache });
    const second = await build(config, { now: () => new Date('2026-11-21T12:04:00Z'), env: env(), quoteCache });
    expect(replay.requests.length - before).toBe(1);
    expect(second.report.sources[0]).toMatchObject({ ok: true, reused: 'refresh' });
    expect(second.files.map((file) => file.bytes.toString())).toEqual(first.files.map((file) => file.bytes.toString()));
    expect(second.report.priced.map((priced) => priced.direction.id)).toEqual(['USDTTRC20>SBERRUB']);
  });

  it("holds back a direction whose quote is older than its source's maximum age (twice the schedule period by default)", async () => {
    const config = await configWith('/old');
    const result = await build(config, { now, env: env() });
    expect(result.report.priced).toEqual([]);
    expect(result.report.withheld.map((withheld) => withheld.reason)).toEqual([
      'quote USDT/RUB from venue is 600 s old (limit 60 s)',
    ]);
    const allowed = await build(await configWith('/old', ', maxAge: 15m'), { now, env: env() });
    expect(allowed.report.priced).toHaveLength(1);
  });
});

describe('reference rates are as old as their own date (ECB in Frankfurt, CBR in Moscow)', () => {
  let dir: string;
  let replay: ReplayServer;
  // The recordings: the ECB's rates of Friday 2026-11-20, CBR's fixing for Saturday 21.11.2026 (set on Friday).
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratefile-sources-dated-'));
    await cp(join(repoRoot, 'templates'), join(dir, 'templates'), { recursive: true });
    // The maxAge values of examples/live.yaml.
    await writeFile(
      join(dir, 'ratefile.config.yaml'),
      `sources:
  cbr: { type: cbr, pairs: [USD/RUB], maxAge: 3d }
  ecb: { type: ecb, pairs: [EUR/USD], maxAge: 4d }
currencies:
  CASHRUB: { precision: 0, reserve: "25000000" }
  CASHUSD: { precision: 0, reserve: "250000" }
  CASHEUR: { precision: 0, reserve: "80000" }
  USDTTRC20: { reserve: "100000" } # named by the templates' aliases
  USDTERC20: { reserve: "100000" }
directions:
  - { from: CASHEUR, to: CASHUSD, margin: 1% }
  - { from: CASHUSD, to: CASHRUB, margin: 1% }
`,
    );
    replay = await startReplay([
      { path: '/stats/eurofxref/eurofxref-daily.xml', responses: [{ fixture: 'ecb/eurofxref-daily.xml' }] },
      { path: '/scripts/XML_daily.asp', responses: [{ fixture: 'cbr/XML_daily.asp' }] },
    ]);
  });
  afterAll(async () => {
    await replay.close();
    await rm(dir, { recursive: true, force: true });
  });

  const buildAt = async (now: string) => {
    const config = await loadConfig(join(dir, 'ratefile.config.yaml'));
    return build(config, {
      now: () => new Date(now),
      env: { RATEFILE_ECB_URL: replay.url, RATEFILE_CBR_URL: replay.url },
    });
  };

  it('on Monday morning both are published, and status shows their real age', async () => {
    const { report } = await buildAt('2026-11-23T09:00:00Z');
    expect(report.withheld).toEqual([]);
    expect(report.priced.map((priced) => priced.direction.id)).toEqual(['CASHEUR>CASHUSD', 'CASHUSD>CASHRUB']);
    const status = successStatus(undefined, report, 0, 30_000);
    // ECB: since midnight after Friday in CET (23:00 UTC), 2 d 10 h; CBR: since midnight after Saturday in Moscow (21:00 UTC), 1 d 12 h.
    expect(status.sources.map(({ name, oldestQuoteAgeSeconds }) => [name, oldestQuoteAgeSeconds])).toEqual([
      ['cbr', 36 * 3600],
      ['ecb', 58 * 3600],
    ]);
  });

  it('a reference rate older than maxAge by its own date is held back, though fetched just now', async () => {
    // Thursday: the ECB file still says Friday (5 d 13 h), the Bank of Russia still Saturday (4 d 15 h).
    const { report } = await buildAt('2026-11-26T12:00:00Z');
    expect(report.sources.map((source) => [source.name, source.ok])).toEqual([
      ['cbr', true],
      ['ecb', true],
    ]);
    expect(report.priced).toEqual([]);
    expect(report.withheld.map((withheld) => `${withheld.direction.id}: ${withheld.reason}`)).toEqual([
      `CASHEUR>CASHUSD: quote EUR/USD from ecb is ${(5 * 24 + 13) * 3600} s old (limit ${4 * 86_400} s)`,
      `CASHUSD>CASHRUB: quote USD/RUB from cbr is ${(4 * 24 + 15) * 3600} s old (limit ${3 * 86_400} s)`,
    ]);
  });
});
