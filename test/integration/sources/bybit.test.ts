import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { runSource, sourceError, testSource } from './contract.js';

const path = '/v5/market/tickers';
const pairs = ['BTC/USDT', 'ETH/USDT', 'USDC/USDT', 'TON/USDT', 'ETH/BTC'];

testSource({
  type: 'bybit',
  options: { pairs },
  path,
  normal: { fixture: 'bybit/tickers-spot.json' },
  expected: [
    { pair: 'BTC/USDT', bid: '97012.3', ask: '97012.4' },
    { pair: 'ETH/USDT', bid: '3120.44', ask: '3120.45' },
    { pair: 'USDC/USDT', bid: '0.9999', ask: '1' },
    { pair: 'TON/USDT', bid: '5.412', ask: '5.413' },
    { pair: 'ETH/BTC', bid: '0.03216', ask: '0.03217' },
  ],
  missing: { options: { pairs: [...pairs, 'XRP/USDT'] }, pair: 'XRP/USDT' },
  zero: { body: fixtureWith('bybit/tickers-spot.json', '"bid1Price":"97012.3"', '"bid1Price":"0"'), pair: 'BTC/USDT' },
  envelope: {
    response: { fixture: 'bybit/error-not-supported.json' },
    says: /Not supported symbols \(retCode 10001\)/,
  },
});

describe('bybit: its own traps', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  it('asks for every spot ticker (Bybit takes no list of symbols)', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'bybit/tickers-spot.json' }] }]);
    await runSource('bybit', { pairs: ['BTC/USDT'] }, replay.url);
    expect(replay.requests.at(-1)?.query.get('category')).toBe('spot');
    expect(replay.requests.at(-1)?.query.has('symbol')).toBe(false);
  });

  it('reports an error sent with HTTP 200 and retCode ≠ 0', async () => {
    replay.setRoutes([{ path, responses: [{ status: 200, fixture: 'bybit/error-not-supported.json' }] }]);
    const error = await sourceError(runSource('bybit', { pairs }, replay.url), 'bybit', path);
    expect(error.message).toBe(`bybit: GET ${path}: Not supported symbols (retCode 10001)`);
  });

  it('retries "Too many visits!" (retCode 10006) after a backoff', async () => {
    replay.setRoutes([
      { path, responses: [{ fixture: 'bybit/error-too-many-visits.json' }, { fixture: 'bybit/tickers-spot.json' }] },
    ]);
    const waits: number[] = [];
    const result = await runSource('bybit', { pairs, retries: 1 }, replay.url, waits);
    expect(result.quotes).toHaveLength(5);
    expect(waits).toEqual([250]);
  });

  it('drops a ticker with an empty book (empty strings), naming the field', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'bybit/tickers-spot.json' }] }]);
    const result = await runSource('bybit', { pairs: ['BTC/USDT', 'NEWT/USDT'] }, replay.url);
    expect(result.quotes.map((quote) => quote.pair)).toEqual(['BTC/USDT']);
    expect(result.problems).toEqual([`NEWT/USDT (NEWTUSDT) in GET ${path}: bid1Price is an empty string`]);
  });

  it('after a 403 ("access too frequent") asks nobody to call again for ten minutes', async () => {
    replay.setRoutes([{ path, responses: [{ status: 403, body: 'access too frequent' }] }]);
    const error = await sourceError(runSource('bybit', { pairs, retries: 2 }, replay.url), 'bybit', path);
    expect(error.message).toContain('HTTP 403 Forbidden: "access too frequent"');
    expect(error.retryAfterMs).toBe(600_000);
  });

  it('refuses a body without result.list', async () => {
    replay.setRoutes([
      { path, responses: [{ body: '{"retCode":0,"retMsg":"OK","result":{"category":"spot"},"time":1795262399981}' }] },
    ]);
    const error = await sourceError(runSource('bybit', { pairs }, replay.url), 'bybit', path);
    expect(error.message).toContain('expected result.list, a list of tickers, got nothing');
  });
});
