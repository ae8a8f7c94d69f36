import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/base/decimal.js';
import type { SourceConfig } from '../../../src/model/config.js';
import { findChain } from '../../../src/pure/pricing/chains.js';
import { fetchQuotes, QuoteCache } from '../../../src/io/quotes/quotes.js';
import type { FetchDeps } from '../../../src/io/quotes/source-ask.js';
import { sourceMaxAgeMs } from '../../../src/io/quotes/source-options.js';
import { sourceDefinition } from '../../../src/io/sources/index.js';
import type { Quote, QuoteBook } from '../../../src/model/source.js';
import { startReplay, type ReplayServer } from '../../support/replay.js';

const venue = (bid: string, ask = bid) => JSON.stringify({ ticker: { bid, ask } });

/** A `json` source on the replay server at `/<name>`, quoting `pair` from `{ticker: {bid, ask}}`. */
function jsonSource(
  name: string,
  replay: ReplayServer,
  pair: string,
  extra: Record<string, unknown> = {},
): SourceConfig {
  const options = {
    type: 'json',
    url: `${replay.url}/${name}`,
    pairs: { [pair]: { bid: 'ticker.bid', ask: 'ticker.ask' } },
    retries: 0,
    ...extra,
  };
  // As the config loader hands them over: checked and converted (durations in ms).
  return { name, type: 'json', options: sourceDefinition('json')!.options.parse(options) };
}

function deps(at: string, cache?: QuoteCache): FetchDeps {
  return {
    configDir: '/nonexistent',
    fetch: globalThis.fetch,
    now: () => new Date(at),
    env: {},
    ...(cache ? { cache } : {}),
  };
}

