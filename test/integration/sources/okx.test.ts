import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { runSource, sourceError, testNow, testSource } from './contract.js';

const path = '/api/v5/market/tickers';
const pairs = ['BTC/USDT', 'ETH/USDT', 'TON/USDT', 'USDC/USDT', 'ETH/BTC'];

testSource({
  type: 'okx',
  options: { pairs },
  path,
  normal: { fixture: 'okx/tickers-spot.json' },
  expected: [
    { pair: 'BTC/USDT', bid: '97012.3', ask: '97012.4' },
    { pair: 'ETH/USDT', bid: '3120.46', ask: '3120.47' },
    { pair: 'TON/USDT', bid: '5.412', ask: '5.414' },
    { pair: 'USDC/USDT', bid: '0.9999', ask: '1' },
    { pair: 'ETH/BTC', bid: '0.03217', ask: '0.03218' },
  ],
  missing: { options: { pairs: [...pairs, 'XRP/USDT'] }, pair: 'XRP/USDT' },
  zero: { body: fixtureWith('okx/tickers-spot.json', '"bidPx":"97012.3"', '"bidPx":"0"'), pair: 'BTC/USDT' },
  envelope: { response: { fixture: 'okx/error-instrument.json' }, says: /Instrument ID does not exist \(code 51001\)/ },
  rateLimited: { fixture: 'okx/error-too-many-requests.json' },
});

describe('okx: its own traps', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  it('names instruments BASE-QUOTE and asks for every spot ticker', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'okx/tickers-spot.json' }] }]);
    const result = await runSource('okx', { pairs: ['BTC/USDT'] }, replay.url);
    expect(replay.requests.at(-1)?.query.get('instType')).toBe('SPOT');
    expect(result.quotes).toEqual([expect.objectContaining({ pair: 'BTC/USDT' })]);
  });

  it("dates each quote by its ticker's ts, never later than the fetch", async () => {
    replay.setRoutes([
      {
        path,
        responses: [{ body: fixtureWith('okx/tickers-spot.json', '"ts":"1795262399861"', '"ts":"1895262399861"') }],
      },
    ]);
    const result = await runSource('okx', { pairs: ['BTC/USDT', 'ETH/USDT'] }, replay.url);
    expect(result.quotes.map((quote) => quote.time.toISOString())).toEqual([
      '2026-11-21T11:59:59.850Z',
      testNow.toISOString(),
    ]);
  });

  it('reports the 429 envelope (code "50011") and retries it', async () => {
    replay.setRoutes([{ path, responses: [{ status: 429, fixture: 'okx/error-too-many-requests.json' }] }]);
    const waits: number[] = [];
    const error = await sourceError(runSource('okx', { pairs, retries: 1 }, replay.url, waits), 'okx', path);
    expect(error.message).toBe(
      `okx: GET ${path}: HTTP 429 Too Many Requests: Too Many Requests (code 50011) (2 attempts)`,
    );
    expect(waits).toEqual([250]);
  });

  it('retries "service temporarily unavailable" (code 50001) sent with HTTP 200', async () => {
    replay.setRoutes([
      { path, responses: [{ fixture: 'okx/error-upgrading.json' }, { fixture: 'okx/tickers-spot.json' }] },
    ]);
    const result = await runSource('okx', { pairs, retries: 1 }, replay.url);
    expect(result.quotes).toHaveLength(5);
  });

  it('drops a pre-open ticker whose best ask is below its best bid', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'okx/tickers-spot.json' }] }]);
    const result = await runSource('okx', { pairs: ['NEWT/USDT', 'BTC/USDT'] }, replay.url);
    expect(result.problems).toEqual([`NEWT/USDT (NEWT-USDT) in GET ${path}: bid 0.4135 is above ask 0.4102`]);
  });

  it('treats empty strings as missing prices', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'okx/tickers-spot.json' }] }]);
    const result = await runSource('okx', { pairs: ['SUI/USDT', 'BTC/USDT'] }, replay.url);
    expect(result.problems).toEqual([`SUI/USDT (SUI-USDT) in GET ${path}: bidPx is an empty string`]);
  });
});
