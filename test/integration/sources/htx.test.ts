import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { runSource, sourceError, testNow, testSource } from './contract.js';

const path = '/market/tickers';
const pairs = ['BTC/USDT', 'ETH/USDT', 'HTX/USDT', 'TRX/USDT', 'ETH/BTC'];

testSource({
  type: 'htx',
  options: { pairs },
  path,
  normal: { fixture: 'htx/tickers.json' },
  expected: [
    { pair: 'BTC/USDT', bid: '97012.3', ask: '97012.31' },
    { pair: 'ETH/USDT', bid: '3120.44', ask: '3120.45' },
    { pair: 'HTX/USDT', bid: '0.0000019631', ask: '0.0000019642' },
    { pair: 'TRX/USDT', bid: '0.27314', ask: '0.27316' },
    { pair: 'ETH/BTC', bid: '0.032168', ask: '0.032172' },
  ],
  missing: { options: { pairs: [...pairs, 'XRP/USDT'] }, pair: 'XRP/USDT' },
  zero: { body: fixtureWith('htx/tickers.json', '"bid":97012.3,', '"bid":0,'), pair: 'BTC/USDT' },
  envelope: {
    response: { fixture: 'htx/error-invalid-parameter.json' },
    says: /invalid symbol \(err-code invalid-parameter\)/,
  },
});

describe('htx: its own traps', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  it('names symbols in lower case, a mapping too', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'htx/tickers.json' }] }]);
    const result = await runSource('htx', { pairs: { 'BTC/USDT': 'BTCUSDT', 'TRON/USDT': 'trxusdt' } }, replay.url);
    expect(result.quotes.map(({ pair, bid }) => `${pair} ${bid}`)).toEqual(['BTC/USDT 97012.3', 'TRON/USDT 0.27314']);
    expect(result.problems).toEqual([]);
  });

  it('keeps prices sent as JSON numbers exact: digits a float would lose, trailing zeros, exponents expanded', async () => {
    replay.setRoutes([
      {
        path,
        responses: [
          {
            body: fixtureWith('htx/tickers.json', '"bid":3120.44,', '"bid":3120.4400000000000000012345,')
              .toString()
              .replace('"ask":0.27316,', '"ask":0.27316000,'),
          },
        ],
      },
    ]);
    const result = await runSource('htx', { pairs: ['ETH/USDT', 'TRX/USDT', 'HTX/USDT'] }, replay.url);
    expect(result.quotes.map(({ pair, bid, ask }) => `${pair} ${bid} ${ask}`)).toEqual([
      'ETH/USDT 3120.4400000000000000012345 3120.45',
      'TRX/USDT 0.27314 0.27316000',
      'HTX/USDT 0.0000019631 0.0000019642',
    ]);
  });

  it('dates every quote by the answer ts, never after the fetch', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'htx/tickers.json' }] }]);
    const result = await runSource('htx', { pairs: ['BTC/USDT'] }, replay.url);
    expect(result.quotes[0]?.time.toISOString()).toBe('2026-11-21T11:59:58.123Z');
    replay.setRoutes([
      { path, responses: [{ body: fixtureWith('htx/tickers.json', '"ts":1795262398123', '"ts":1895262398123') }] },
    ]);
    const future = await runSource('htx', { pairs: ['BTC/USDT'] }, replay.url);
    expect(future.quotes[0]?.time).toEqual(testNow);
  });

  it('reports status "error" sent with HTTP 200, without retrying a bad parameter', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'htx/error-invalid-parameter.json' }] }]);
    const before = replay.requests.length;
    const error = await sourceError(runSource('htx', { pairs, retries: 2 }, replay.url), 'htx', path);
    expect(error.message).toBe(`htx: GET ${path}: invalid symbol (err-code invalid-parameter)`);
    expect(replay.requests.length - before).toBe(1);
  });

  it("retries an error of HTX's own system sent with HTTP 200", async () => {
    const busy = '{"status":"error","err-code":"base-system-error","err-msg":"system error","data":null}';
    replay.setRoutes([{ path, responses: [{ body: busy }, { fixture: 'htx/tickers.json' }] }]);
    const waits: number[] = [];
    const result = await runSource('htx', { pairs, retries: 1 }, replay.url, waits);
    expect(result.quotes).toHaveLength(5);
    expect(waits).toEqual([250]);
  });

  it('drops a string, a null or a negative number where a price belongs', async () => {
    const body = fixtureWith('htx/tickers.json', '"bid":97012.3,', '"bid":null,')
      .toString()
      .replace('"ask":3120.45,', '"ask":-3120.45,');
    replay.setRoutes([{ path, responses: [{ body }] }]);
    const result = await runSource('htx', { pairs: ['BTC/USDT', 'ETH/USDT'] }, replay.url);
    expect(result.problems).toEqual([
      `BTC/USDT (btcusdt) in GET ${path}: bid is missing`,
      `ETH/USDT (ethusdt) in GET ${path}: ask is negative: "-3120.45"`,
    ]);
  });
});
