import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceDefinition } from '../../../src/io/sources/index.js';
import { fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { runSource, sourceError, testSource } from './contract.js';

const path = '/api/v3/simple/price';
const pairs = ['USDT/RUB', 'USDT/USD', 'BTC/RUB', 'BTC/USD', 'ETH/USD'];

testSource({
  type: 'coingecko',
  options: { pairs },
  path,
  normal: { fixture: 'coingecko/simple-price.json' },
  expected: [
    { pair: 'USDT/RUB', bid: '81.61988475210483', ask: '81.61988475210483' },
    { pair: 'USDT/USD', bid: '1.000212483014', ask: '1.000212483014' },
    { pair: 'BTC/RUB', bid: '7918642.5511', ask: '7918642.5511' },
    { pair: 'BTC/USD', bid: '97010.12', ask: '97010.12' },
    { pair: 'ETH/USD', bid: '3120.5', ask: '3120.5' },
  ],
  missing: {
    options: {
      pairs: {
        'USDT/RUB': 'tether',
        'USDT/USD': 'tether',
        'BTC/RUB': 'bitcoin',
        'BTC/USD': 'bitcoin',
        'ETH/USD': 'ethereum',
        'XYZ/USD': 'xyz-token',
      },
    },
    pair: 'XYZ/USD',
  },
  zero: { body: fixtureWith('coingecko/simple-price.json', '"usd":97010.12', '"usd":0'), pair: 'BTC/USD' },
  envelope: {
    response: { status: 401, fixture: 'coingecko/error-key-type.json' },
    says: /HTTP 401.*change your root URL.*\(error_code 10010\)/,
  },
  rateLimited: { fixture: 'coingecko/error-rate-limit.json' },
});

describe('coingecko: its own traps', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([{ path, responses: [{ fixture: 'coingecko/simple-price.json' }] }]);
  });
  afterAll(() => replay.close());

  it('asks for each coin id and currency once, at full precision', async () => {
    await runSource('coingecko', { pairs }, replay.url);
    const query = replay.requests.at(-1)?.query;
    expect(query?.get('ids')).toBe('tether,bitcoin,ethereum');
    expect(query?.get('vs_currencies')).toBe('rub,usd');
    expect(query?.get('precision')).toBe('full');
  });

  it('keeps prices sent as JSON numbers exact, digits a float would lose included, and expands exponents', async () => {
    replay.setRoutes([
      {
        path,
        responses: [
          { body: fixtureWith('coingecko/simple-price.json', '81.61988475210483', '81.6198847521048312345') },
        ],
      },
    ]);
    const result = await runSource(
      'coingecko',
      { pairs: { 'USDT/RUB': 'tether', 'SHIB/USD': 'shiba-inu', 'SHIB/EUR': 'shiba-inu' } },
      replay.url,
    );
    expect(result.quotes.map(({ pair, bid }) => `${pair} ${bid}`)).toEqual([
      'USDT/RUB 81.6198847521048312345',
      'SHIB/USD 0.000012',
      'SHIB/EUR 0.000011209',
    ]);
    replay.setRoutes([{ path, responses: [{ fixture: 'coingecko/simple-price.json' }] }]);
  });

  it('sends the demo key from the environment in a header, never in the URL', async () => {
    await runSource('coingecko', { pairs }, replay.url, [], { RATEFILE_COINGECKO_KEY: 'CG-demo-secret' });
    const request = replay.requests.at(-1)!;
    expect(request.headers['x-cg-demo-api-key']).toBe('CG-demo-secret');
    expect(request.query.toString()).not.toContain('secret');
  });

  it('reads the key from the variable keyEnv names, and a pro key goes in the pro header', async () => {
    await runSource('coingecko', { pairs, plan: 'pro', keyEnv: 'MY_CG_KEY' }, replay.url, [], {
      MY_CG_KEY: 'CG-pro-secret',
    });
    expect(replay.requests.at(-1)?.headers['x-cg-pro-api-key']).toBe('CG-pro-secret');
  });

  it('refuses the pro plan without a key, before asking', async () => {
    const before = replay.requests.length;
    await expect(runSource('coingecko', { pairs, plan: 'pro' }, replay.url)).rejects.toThrow(
      'coingecko: the pro plan needs an API key in RATEFILE_COINGECKO_KEY',
    );
    expect(replay.requests.length).toBe(before);
  });

  it('reports an unknown coin id (CoinGecko answers {})', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'coingecko/unknown-id.json' }] }]);
    const result = await runSource('coingecko', { pairs: { 'USDT/RUB': 'tehter' } }, replay.url);
    expect(result).toEqual({ quotes: [], problems: [`USDT/RUB (tehter) in GET ${path}: not in the response`] });
  });

  it('refuses prices that are not an object by coin id', async () => {
    replay.setRoutes([{ path, responses: [{ body: '[81.6]' }] }]);
    const error = await sourceError(runSource('coingecko', { pairs }, replay.url), 'coingecko', path);
    expect(error.message).toContain('expected an object of prices by coin id, got a list');
  });

  it('says which pair has no price for a currency', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'coingecko/simple-price.json' }] }]);
    const result = await runSource('coingecko', { pairs: ['ETH/USD', 'ETH/TRY'] }, replay.url);
    expect(result.problems).toEqual([`ETH/TRY (ethereum) in GET ${path}: not in the response`]);
  });

  it('prices in any currency CoinGecko has (UAH, TRY), and says when it has none (KZT)', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'coingecko/simple-price-fiat.json' }] }]);
    const result = await runSource(
      'coingecko',
      { pairs: ['USDT/UAH', 'USDT/KZT', 'USDT/TRY', 'BTC/UAH', 'BTC/TRY'] },
      replay.url,
    );
    expect(replay.requests.at(-1)?.query.get('vs_currencies')).toBe('uah,kzt,try');
    expect(result.quotes.map(({ pair, bid, ask }) => `${pair} ${bid} ${ask}`)).toEqual([
      'USDT/UAH 41.88230198221034 41.88230198221034',
      'USDT/TRY 34.52120188440212 34.52120188440212',
      'BTC/UAH 4063112.5171 4063112.5171',
      'BTC/TRY 3348811.2094 3348811.2094',
    ]);
    expect(result.problems).toEqual([
      `USDT/KZT (tether) in GET ${path}: not in the response: CoinGecko prices in no KZT (kzt is not among the vs_currencies of GET /api/v3/simple/supported_vs_currencies)`,
    ]);
    replay.setRoutes([{ path, responses: [{ fixture: 'coingecko/simple-price.json' }] }]);
  });

  it('needs a coin id for a coin it does not know, at load', () => {
    const parsed = sourceDefinition('coingecko')!.options.safeParse({
      type: 'coingecko',
      pairs: ['USDT/RUB', 'NOTCOIN/USD'],
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual([
      'pairs.1: no known CoinGecko coin id for NOTCOIN: write pairs as a mapping, e.g. { NOTCOIN/USD: <coin id> }',
    ]);
  });
});
