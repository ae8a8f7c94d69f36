import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { runSource, sourceError, testNow, testSource } from './contract.js';

const path = '/api/v1/market/allTickers';
const pairs = ['BTC/USDT', 'ETH/USDT', 'KCS/USDT', 'TON/USDT', 'ETH/BTC'];

testSource({
  type: 'kucoin',
  options: { pairs },
  path,
  normal: { fixture: 'kucoin/allTickers.json' },
  expected: [
    { pair: 'BTC/USDT', bid: '97012.2', ask: '97012.3' },
    { pair: 'ETH/USDT', bid: '3120.44', ask: '3120.45' },
    { pair: 'KCS/USDT', bid: '11.2031', ask: '11.2046' },
    { pair: 'TON/USDT', bid: '5.4117', ask: '5.4122' },
    { pair: 'ETH/BTC', bid: '0.032164', ask: '0.032171' },
  ],
  missing: { options: { pairs: [...pairs, 'XRP/USDT'] }, pair: 'XRP/USDT' },
  zero: { body: fixtureWith('kucoin/allTickers.json', '"buy":"97012.2"', '"buy":"0"'), pair: 'BTC/USDT' },
  envelope: {
    response: { status: 400, fixture: 'kucoin/error-parameter.json' },
    says: /HTTP 400.*Parameter Error \(code 400100\)/,
  },
  rateLimited: { fixture: 'kucoin/error-too-many-requests.json' },
});

describe('kucoin: its own traps', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  it('names pairs BASE-QUOTE and reads buy as the bid, sell as the ask', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'kucoin/allTickers.json' }] }]);
    const result = await runSource('kucoin', { pairs: ['ETH/BTC'] }, replay.url);
    expect(result.quotes).toEqual([expect.objectContaining({ pair: 'ETH/BTC', bid: '0.032164', ask: '0.032171' })]);
    expect(replay.requests.at(-1)?.query.toString()).toBe('');
  });

  it('dates every quote by the snapshot time data.time, never after the fetch', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'kucoin/allTickers.json' }] }]);
    const result = await runSource('kucoin', { pairs: ['BTC/USDT'] }, replay.url);
    expect(result.quotes[0]?.time.toISOString()).toBe('2026-11-21T11:59:58.123Z');
    replay.setRoutes([
      { path, responses: [{ body: fixtureWith('kucoin/allTickers.json', '1795262398123', '1895262398123') }] },
    ]);
    const future = await runSource('kucoin', { pairs: ['BTC/USDT'] }, replay.url);
    expect(future.quotes[0]?.time).toEqual(testNow);
  });

  it('drops a symbol with an empty book (buy and sell null), naming the field', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'kucoin/allTickers.json' }] }]);
    const result = await runSource('kucoin', { pairs: ['BTC/USDT', 'NEWT/USDT'] }, replay.url);
    expect(result.quotes.map((quote) => quote.pair)).toEqual(['BTC/USDT']);
    expect(result.problems).toEqual([`NEWT/USDT (NEWT-USDT) in GET ${path}: buy is missing`]);
  });

  it('reports an error sent with HTTP 200 and code ≠ 200000, without retrying it', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'kucoin/error-parameter.json' }] }]);
    const before = replay.requests.length;
    const error = await sourceError(runSource('kucoin', { pairs, retries: 2 }, replay.url), 'kucoin', path);
    expect(error.message).toBe(`kucoin: GET ${path}: Parameter Error (code 400100)`);
    expect(replay.requests.length - before).toBe(1);
  });

  it('retries "Too Many Requests" (429000) sent with HTTP 200', async () => {
    replay.setRoutes([
      {
        path,
        responses: [{ fixture: 'kucoin/error-too-many-requests.json' }, { fixture: 'kucoin/allTickers.json' }],
      },
    ]);
    const waits: number[] = [];
    const result = await runSource('kucoin', { pairs, retries: 1 }, replay.url, waits);
    expect(result.quotes).toHaveLength(5);
    expect(waits).toEqual([250]);
  });

  it('refuses an answer without data.ticker', async () => {
    replay.setRoutes([{ path, responses: [{ body: '{"code":"200000","data":{"time":1795262398123}}' }] }]);
    const error = await sourceError(runSource('kucoin', { pairs }, replay.url), 'kucoin', path);
    expect(error.message).toContain('expected data.ticker, a list of tickers, got nothing');
  });
});
