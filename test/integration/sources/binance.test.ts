import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { runSource, sourceError, testSource } from './contract.js';

const path = '/api/v3/ticker/bookTicker';
const pairs = ['BTC/USDT', 'ETH/USDT', 'ETH/BTC', 'LTC/USDT', 'TRX/USDT'];

testSource({
  type: 'binance',
  options: { pairs },
  path,
  normal: { fixture: 'binance/bookTicker.json' },
  expected: [
    { pair: 'BTC/USDT', bid: '97012.30000000', ask: '97012.31000000' },
    { pair: 'ETH/USDT', bid: '3120.45000000', ask: '3120.46000000' },
    { pair: 'ETH/BTC', bid: '0.03217000', ask: '0.03218000' },
    { pair: 'LTC/USDT', bid: '88.41000000', ask: '88.42000000' },
    { pair: 'TRX/USDT', bid: '0.27310000', ask: '0.27320000' },
  ],
  missing: { options: { pairs: [...pairs, 'XRP/USDT'] }, pair: 'XRP/USDT' },
  zero: {
    body: fixtureWith('binance/bookTicker.json', '"bidPrice":"97012.30000000"', '"bidPrice":"0.00000000"'),
    pair: 'BTC/USDT',
  },
  envelope: {
    response: { status: 451, fixture: 'binance/error-restricted.json' },
    says: /HTTP 451.*restricted location.*\(code 0\)/,
  },
  rateLimited: { fixture: 'binance/error-too-many-requests.json' },
});

describe('binance: its own traps', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  it('asks for exactly the configured symbols, as a JSON list without spaces', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'binance/bookTicker.json' }] }]);
    await runSource('binance', { pairs: ['BTC/USDT', 'ETH/BTC'] }, replay.url);
    expect(replay.requests.at(-1)?.query.get('symbols')).toBe('["BTCUSDT","ETHBTC"]');
  });

  it('takes its own symbol names from a mapping', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'binance/bookTicker.json' }] }]);
    const result = await runSource('binance', { pairs: { 'XBT/USDT': 'BTCUSDT' } }, replay.url);
    expect(result.quotes).toEqual([expect.objectContaining({ pair: 'XBT/USDT', bid: '97012.30000000' })]);
  });

  it('after "Invalid symbol" (-1121, which fails the whole request) asks for every ticker and names only the unknown one', async () => {
    replay.setRoutes([
      {
        path,
        query: { symbols: '["BTCUSDT","USDTRUB"]' },
        responses: [{ status: 400, fixture: 'binance/error-invalid-symbol.json' }],
      },
      { path, query: { symbols: null }, responses: [{ fixture: 'binance/bookTicker-all.json' }] },
    ]);
    const result = await runSource('binance', { pairs: ['BTC/USDT', 'USDT/RUB'] }, replay.url);
    expect(result.quotes).toEqual([
      expect.objectContaining({ pair: 'BTC/USDT', bid: '97012.30000000', ask: '97012.31000000' }),
    ]);
    expect(result.problems).toEqual([`USDT/RUB (USDTRUB) in GET ${path}: not in the response`]);
  });

  it('drops a halted symbol that answers with zero prices', async () => {
    replay.setRoutes([
      { path, query: { symbols: null }, responses: [{ fixture: 'binance/bookTicker-all.json' }] },
      { path, responses: [{ status: 400, fixture: 'binance/error-invalid-symbol.json' }] },
    ]);
    const result = await runSource('binance', { pairs: ['XMR/USDT', 'SOL/USDT'] }, replay.url);
    expect(result.quotes.map((quote) => quote.pair)).toEqual(['SOL/USDT']);
    expect(result.problems).toEqual([`XMR/USDT (XMRUSDT) in GET ${path}: bidPrice is zero: "0.00000000"`]);
  });

  it('does not retry a bad request (400)', async () => {
    replay.setRoutes([{ path, responses: [{ status: 400, fixture: 'binance/error-illegal-characters.json' }] }]);
    const before = replay.requests.length;
    const waits: number[] = [];
    const error = await sourceError(
      runSource('binance', { pairs: { 'BTC/USDT': 'btc-usdt' }, retries: 3 }, replay.url, waits),
      'binance',
      path,
    );
    expect(error.message).toMatch(
      /HTTP 400 Bad Request: Illegal characters found in parameter 'symbols'.*\(code -1100\)/,
    );
    expect(replay.requests.length - before).toBe(1);
    expect(waits).toEqual([]);
  });

  it('retries "Too many requests" (-1003) sent with HTTP 429 and no Retry-After', async () => {
    replay.setRoutes([
      {
        path,
        responses: [
          { status: 429, fixture: 'binance/error-too-many-requests.json' },
          { fixture: 'binance/bookTicker.json' },
        ],
      },
    ]);
    const waits: number[] = [];
    const result = await runSource('binance', { pairs: ['BTC/USDT'], retries: 1 }, replay.url, waits);
    expect(result.quotes).toHaveLength(1);
    expect(waits).toEqual([250]);
  });

  it.each([
    ['an empty string', '""', 'bidPrice is an empty string'],
    ['a negative price', '"-97012.30000000"', 'bidPrice is negative: "-97012.30000000"'],
    ['a non-numeric price', '"97,012.30"', 'bidPrice is not a decimal: "97,012.30"'],
    ['a number where a string belongs, kept as sent', '97012.3', null],
  ])('reads %s in bidPrice', async (_name, value, problem) => {
    replay.setRoutes([
      {
        path,
        responses: [
          { body: fixtureWith('binance/bookTicker.json', '"bidPrice":"97012.30000000"', `"bidPrice":${value}`) },
        ],
      },
    ]);
    const result = await runSource('binance', { pairs: ['BTC/USDT'] }, replay.url);
    if (problem === null) expect(result.quotes).toEqual([expect.objectContaining({ bid: '97012.3' })]);
    else expect(result.problems).toEqual([`BTC/USDT (BTCUSDT) in GET ${path}: ${problem}`]);
  });

  it('drops a bid above the ask', async () => {
    replay.setRoutes([
      {
        path,
        responses: [
          { body: fixtureWith('binance/bookTicker.json', '"bidPrice":"3120.45000000"', '"bidPrice":"3121.00000000"') },
        ],
      },
    ]);
    const result = await runSource('binance', { pairs: ['ETH/USDT'] }, replay.url);
    expect(result.problems).toEqual([
      `ETH/USDT (ETHUSDT) in GET ${path}: bid 3121.00000000 is above ask 3120.46000000`,
    ]);
  });

  it('refuses an object where the list of tickers belongs', async () => {
    replay.setRoutes([{ path, responses: [{ body: '{"symbol":"BTCUSDT","bidPrice":"1","askPrice":"2"}' }] }]);
    const error = await sourceError(runSource('binance', { pairs: ['BTC/USDT'] }, replay.url), 'binance', path);
    expect(error.message).toContain('expected a list of tickers, got an object');
  });
});