describe('fetchQuotes: refresh intervals, last good quotes, priorities', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());
  const asked = (name: string) => replay.requests.filter((request) => request.path === `/${name}`).length;

  it('reuses quotes within the refresh interval and asks again once it has passed', async () => {
    replay.setRoutes([{ path: '/daily', responses: [{ body: venue('81.50') }, { body: venue('81.70') }] }]);
    const source = jsonSource('daily', replay, 'USD/RUB', { refresh: '1h' });
    const cache = new QuoteCache();
    const first = await fetchQuotes([source], deps('2026-11-21T12:00:00Z', cache));
    expect(first.reports[0]).toMatchObject({ ok: true, quotes: 1, fetchedAt: new Date('2026-11-21T12:00:00Z') });
    const second = await fetchQuotes([source], deps('2026-11-21T12:59:00Z', cache));
    expect(second.reports[0]).toMatchObject({
      ok: true,
      reused: 'refresh',
      fetchedAt: new Date('2026-11-21T12:00:00Z'),
    });
    expect(second.book.get('USD/RUB')?.bid.toFixed()).toBe('81.5');
    expect(asked('daily')).toBe(1);
    const third = await fetchQuotes([source], deps('2026-11-21T13:00:00Z', cache));
    expect(third.book.get('USD/RUB')?.bid.toFixed()).toBe('81.7');
    expect(asked('daily')).toBe(2);
  });

  it('asks every time without a cache (a one-shot build), and again when the source config changed', async () => {
    replay.setRoutes([{ path: '/oneshot', responses: [{ body: venue('1.5') }] }]);
    const source = jsonSource('oneshot', replay, 'USD/RUB', { refresh: '1h' });
    await fetchQuotes([source], deps('2026-11-21T12:00:00Z'));
    await fetchQuotes([source], deps('2026-11-21T12:00:01Z'));
    expect(asked('oneshot')).toBe(2);
    const cache = new QuoteCache();
    await fetchQuotes([source], deps('2026-11-21T12:00:00Z', cache));
    await fetchQuotes(
      [{ ...source, options: { ...source.options, timeout: 5_000 } }],
      deps('2026-11-21T12:00:01Z', cache),
    );
    expect(asked('oneshot')).toBe(4);
  });

  it('stands in the last good quotes for a failed refetch while they are younger than maxAge', async () => {
    replay.setRoutes([
      { path: '/flaky', responses: [{ body: venue('92.10', '92.35') }, { status: 503, body: 'down' }] },
    ]);
    const source = jsonSource('flaky', replay, 'USDT/RUB', { maxAge: '90s' });
    const cache = new QuoteCache();
    await fetchQuotes([source], deps('2026-11-21T12:00:00Z', cache));
    const failed = await fetchQuotes([source], deps('2026-11-21T12:00:30Z', cache));
    expect(failed.reports[0]).toMatchObject({ ok: false, reused: 'fallback', quotes: 1 });
    expect(failed.reports[0]?.error).toMatch(
      /^flaky: GET \/flaky: HTTP 503 Service Unavailable: "down" \(using its last good quotes, fetched 2026-11-21T12:00:00Z\)$/,
    );
    expect(failed.book.get('USDT/RUB')?.time).toEqual(new Date('2026-11-21T12:00:00Z'));
    const stale = await fetchQuotes([source], deps('2026-11-21T12:01:31Z', cache));
    expect(stale.reports[0]).toMatchObject({ ok: false, quotes: 0 });
    expect(stale.book.size).toBe(0);
  });

  it('maxAge "off": a half-written file keeps the last good quotes standing in, however old, the failure reported', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-book-'));
    try {
      const quotes = [
        { pair: 'BTC/USDT', bid: '1', ask: '2', time: '2026-11-21T12:00:00Z' },
        { pair: 'USDT/RUB', bid: '92.10', ask: '92.35', time: '2026-11-21T12:00:00Z' },
      ];
      await writeFile(join(dir, 'quotes.json'), JSON.stringify({ quotes }));
      const source: SourceConfig = {
        name: 'backoffice',
        type: 'file',
        options: { type: 'file', path: 'quotes.json', maxAge: Number.POSITIVE_INFINITY },
      };
      const cache = new QuoteCache();
      const at = (time: string) => ({ ...deps(time, cache), configDir: dir, dropStale: true });
      expect((await fetchQuotes([source], at('2026-11-21T12:00:00Z'))).book.size).toBe(2);
      // A back office writing the file in place, caught half-way (or `cp` over it).
      await writeFile(join(dir, 'quotes.json'), '{"quotes": [');
      // A week later still: "off" is no age limit, for the stand-in too.
      for (const time of ['2026-11-21T12:00:30Z', '2026-11-28T12:00:00Z']) {
        const broken = await fetchQuotes([source], at(time));
        expect(broken.reports[0]).toMatchObject({ ok: false, reused: 'fallback', quotes: 2 });
        expect(broken.reports[0]?.error).toMatch(
          /^backoffice: .*quotes\.json: not valid JSON: .* \(using its last good quotes, fetched 2026-11-21T12:00:00Z\)$/,
        );
        expect([...broken.book.keys()].sort()).toEqual(['BTC/USDT', 'USDT/RUB']);
      }
      // The next good read replaces them.
      await writeFile(join(dir, 'quotes.json'), JSON.stringify({ quotes: quotes.slice(1) }));
      const fixed = await fetchQuotes([source], at('2026-11-28T12:00:01Z'));
      expect(fixed.reports[0]).toMatchObject({ ok: true, quotes: 1 });
      expect([...fixed.book.keys()]).toEqual(['USDT/RUB']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails a source none of whose quotes can be used', async () => {
    replay.setRoutes([{ path: '/zero', responses: [{ body: venue('0') }] }]);
    const { reports } = await fetchQuotes([jsonSource('zero', replay, 'USDT/RUB')], deps('2026-11-21T12:00:00Z'));
    expect(reports[0]).toMatchObject({ ok: false, error: 'zero: none of its quotes is usable (1 dropped)' });
    expect(reports[0]?.rejected).toEqual(['USDT/RUB (ticker.bid, ticker.ask) in GET /zero: ticker.bid is zero: "0"']);
  });

  it('asks all sources at once', async () => {
    replay.setRoutes([
      { path: '/slow1', responses: [{ body: venue('1'), delayMs: 300 }] },
      { path: '/slow2', responses: [{ body: venue('2'), delayMs: 300 }] },
    ]);
    const started = performance.now();
    const { book } = await fetchQuotes(
      [jsonSource('slow1', replay, 'A1/USD'), jsonSource('slow2', replay, 'A2/USD')],
      deps('2026-11-21T12:00:00Z'),
    );
    expect(book.size).toBe(2);
    expect(performance.now() - started).toBeLessThan(550);
  });

  it.each([
    // [priorities of the first and second source, which one's quote the book keeps]
    [[0, 0], 'first'],
    [[0, 5], 'second'],
    [[5, 0], 'first'],
    [[-1, 0], 'second'],
  ])('one quote per market: priorities %j keep the %s source', async ([a, b], winner) => {
    replay.setRoutes([
      { path: '/first', responses: [{ body: venue('92.10', '92.20') }] },
      { path: '/second', responses: [{ body: venue('0.0108', '0.0109') }] },
    ]);
    // The same market quoted both ways round: USDT/RUB and RUB/USDT.
    const { book } = await fetchQuotes(
      [
        jsonSource('first', replay, 'USDT/RUB', { priority: a }),
        jsonSource('second', replay, 'RUB/USDT', { priority: b }),
      ],
      deps('2026-11-21T12:00:00Z'),
    );
    expect(book.size).toBe(1);
    expect([...book.values()][0]?.source).toBe(winner);
  });
});

