import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { runSource, sourceError, testSource } from './contract.js';

const path = '/api/v2/public/ticker';
const pairs = ['BTC/USDT', 'USDT/UAH', 'BTC/UAH', 'ETH/USDT', 'WBT/USDT'];

testSource({
  type: 'whitebit',
  options: { pairs },
  path,
  normal: { fixture: 'whitebit/ticker.json' },
  expected: [
    { pair: 'BTC/USDT', bid: '97012.3', ask: '97012.32' },
    { pair: 'USDT/UAH', bid: '41.91', ask: '41.93' },
    { pair: 'BTC/UAH', bid: '4066210', ask: '4067890' },
    { pair: 'ETH/USDT', bid: '3120.44', ask: '3120.46' },
    { pair: 'WBT/USDT', bid: '24.099', ask: '24.104' },
  ],
  missing: { options: { pairs: [...pairs, 'XRP/UAH'] }, pair: 'XRP/UAH' },
  zero: { body: fixtureWith('whitebit/ticker.json', '"highestBid":"41.91"', '"highestBid":"0"'), pair: 'USDT/UAH' },
  envelope: {
    response: { status: 503, fixture: 'whitebit/error-maintenance.json' },
    says: /HTTP 503.*Service is under maintenance\./,
  },
  rateLimited: { fixture: 'whitebit/error-too-many-requests.json' },
});

describe('whitebit: its own traps', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  it('names markets BASE_QUOTE and reads highestBid as the bid, lowestAsk as the ask', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'whitebit/ticker.json' }] }]);
    const result = await runSource('whitebit', { pairs: ['USDT/UAH'] }, replay.url);
    expect(result.quotes).toEqual([expect.objectContaining({ pair: 'USDT/UAH', bid: '41.91', ask: '41.93' })]);
    expect(replay.requests.at(-1)?.query.toString()).toBe('');
  });

  it('drops a market whose trading is disabled, whatever its book still shows', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'whitebit/ticker.json' }] }]);
    const result = await runSource('whitebit', { pairs: ['BTC/USDT', 'OLD/USDT'] }, replay.url);
    expect(result.quotes.map((quote) => quote.pair)).toEqual(['BTC/USDT']);
    expect(result.problems).toEqual([`OLD/USDT (OLD_USDT) in GET ${path}: trading is disabled (tradesEnabled false)`]);
  });

  it('reports success false sent with HTTP 200, and retries "Too many requests"', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'whitebit/error-maintenance.json' }] }]);
    const error = await sourceError(runSource('whitebit', { pairs }, replay.url), 'whitebit', path);
    expect(error.message).toBe(`whitebit: GET ${path}: Service is under maintenance.`);
    replay.setRoutes([
      {
        path,
        responses: [{ fixture: 'whitebit/error-too-many-requests.json' }, { fixture: 'whitebit/ticker.json' }],
      },
    ]);
    const waits: number[] = [];
    const result = await runSource('whitebit', { pairs, retries: 1 }, replay.url, waits);
    expect(result.quotes).toHaveLength(5);
    expect(waits).toEqual([250]);
  });

  it('names an error message that is an object of problems', async () => {
    replay.setRoutes([
      { path, responses: [{ body: '{"success":false,"message":{"market":["Market is not available"]},"params":[]}' }] },
    ]);
    const error = await sourceError(runSource('whitebit', { pairs }, replay.url), 'whitebit', path);
    expect(error.message).toBe(`whitebit: GET ${path}: market: Market is not available`);
  });

  it('refuses an answer without result', async () => {
    replay.setRoutes([{ path, responses: [{ body: '{"success":true,"message":null}' }] }]);
    const error = await sourceError(runSource('whitebit', { pairs }, replay.url), 'whitebit', path);
    expect(error.message).toContain('expected result, a list of tickers, got nothing');
  });
});
