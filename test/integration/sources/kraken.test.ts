import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { runSource, sourceError, testSource } from './contract.js';

const path = '/0/public/Ticker';
const pairs = ['BTC/USD', 'ETH/USD', 'USDT/USD', 'BTC/USDT', 'DOGE/USD', 'SOL/USD', 'ETH/BTC'];

testSource({
  type: 'kraken',
  options: { pairs },
  path,
  normal: { fixture: 'kraken/ticker.json' },
  expected: [
    { pair: 'BTC/USD', bid: '97012.30000', ask: '97012.40000' },
    { pair: 'ETH/USD', bid: '3120.47000', ask: '3120.48000' },
    { pair: 'USDT/USD', bid: '1.00020000', ask: '1.00030000' },
    { pair: 'BTC/USDT', bid: '96985.60000', ask: '96985.70000' },
    { pair: 'DOGE/USD', bid: '0.3621500', ask: '0.3621700' },
    { pair: 'SOL/USD', bid: '187.45000', ask: '187.46000' },
    { pair: 'ETH/BTC', bid: '0.032170', ask: '0.032180' },
  ],
  missing: { options: { pairs: [...pairs, 'XRP/USD'] }, pair: 'XRP/USD' },
  zero: { body: fixtureWith('kraken/ticker.json', '"b":["97012.30000"', '"b":["0.00000"'), pair: 'BTC/USD' },
  envelope: { response: { fixture: 'kraken/error-invalid-arguments.json' }, says: /EGeneral:Invalid arguments/ },
});

describe('kraken: its own traps', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  it('asks by altname, BTC as XBT and DOGE as XDG, comma-separated', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'kraken/ticker.json' }] }]);
    await runSource('kraken', { pairs }, replay.url);
    expect(replay.requests.at(-1)?.query.get('pair')).toBe('XBTUSD,ETHUSD,USDTUSD,XBTUSDT,XDGUSD,SOLUSD,ETHXBT');
  });

  it('finds each pair under the canonical name Kraken answers with (XXBTZUSD, XETHXXBT, USDTZUSD, XDGUSD)', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'kraken/ticker.json' }] }]);
    const result = await runSource('kraken', { pairs: ['ETH/BTC', 'USDT/USD', 'DOGE/USD'] }, replay.url);
    expect(result.quotes.map(({ pair, bid }) => `${pair} ${bid}`)).toEqual([
      'ETH/BTC 0.032170',
      'USDT/USD 1.00020000',
      'DOGE/USD 0.3621500',
    ]);
  });

  it('finds a fiat pair under its Z…Z… name (ZEURZUSD, ZGBPZUSD, ZUSDZJPY)', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'kraken/ticker-fiat.json' }] }]);
    const result = await runSource('kraken', { pairs: ['EUR/USD', 'GBP/USD', 'USD/JPY'] }, replay.url);
    expect(replay.requests.at(-1)?.query.get('pair')).toBe('EURUSD,GBPUSD,USDJPY');
    expect(result.problems).toEqual([]);
    expect(result.quotes.map(({ pair, bid, ask }) => `${pair} ${bid} ${ask}`)).toEqual([
      'EUR/USD 1.05430 1.05431',
      'GBP/USD 1.26170 1.26172',
      'USD/JPY 154.309 154.312',
    ]);
  });

  it('a mapping names a pair by whatever Kraken calls it', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'kraken/ticker.json' }] }]);
    const result = await runSource('kraken', { pairs: { 'BTC/USD': 'XXBTZUSD' } }, replay.url);
    expect(replay.requests.at(-1)?.query.get('pair')).toBe('XXBTZUSD');
    expect(result.quotes).toEqual([expect.objectContaining({ pair: 'BTC/USD', bid: '97012.30000' })]);
  });

  it('after "EQuery:Unknown asset pair" (which fails the whole request) asks for every pair and names only the unknown one', async () => {
    replay.setRoutes([
      { path, query: { pair: null }, responses: [{ fixture: 'kraken/ticker-all.json' }] },
      { path, responses: [{ fixture: 'kraken/error-unknown-pair.json' }] },
    ]);
    const result = await runSource('kraken', { pairs: ['BTC/USD', 'LTC/USD', 'RUB/USD'] }, replay.url);
    expect(result.quotes.map((quote) => quote.pair)).toEqual(['BTC/USD', 'LTC/USD']);
    expect(result.problems).toEqual([`RUB/USD (RUBUSD) in GET ${path}: not in the response`]);
  });

  it('retries "EAPI:Rate limit exceeded" sent with HTTP 200', async () => {
    replay.setRoutes([
      { path, responses: [{ fixture: 'kraken/error-rate-limit.json' }, { fixture: 'kraken/ticker.json' }] },
    ]);
    const waits: number[] = [];
    const result = await runSource('kraken', { pairs, retries: 1 }, replay.url, waits);
    expect(result.quotes).toHaveLength(7);
    expect(waits).toEqual([250]);
  });

  it('fails on "EService:Unavailable" once the retries are spent', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'kraken/error-unavailable.json' }] }]);
    const error = await sourceError(runSource('kraken', { pairs, retries: 1 }, replay.url), 'kraken', path);
    expect(error.message).toBe(`kraken: GET ${path}: EService:Unavailable (2 attempts)`);
  });

  it('takes a warning (W…) in error[] for what it is', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'kraken/ticker-with-warning.json' }] }]);
    const result = await runSource('kraken', { pairs: ['BTC/USD'] }, replay.url);
    expect(result.quotes).toHaveLength(1);
  });

  it('drops a ticker whose b is not a list', async () => {
    replay.setRoutes([
      {
        path,
        responses: [
          { body: fixtureWith('kraken/ticker.json', '"b":["97012.30000","2","2.000"]', '"b":"97012.30000"') },
        ],
      },
    ]);
    const result = await runSource('kraken', { pairs: ['BTC/USD', 'ETH/USD'] }, replay.url);
    expect(result.problems).toEqual([`BTC/USD (XBTUSD) in GET ${path}: b[0] is missing`]);
  });
});