describe('findChain: source priority breaks ties between equally short chains', () => {
  const time = new Date('2026-11-21T12:00:00Z');
  const book = (...entries: [pair: string, priority: number][]): QuoteBook =>
    new Map(
      entries.map(([pair, priority]) => {
        const [base = '', quote = ''] = pair.split('/');
        const entry: Quote = {
          pair,
          base,
          quote,
          bid: new Decimal(1),
          ask: new Decimal(1),
          time,
          source: `s${priority}`,
          priority,
        };
        return [pair, entry];
      }),
    );

  it.each([
    [
      'alphabetical when priorities are equal',
      book(['BTC/USDC', 0], ['USDC/RUB', 0], ['BTC/USDT', 0], ['USDT/RUB', 0]),
      ['BTC/USDC', 'USDC/RUB'],
    ],
    [
      'the higher priority over the alphabet',
      book(['BTC/USDC', 0], ['USDC/RUB', 0], ['BTC/USDT', 5], ['USDT/RUB', 5]),
      ['BTC/USDT', 'USDT/RUB'],
    ],
    [
      'the better weakest link over a higher total',
      book(['BTC/USDC', 10], ['USDC/RUB', 0], ['BTC/USDT', 3], ['USDT/RUB', 3]),
      ['BTC/USDT', 'USDT/RUB'],
    ],
    [
      'the higher total when weakest links tie',
      book(['BTC/USDC', 1], ['USDC/RUB', 1], ['BTC/USDT', 1], ['USDT/RUB', 9]),
      ['BTC/USDT', 'USDT/RUB'],
    ],
    [
      'never a longer chain for a higher priority',
      book(['BTC/RUB', -5], ['BTC/USDT', 9], ['USDT/RUB', 9]),
      ['BTC/RUB'],
    ],
    [
      'through an inverted pair',
      book(['RUB/USDT', 2], ['BTC/USDT', 0], ['BTC/USDC', 0], ['USDC/RUB', 0]),
      ['BTC/USDT', 'RUB/USDT'],
    ],
  ])('%s', (_name, quotes, chain) => {
    expect(findChain(quotes, 'BTC', 'RUB')).toEqual(chain);
  });

  it('compares every shortest chain, not only the first one found', () => {
    // Three steps: the only high-priority route shares no pair with the alphabetically first one.
    const quotes = book(['A/B', 0], ['B/C', 0], ['C/Z', 0], ['A/X', 4], ['X/Y', 4], ['Y/Z', 4]);
    expect(findChain(quotes, 'A', 'Z')).toEqual(['A/X', 'X/Y', 'Y/Z']);
  });
});

describe('sourceMaxAgeMs: how old a quote may be', () => {
  const source = (type: string, extra: Record<string, unknown> = {}): SourceConfig => ({
    name: type,
    type,
    options: { type, ...extra },
  });
  it.each([
    ['binance, every build on a 30 s schedule', source('binance'), 30_000, 60_000],
    ['binance on a 5 min schedule', source('binance'), 300_000, 600_000],
    ['cbr, refreshed hourly', source('cbr'), 30_000, 7_200_000],
    ['coingecko, refreshed every minute', source('coingecko'), 30_000, 120_000],
    ['json with refresh 5m', source('json', { refresh: 300_000 }), 30_000, 600_000],
    ['an explicit maxAge', source('ecb', { maxAge: 86_400_000 }), 30_000, 86_400_000],
    ['file, read every build', source('file'), 30_000, 60_000],
    ['maxAge off: no limit', source('file', { maxAge: Number.POSITIVE_INFINITY }), 30_000, undefined],
  ])('%s', (_name, config, period, expected) => {
    expect(sourceMaxAgeMs(config, period)).toBe(expected);
  });
});
