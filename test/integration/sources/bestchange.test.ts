// The `bestchange` source through real HTTP (a loopback replay): conditional requests and a 304, the 30 s
// refresh floor, HTML pages, truncated zips, a feed with far fewer rows than the last, and its config.
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/io/config/load.js';
import { fetchQuotes, QuoteCache } from '../../../src/io/quotes/quotes.js';
import { bestChangeFeed } from '../../../src/io/sources/bestchange.js';
import { competitors } from '../../../src/pure/bestchange/feed.js';
import { base, bigFeedOffThread, dump } from '../../support/bestchange.js';
import { repoRoot } from '../../support/process.js';
import { startReplay, type ReplayServer } from '../../support/replay.js';

const zip = (rows: number) =>
  Buffer.from(
    dump({
      ...base,
      'bm_rates.dat': Array.from(
        { length: rows },
        (_, i) => `2;1;${[10, 20, 30][i % 3]};1;${5_000_000 + i};900000;0.1;0;0.01;1;0`,
      ).join('\n'),
    }),
  );
const zipHeaders = {
  'content-type': 'application/zip',
  etag: '"v1"',
  'last-modified': 'Sat, 21 Nov 2026 11:59:50 GMT',
};

describe('bestchange source', () => {
  let dir: string;
  let replay: ReplayServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratefile-bestchange-'));
    await cp(join(repoRoot, 'templates'), join(dir, 'templates'), { recursive: true });
    replay = await startReplay([]);
  });
  afterAll(async () => {
    await replay.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function config(extra = '') {
    await writeFile(join(dir, 'quotes.json'), '{"quotes": [{"pair": "BTC/RUB", "bid": "5000000", "ask": "5000001"}]}');
    await writeFile(
      join(dir, 'ratefile.config.yaml'),
      `sources:
  desk: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, baseUrl: "${replay.url}"${extra} }
currencies:
  BTC: { reserve: "3" }
  SBERRUB: { reserve: "5000000" }
  USDTTRC20: { reserve: "100000" }
  USDTERC20: { reserve: "100000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 1% }
`,
    );
    return loadConfig(join(dir, 'ratefile.config.yaml'));
  }

  const at = (seconds: number) => () => new Date(Date.parse('2026-11-21T12:00:00Z') + seconds * 1000);
  const deps = (cache: QuoteCache | undefined, seconds: number) => ({
    configDir: dir,
    fetch: globalThis.fetch,
    now: at(seconds),
    env: {},
    ...(cache ? { cache } : {}),
  });
  const requests = () => replay.requests.filter((request) => request.path === '/info.zip');

  it('fetches, reuses within 30 s, then asks conditionally and keeps the parsed feed on a 304', async () => {
    const { sources } = await config();
    replay.setRoutes([
      {
        path: '/info.zip',
        responses: [
          { body: zip(90), headers: zipHeaders },
          { status: 304, headers: { etag: '"v1"' } },
        ],
      },
    ]);
    const before = requests().length;
    const cache = new QuoteCache();

    const first = await fetchQuotes(sources, deps(cache, 0));
    const report = first.reports.find((r) => r.name === 'bc')!;
    expect(report).toMatchObject({ ok: true, rows: 90, quotes: 0 });
    const feed = bestChangeFeed(first.feeds.get('bc'))!;
    expect(competitors(feed, 'BTC', 'SBERRUB')[0]?.row.get).toBe('5000089');
    expect(requests()[before]?.headers['if-none-match']).toBeUndefined();

    const within = await fetchQuotes(sources, deps(cache, 29));
    expect(within.reports.find((r) => r.name === 'bc')).toMatchObject({ ok: true, rows: 90, reused: 'refresh' });
    expect(requests().length).toBe(before + 1);

    const after = await fetchQuotes(sources, deps(cache, 31));
    expect(requests().length).toBe(before + 2);
    const conditional = requests()[before + 1]!;
    expect(conditional.headers['if-none-match']).toBe('"v1"');
    expect(conditional.headers['if-modified-since']).toBe('Sat, 21 Nov 2026 11:59:50 GMT');
    const afterReport = after.reports.find((r) => r.name === 'bc')!;
    expect(afterReport).toMatchObject({ ok: true, rows: 90 });
    expect(afterReport.error).toBeUndefined();
    expect(afterReport.fetchedAt).toEqual(at(31)());
    expect(bestChangeFeed(after.feeds.get('bc'))).toBe(feed);
  });

  it('fails on a feed with fewer than half the rows of the last good one, and stands in with the last good feed', async () => {
    const { sources } = await config(', maxAge: 5m');
    replay.setRoutes([
      {
        path: '/info.zip',
        responses: [
          { body: zip(90), headers: { 'content-type': 'application/zip' } },
          { body: zip(44), headers: { 'content-type': 'application/zip' } },
          { body: zip(45) },
        ],
      },
    ]);
    const cache = new QuoteCache();
    await fetchQuotes(sources, deps(cache, 0));
    const dropped = await fetchQuotes(sources, deps(cache, 30));
    const report = dropped.reports.find((r) => r.name === 'bc')!;
    expect(report.ok).toBe(false);
    expect(report.error).toMatch(
      /^bc: GET \/info\.zip: 44 rows, fewer than half of the last good feed's 90: taken as a broken feed \(using its last good feed, fetched 2026-11-21T12:00:00Z\)$/,
    );
    expect(report).toMatchObject({ rows: 90, reused: 'fallback' });
    expect(bestChangeFeed(dropped.feeds.get('bc'))?.rows).toBe(90);
    // Half exactly is a real change of the market, not a broken feed.
    const half = await fetchQuotes(sources, deps(cache, 60));
    expect(half.reports.find((r) => r.name === 'bc')).toMatchObject({ ok: true, rows: 45 });
  });

  it('lets the last good feed stand in only while it is younger than maxAge', async () => {
    const { sources } = await config(', maxAge: 2m');
    replay.setRoutes([{ path: '/info.zip', responses: [{ body: zip(90) }, { status: 503, body: 'down' }] }]);
    const cache = new QuoteCache();
    await fetchQuotes(sources, deps(cache, 0));
    const within = await fetchQuotes(sources, { ...deps(cache, 120), sleep: async () => {} });
    expect(within.reports.find((r) => r.name === 'bc')).toMatchObject({ ok: false, reused: 'fallback', rows: 90 });
    expect(within.feeds.has('bc')).toBe(true);
    const asked = requests().length;
    const beyond = await fetchQuotes(sources, { ...deps(cache, 121), sleep: async () => {} });
    const report = beyond.reports.find((r) => r.name === 'bc')!;
    // The failure is remembered, not fetched again before the refresh has passed.
    expect(requests().length).toBe(asked);
    expect(report).toMatchObject({
      ok: false,
      error:
        'bc: GET /info.zip: HTTP 503 Service Unavailable: "down" (3 attempts); next try after 2026-11-21T12:02:30Z',
    });
    expect(report.rows).toBeUndefined();
    expect(beyond.feeds.has('bc')).toBe(false);
  });

  it('has the 1.6-million-row feed made off the thread: the event loop turns meanwhile (the cause of an ECONNRESET under load)', async () => {
    let turns = 0;
    let making = true;
    const turn = () => {
      if (!making) return;
      turns += 1;
      setImmediate(turn);
    };
    setImmediate(turn);
    const body = await bigFeedOffThread();
    making = false;
    expect(body.length).toBeGreaterThan(100_000);
    // Made on the thread, not one turn: an idle keep-alive socket's timers wait as long as the deflate.
    expect(turns).toBeGreaterThan(0);
  });

  it('refuses a 1.6-million-row feed before parsing it and takes the next normal feed: a refused feed is no yardstick', async () => {
    const { sources } = await config(', retries: 0');
    // Made off the thread: made here, it blocked the loop for seconds, past the replay server's keep-alive timeout
    // (ECONNRESET on the next request, see bigFeedOffThread).
    replay.setRoutes([{ path: '/info.zip', responses: [{ body: await bigFeedOffThread() }, { body: zip(20) }] }]);
    const cache = new QuoteCache();
    const big = await fetchQuotes(sources, deps(cache, 0));
    expect(big.reports.find((r) => r.name === 'bc')).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /^bc: GET \/info\.zip: bm_rates\.dat unpacks to 62400000 bytes, more than the \d+ allowed: refused before unpacking$/,
      ),
    });
    expect(big.feeds.has('bc')).toBe(false);
    const next = await fetchQuotes(sources, deps(cache, 30));
    expect(next.reports.find((r) => r.name === 'bc')).toMatchObject({ ok: true, rows: 20 });
    expect(bestChangeFeed(next.feeds.get('bc'))?.rows).toBe(20);
  });

  it('takes a smaller feed once the last good one is too old to stand in (maxAge): no yardstick locks feeds out', async () => {
    const { sources } = await config(', maxAge: 2m, retries: 0');
    replay.setRoutes([{ path: '/info.zip', responses: [{ body: zip(90) }, { body: zip(20) }] }]);
    const cache = new QuoteCache();
    await fetchQuotes(sources, deps(cache, 0));
    const later = await fetchQuotes(sources, deps(cache, 121));
    expect(later.reports.find((r) => r.name === 'bc')).toMatchObject({ ok: true, rows: 20 });
  });

  it('asks a failing feed again only once its refresh has passed, not every build', async () => {
    const { sources } = await config(', retries: 0');
    replay.setRoutes([{ path: '/info.zip', responses: [{ status: 503, body: 'down' }] }]);
    const before = requests().length;
    const cache = new QuoteCache();
    for (let seconds = 0; seconds < 30; seconds += 2) {
      const { reports } = await fetchQuotes(sources, deps(cache, seconds));
      const report = reports.find((r) => r.name === 'bc')!;
      expect(report.ok).toBe(false);
      expect(report.error).toBe(
        `bc: GET /info.zip: HTTP 503 Service Unavailable: "down"${seconds === 0 ? '' : '; next try after 2026-11-21T12:00:30Z'}`,
      );
    }
    expect(requests().length - before).toBe(1);
    await fetchQuotes(sources, deps(cache, 30));
    expect(requests().length - before).toBe(2);
  });

  it("with the service's cache, fetches beside the build: a feed host that never answers holds no build", async () => {
    const { sources } = await config(', maxAge: 2m');
    replay.setRoutes([{ path: '/info.zip', responses: [{ body: zip(90), delayMs: 600_000 }] }]);
    const before = requests().length;
    const cache = new QuoteCache({ background: true });
    for (const seconds of [0, 2, 4]) {
      // Resolves while the request is still unanswered: the build does not wait for it.
      const { reports, feeds } = await fetchQuotes(sources, deps(cache, seconds));
      expect(reports.find((r) => r.name === 'bc')).toMatchObject({
        ok: false,
        error: 'bc: fetching its feed since 2026-11-21T12:00:00Z, not waited for',
      });
      expect(feeds.has('bc')).toBe(false);
      expect(reports.find((r) => r.name === 'desk')?.ok).toBe(true);
    }
    expect(requests().length - before).toBe(1);
    expect(cache.fetching.has('bc')).toBe(true);
    cache.close();
    await cache.settled();
    expect(cache.entries.get('bc')?.failure).toBe('bc: GET /info.zip: aborted');
  });

  it("with the service's cache, a feed fetched in the background is used by the next build", async () => {
    const { sources } = await config(', maxAge: 2m');
    replay.setRoutes([{ path: '/info.zip', responses: [{ body: zip(90), delayMs: 50 }] }]);
    const cache = new QuoteCache({ background: true });
    const first = await fetchQuotes(sources, deps(cache, 0));
    expect(first.feeds.has('bc')).toBe(false);
    await cache.settled();
    const next = await fetchQuotes(sources, deps(cache, 2));
    expect(next.reports.find((r) => r.name === 'bc')).toMatchObject({
      ok: true,
      rows: 90,
      reused: 'refresh',
      fetchedAt: at(0)(),
    });
    expect(bestChangeFeed(next.feeds.get('bc'))?.rows).toBe(90);
  });

  it('without a cache (ratefile build), a 304 is not a feed', async () => {
    const { sources } = await config();
    replay.setRoutes([{ path: '/info.zip', responses: [{ status: 304 }] }]);
    const { reports, feeds } = await fetchQuotes(sources, deps(undefined, 0));
    expect(reports.find((r) => r.name === 'bc')).toMatchObject({
      ok: false,
      error: 'bc: GET /info.zip: HTTP 304 Not Modified: empty body',
    });
    expect(feeds.has('bc')).toBe(false);
  });

  const broken: [string, { body: string | Buffer; status?: number; headers?: Record<string, string> }, RegExp][] = [
    [
      'an HTML page',
      { body: '<!DOCTYPE html><html><title>Cloudflare</title></html>', headers: { 'content-type': 'application/zip' } },
      /^bc: GET \/info\.zip: got an HTML page instead of info\.zip \(HTTP 200, application\/zip\)$/,
    ],
    [
      'a truncated zip',
      { body: zip(30).subarray(0, 500) },
      /^bc: GET \/info\.zip: not a readable zip \(.*; truncated\?\)$/,
    ],
    [
      'a zip without bm_exch.dat',
      { body: Buffer.from(dump({ ...base, 'bm_exch.dat': undefined })) },
      /^bc: GET \/info\.zip: bm_exch\.dat is missing from the zip$/,
    ],
    [
      'a malformed row',
      { body: Buffer.from(dump({ ...base, 'bm_rates.dat': '2;1;10;1;5;6;0;0;1;2;0\n2;1;10;1;5,5;6;0;0;1;2;0' })) },
      /^bc: GET \/info\.zip: bm_rates\.dat line 2: get "5,5" is not a decimal$/,
    ],
  ];
  for (const [name, response, message] of broken) {
    it(`fails on ${name}`, async () => {
      const { sources } = await config(', retries: 0');
      replay.setRoutes([{ path: '/info.zip', responses: [response] }]);
      const { reports, feeds } = await fetchQuotes(sources, deps(undefined, 0));
      const report = reports.find((r) => r.name === 'bc')!;
      expect(report.ok).toBe(false);
      expect(report.error).toMatch(message);
      expect(feeds.has('bc')).toBe(false);
      // The other source is unaffected.
      expect(reports.find((r) => r.name === 'desk')?.ok).toBe(true);
    });
  }

  it('refuses a refresh below 30 s and checks the cities override', async () => {
    await expect(config(', refresh: 10s')).rejects.toMatchObject({
      code: 'E_CONFIG',
      details: [
        expect.stringMatching(
          /^sources\.bc\.refresh: expected at least "30s" \(BestChange asks for one fetch per 30 s at most\), got "10s"/,
        ),
      ],
    });
    await expect(config(', cities: { "Нижний Тагил": ntag }')).rejects.toMatchObject({
      details: [
        expect.stringMatching(
          /^sources\.bc\.cities\["Нижний Тагил"\]: expected a city code in capitals like "MSK", got "ntag"/,
        ),
      ],
    });
    const { sources } = await config(', refresh: 1m, cities: { "3": NTAG, Владивосток: VLAD }');
    expect(sources.find((s) => s.name === 'bc')?.options).toMatchObject({
      refresh: 60_000,
      cities: { '3': 'NTAG', Владивосток: 'VLAD' },
    });
  });
});
