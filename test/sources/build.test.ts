import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../src/build.js';
import { loadConfig } from '../../src/config/load.js';
import { QuoteCache } from '../../src/quotes.js';
import { repoRoot } from '../support/process.js';
import { startReplay, type ReplayServer } from '../support/replay.js';

describe('build with live sources', () => {
  let dir: string;
  let replay: ReplayServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratefile-sources-build-'));
    await cp(join(repoRoot, 'templates'), join(dir, 'templates'), { recursive: true });
    replay = await startReplay([
      { path: '/venue', responses: [{ body: '{"time": "2026-11-21T11:59:50Z", "usdt": {"bid": "92.10", "ask": "92.35"}}' }] },
      { path: '/old', responses: [{ body: '{"time": "2026-11-21T11:50:00Z", "usdt": {"bid": "92.10", "ask": "92.35"}}' }] },
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
    expect(result.report.withheld.map((withheld) => withheld.reason)).toEqual(['quote USDT/RUB from venue is 600 s old (limit 60 s)']);
    const allowed = await build(await configWith('/old', ', maxAge: 15m'), { now, env: env() });
    expect(allowed.report.priced).toHaveLength(1);
  });
});
