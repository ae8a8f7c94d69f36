import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchQuotes } from '../../../src/io/quotes/quotes.js';
import { sourceDefinition } from '../../../src/io/sources/index.js';
import { fixture, fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { contextFor, runSource, sourceError, testNow, testSource, type Options } from './contract.js';

// Real exchangers' files (test/fixtures/exports/real/, see its README) and ratefile's own renders
// (test/fixtures/formats/), served as an upstream would serve them.
const coinDrop = '../exports/real/CoinDrop.xml';
const path = '/export/rates.xml';
const url = `https://upstream.example${path}`;
const pairs = {
  'USDT/SBERRUB': { bid: 'USDTTRC20>SBERRUB', ask: 'SBERRUB>USDTTRC20' },
  'USDT/TCSBRUB': { bid: 'USDTTRC20>TCSBRUB', ask: 'TCSBRUB>USDTTRC20' },
};

testSource({
  type: 'exportfile',
  options: { url, pairs },
  path,
  normal: { fixture: coinDrop },
  expected: [
    // bid: out ÷ in of the direction selling USDT; ask: in ÷ out of the one buying it.
    { pair: 'USDT/SBERRUB', bid: '98.9386', ask: '100.0202' },
    { pair: 'USDT/TCSBRUB', bid: '99.1113', ask: '100.0145' },
  ],
  missing: {
    options: { url, pairs: { ...pairs, 'BTC/SBERRUB': { bid: 'BTC>SBERRUB', ask: 'SBERRUB>BTC' } } },
    pair: 'BTC/SBERRUB',
  },
  zero: { body: fixtureWith(coinDrop, '<out>98.9386</out>', '<out>0</out>'), pair: 'USDT/SBERRUB' },
  // An export file has no error envelope: an upstream that lost its file answers 404.
  envelope: { response: { status: 404, body: 'File not found.' }, says: /HTTP 404 Not Found: "File not found\."/ },
  withBase: (options: Options, base: string) => ({ ...options, url: `${base}${path}` }),
});

describe('exportfile: its own traps', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  const serve = (name: string, headers: Record<string, string> = {}) =>
    replay.setRoutes([{ path, responses: [{ fixture: name, headers }] }]);
  const run = (options: Options) => runSource('exportfile', { url, ...options }, replay.url);

  it('reads a jsons.info JSON export (X: X from = 1 to; -X: 1 from = X to) and an EREF 1.1 file alike', async () => {
    const sber = { 'USDT/SBERRUB': { bid: 'USDTTRC20>SBERRUB', ask: 'SBERRUB>USDTTRC20' } };
    for (const name of ['../formats/rates.json', '../formats/rates-1.1.xml']) {
      serve(name);
      const result = await run({ pairs: sber });
      expect(result.problems, name).toEqual([]);
      expect(result.quotes, name).toEqual([
        expect.objectContaining({ pair: 'USDT/SBERRUB', bid: '90.71', ask: '93.76' }),
      ]);
    }
  });

  it('asks for a city when a cash direction is in several, and reads the one named', async () => {
    serve('../exports/real/7Money.xml');
    const cash = (city: string) => ({ 'BTC/CASHUSD': { bid: `BTC>CASHUSD${city}`, ask: `BTC>CASHUSD${city}` } });
    const several = await run({ pairs: cash('') });
    expect(several.quotes).toEqual([]);
    expect(several.problems[0]).toMatch(
      /BTC>CASHUSD is in \d+ items \(cities WARS, SFA, VARN, KISH, STAM\): name one as BTC>CASHUSD@CITY$/,
    );
    // One direction for both sides: bid out ÷ in = 27197.3305, ask in ÷ out = 1 ÷ 27197.3305 — below the bid, so the
    // pair is dropped: a direction and its reverse are what a pair needs.
    const one = await run({ pairs: cash('@WARS') });
    expect(one.problems).toEqual([expect.stringMatching(/bid 27197\.3305 is above ask 0\.0000367683/)]);
  });

  it('divides exactly when the division ends, else to 12 significant digits', async () => {
    replay.setRoutes([
      {
        path,
        responses: [{ body: fixtureWith(coinDrop, '<in>100.0202</in><out>1</out>', '<in>300.0606</in><out>3</out>') }],
      },
    ]);
    const even = await run({ pairs: { 'USDT/SBERRUB': pairs['USDT/SBERRUB'] } });
    expect(even.quotes).toEqual([expect.objectContaining({ ask: '100.0202' })]);
    replay.setRoutes([
      {
        path,
        responses: [{ body: fixtureWith(coinDrop, '<in>100.0202</in><out>1</out>', '<in>100.0202</in><out>3</out>') }],
      },
    ]);
    // 100.0202 ÷ 3 = 33.34006666…; the bid (98.9386) is then above it and the pair dropped, naming both.
    const odd = await run({ pairs: { 'USDT/SBERRUB': pairs['USDT/SBERRUB'] } });
    expect(odd.problems).toEqual([expect.stringContaining('bid 98.9386 is above ask 33.3400666667')]);
  });

  it("never reads an item the check refuses, naming the check's finding; the file's other items still count", async () => {
    serve('../exports/broken.xml');
    const broken = await run({ pairs: { 'BTC/SBERRUB': { bid: 'BTC>SBERRUB', ask: 'SBERRUB>BTC' } } });
    expect(broken.problems).toEqual([
      expect.stringMatching(/^BTC\/SBERRUB .*: BTC>SBERRUB \(item 1\): out is not a decimal: "8942034,1428"$/),
    ]);
    // A rate that reads well in an item the check refuses (its reserve has a decimal comma) is not used either.
    replay.setRoutes([
      { path, responses: [{ body: fixtureWith(coinDrop, '<amount>0</amount>', '<amount>1,5</amount>') }] },
    ]);
    const refused = await run({ pairs });
    expect(refused.quotes.map((quote) => quote.pair)).toEqual(['USDT/TCSBRUB']);
    expect(refused.problems).toEqual([
      expect.stringMatching(/^USDT\/SBERRUB .*: USDTTRC20>SBERRUB \(item 3\): refused by the check: .*decimal comma/),
    ]);
  });

  it('refuses a file that fails the check as a whole, and an HTML page served as text/html', async () => {
    replay.setRoutes([{ path, responses: [{ body: '<?xml version="1.0"?><rate><item/></rate>' }] }]);
    const error = await sourceError(run({ pairs }), 'exportfile', path);
    expect(error.message).toMatch(/the file fails the check: .*<rates>/);
    serve('html/cloudflare.html');
    const page = await sourceError(run({ pairs }), 'exportfile', path);
    expect(page.message).toContain('got an HTML page ("Just a moment...") instead of an export file');
  });

  it('reads an export served as text/html (some engines do)', async () => {
    replay.setRoutes([{ path, responses: [{ body: fixture(coinDrop), headers: { 'content-type': 'text/html' } }] }]);
    const result = await run({ pairs });
    expect(result.quotes).toHaveLength(2);
  });

  it('dates the quotes by Last-Modified, so a file no longer updated goes stale by maxAge', async () => {
    const lastModified = 'Sat, 21 Nov 2026 11:00:00 GMT';
    serve(coinDrop, { 'last-modified': lastModified });
    const result = await run({ pairs });
    expect(result.quotes.map((quote) => quote.time.toISOString())).toEqual([
      '2026-11-21T11:00:00.000Z',
      '2026-11-21T11:00:00.000Z',
    ]);
    const definition = sourceDefinition('exportfile')!;
    const options = definition.options.parse({ type: 'exportfile', url, pairs, maxAge: '10m' });
    const { book, reports } = await fetchQuotes([{ name: 'upstream', type: 'exportfile', options }], {
      configDir: '/nonexistent',
      fetch: globalThis.fetch,
      now: () => testNow,
      env: { RATEFILE_EXPORTFILE_URL: replay.url },
      dropStale: true,
    });
    expect(book.size).toBe(0);
    expect(reports[0]?.rejected).toEqual(
      expect.arrayContaining([expect.stringContaining('USDT/SBERRUB: 3600 s old, past its maxAge of 600 s: not used')]),
    );
    expect(definition.defaultRefreshMs).toBe(60_000);
  });

  it('reads a local file instead, dated by its modification time, and wants exactly one of url and path', async () => {
    const local = fileURLToPath(new URL('../../fixtures/exports/real/CoinDrop.xml', import.meta.url));
    const definition = sourceDefinition('exportfile')!;
    const options = definition.options.parse({ type: 'exportfile', path: local, pairs });
    const result = await definition.fetchQuotes(options, contextFor('exportfile', {}));
    const { quotes, problems } = Array.isArray(result) ? { quotes: result, problems: [] } : result;
    expect(problems).toEqual([]);
    expect(quotes).toEqual(expect.arrayContaining([expect.objectContaining({ pair: 'USDT/SBERRUB', bid: '98.9386' })]));
    expect(quotes[0]!.time.getTime()).toBe(Math.min((await stat(local)).mtime.getTime(), testNow.getTime()));
    const missing = await definition
      .fetchQuotes(
        definition.options.parse({ type: 'exportfile', path: '/nonexistent/rates.xml', pairs }),
        contextFor('exportfile', {}),
      )
      .then(
        () => '',
        (error: Error) => error.message,
      );
    expect(missing).toMatch(/^exportfile: cannot read export file \/nonexistent\/rates\.xml: ENOENT/);
    for (const both of [{}, { url, path: local }])
      expect(definition.options.safeParse({ type: 'exportfile', pairs, ...both }).error?.issues[0]?.message).toBe(
        'expected either url or path, the one export file to read',
      );
  });

  it('refuses a direction that is not one', () => {
    const parsed = sourceDefinition('exportfile')!.options.safeParse({
      type: 'exportfile',
      url,
      pairs: { 'USDT/RUB': { bid: 'USDT->RUB', ask: 'RUB>USDT' } },
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(
      'expected a direction of the file like "USDTTRC20>SBERRUB" (or "CASHUSD>BTC@MSK"), got "USDT->RUB"',
    );
  });
});
