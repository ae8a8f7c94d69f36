import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { runSource, sourceError, testSource } from './contract.js';

const path = '/api/v3/ticker/bookTicker';
const pairs = ['BTC/USDT', 'ETH/USDT', 'USDC/USDT', 'TON/USDT', 'KAS/USDT'];

testSource({
  type: 'mexc',
  options: { pairs },
  path,
  normal: { fixture: 'mexc/bookTicker.json' },
  expected: [
    { pair: 'BTC/USDT', bid: '97011.98', ask: '97012.01' },
    { pair: 'ETH/USDT', bid: '3120.41', ask: '3120.43' },
    { pair: 'USDC/USDT', bid: '0.9998', ask: '0.9999' },
    { pair: 'TON/USDT', bid: '5.4118', ask: '5.4121' },
    { pair: 'KAS/USDT', bid: '0.118402', ask: '0.118421' },
  ],
  missing: { options: { pairs: [...pairs, 'XRP/USDT'] }, pair: 'XRP/USDT' },
  zero: { body: fixtureWith('mexc/bookTicker.json', '"bidPrice":"97011.98"', '"bidPrice":"0"'), pair: 'BTC/USDT' },
  envelope: {
    response: { status: 400, fixture: 'mexc/error-invalid-symbol.json' },
    says: /HTTP 400.*Invalid symbol\. \(code -1121\)/,
  },
  rateLimited: { fixture: 'mexc/error-too-many-requests.json' },
});

describe('mexc: its own traps', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  it('asks once for every symbol (MEXC takes no list of symbols), so an unknown one is only that pair missing', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'mexc/bookTicker.json' }] }]);
    const before = replay.requests.length;
    const result = await runSource('mexc', { pairs: ['MX/USDT', 'USDT/RUB'] }, replay.url);
    expect(replay.requests.length - before).toBe(1);
    expect(replay.requests.at(-1)?.query.toString()).toBe('');
    expect(result.quotes).toEqual([expect.objectContaining({ pair: 'MX/USDT', bid: '3.0144', ask: '3.0151' })]);
    expect(result.problems).toEqual([`USDT/RUB (USDTRUB) in GET ${path}: not in the response`]);
  });

  it('drops a delisted symbol that still answers with zero prices', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'mexc/bookTicker.json' }] }]);
    const result = await runSource('mexc', { pairs: ['OLD/USDT'] }, replay.url);
    expect(result.problems).toEqual([`OLD/USDT (OLDUSDT) in GET ${path}: bidPrice is zero: "0"`]);
  });

  it('takes its own symbol names from a mapping', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'mexc/bookTicker.json' }] }]);
    const result = await runSource('mexc', { pairs: { 'MEXC/USDT': 'MXUSDT' } }, replay.url);
    expect(result.quotes).toEqual([expect.objectContaining({ pair: 'MEXC/USDT', bid: '3.0144' })]);
  });

  it('retries "Too Many Requests" (code 429) sent with HTTP 429 and no Retry-After', async () => {
    replay.setRoutes([
      {
        path,
        responses: [{ status: 429, fixture: 'mexc/error-too-many-requests.json' }, { fixture: 'mexc/bookTicker.json' }],
      },
    ]);
    const waits: number[] = [];
    const result = await runSource('mexc', { pairs: ['BTC/USDT'], retries: 1 }, replay.url, waits);
    expect(result.quotes).toHaveLength(1);
    expect(waits).toEqual([250]);
  });

  it('does not retry a bad request (400)', async () => {
    replay.setRoutes([{ path, responses: [{ status: 400, fixture: 'mexc/error-invalid-symbol.json' }] }]);
    const before = replay.requests.length;
    await sourceError(runSource('mexc', { pairs, retries: 3 }, replay.url), 'mexc', path);
    expect(replay.requests.length - before).toBe(1);
  });

  it('refuses an object where the list of tickers belongs', async () => {
    replay.setRoutes([{ path, responses: [{ body: '{"symbol":"BTCUSDT","bidPrice":"1","askPrice":"2"}' }] }]);
    const error = await sourceError(runSource('mexc', { pairs: ['BTC/USDT'] }, replay.url), 'mexc', path);
    expect(error.message).toContain('expected a list of tickers, got an object');
  });
});
