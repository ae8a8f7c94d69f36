import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceDefinition } from '../../../src/io/sources/index.js';
import { fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { runSource, sourceError, testSource } from './contract.js';

const path = '/v2/tickers';
const pairs = ['BTC/USD', 'BTC/USDT', 'ETH/USD', 'USDT/USD', 'DOGE/USD'];

testSource({
  type: 'bitfinex',
  options: { pairs },
  path,
  normal: { fixture: 'bitfinex/tickers.json' },
  expected: [
    { pair: 'BTC/USD', bid: '97010', ask: '97011' },
    { pair: 'BTC/USDT', bid: '97017', ask: '97018' },
    { pair: 'ETH/USD', bid: '3120.3', ask: '3120.4' },
    { pair: 'USDT/USD', bid: '1.0002', ask: '1.0003' },
    { pair: 'DOGE/USD', bid: '0.38712', ask: '0.38721' },
  ],
  missing: { options: { pairs: [...pairs, 'XRP/USD'] }, pair: 'XRP/USD' },
  zero: { body: fixtureWith('bitfinex/tickers.json', '["tBTCUSD",97010,', '["tBTCUSD",0,'), pair: 'BTC/USD' },
  envelope: {
    response: { status: 500, fixture: 'bitfinex/error-symbol-invalid.json' },
    says: /HTTP 500.*symbol: invalid \(code 10020\)/,
  },
  rateLimited: { fixture: 'bitfinex/error-rate-limit.json' },
});

describe('bitfinex: its own traps', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  it("asks for exactly the configured symbols in Bitfinex's own names: UST for USDT, a colon after a long code", async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'bitfinex/tickers.json' }] }]);
    const result = await runSource(
      'bitfinex',
      { pairs: ['BTC/USDT', 'XAUT/USDT', 'DOGE/USD', 'USDT/USD'] },
      replay.url,
    );
    expect(replay.requests.at(-1)?.query.get('symbols')).toBe('tBTCUST,tXAUT:UST,tDOGE:USD,tUSTUSD');
    expect(result.quotes.map(({ pair, bid, ask }) => `${pair} ${bid} ${ask}`)).toEqual([
      'BTC/USDT 97017 97018',
      'XAUT/USDT 2651.2 2652.9',
      'DOGE/USD 0.38712 0.38721',
      'USDT/USD 1.0002 1.0003',
    ]);
  });

  it('takes its own symbol names from a mapping, and refuses a funding symbol, whose fields mean something else', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'bitfinex/tickers.json' }] }]);
    const result = await runSource('bitfinex', { pairs: { 'XBT/USD': 'tBTCUSD' } }, replay.url);
    expect(result.quotes).toEqual([expect.objectContaining({ pair: 'XBT/USD', bid: '97010', ask: '97011' })]);
    const parsed = sourceDefinition('bitfinex')!.options.safeParse({ type: 'bitfinex', pairs: { 'USD/USD': 'fUSD' } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain('no funding "f" symbols');
  });

  it('keeps prices sent as JSON numbers exact, digits a float would lose included', async () => {
    replay.setRoutes([
      {
        path,
        responses: [
          { body: fixtureWith('bitfinex/tickers.json', '["tETHUSD",3120.3,', '["tETHUSD",3120.30000000000000001,') },
        ],
      },
    ]);
    const result = await runSource('bitfinex', { pairs: ['ETH/USD'] }, replay.url);
    expect(result.quotes).toEqual([expect.objectContaining({ bid: '3120.30000000000000001', ask: '3120.4' })]);
  });

  it('drops a row cut short, naming the missing field', async () => {
    replay.setRoutes([{ path, responses: [{ body: '[["tBTCUSD",97010,7.8]]' }] }]);
    const result = await runSource('bitfinex', { pairs: ['BTC/USD'] }, replay.url);
    expect(result.problems).toEqual([`BTC/USD (tBTCUSD) in GET ${path}: ASK is missing`]);
  });

  it('reports ["error", code, message] and does not retry it', async () => {
    replay.setRoutes([{ path, responses: [{ status: 500, fixture: 'bitfinex/error-symbol-invalid.json' }] }]);
    const before = replay.requests.length;
    const error = await sourceError(runSource('bitfinex', { pairs, retries: 0 }, replay.url), 'bitfinex', path);
    expect(error.message).toBe(`bitfinex: GET ${path}: HTTP 500 Internal Server Error: symbol: invalid (code 10020)`);
    expect(replay.requests.length - before).toBe(1);
  });

  it('retries ERR_RATE_LIMIT sent with HTTP 200', async () => {
    replay.setRoutes([
      { path, responses: [{ fixture: 'bitfinex/error-rate-limit.json' }, { fixture: 'bitfinex/tickers.json' }] },
    ]);
    const waits: number[] = [];
    const result = await runSource('bitfinex', { pairs, retries: 1 }, replay.url, waits);
    expect(result.quotes).toHaveLength(5);
    expect(waits).toEqual([250]);
  });

  it('refuses an object where the list of tickers belongs', async () => {
    replay.setRoutes([{ path, responses: [{ body: '{"tBTCUSD":[97010]}' }] }]);
    const error = await sourceError(runSource('bitfinex', { pairs }, replay.url), 'bitfinex', path);
    expect(error.message).toContain('expected a list of tickers, got an object');
  });
});
