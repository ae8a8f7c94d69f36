import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/base/decimal.js';
import { build } from '../../../src/io/build/build.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { sourceDefinition } from '../../../src/io/sources/index.js';
import { repoRoot } from '../../support/process.js';
import { fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { runSource, sourceError, testSource } from './contract.js';

const binancePath = '/bapi/c2c/v2/friendly/c2c/adv/search';
const bybitPath = '/fiat/otc/item/online';
const pairs = ['USDT/RUB', 'USDT/KZT'];

// The contract serves one answer to every search: its fixture holds both sides of both pairs, which the source
// sorts out by each advert's asset, fiat and side.
testSource({
  type: 'p2p',
  options: { venue: 'binance', pairs, take: 3 },
  requests: 4,
  path: binancePath,
  normal: { fixture: 'p2p/binance-contract.json' },
  expected: [
    // (97.85 + 97.90 + 98.00) / 3 = 97.91666…, 12 significant digits; (96.90 + 96.75 + 96.60) / 3.
    { pair: 'USDT/RUB', bid: '96.75', ask: '97.9166666667' },
    { pair: 'USDT/KZT', bid: '514.9', ask: '522.65' },
  ],
  missing: { options: { pairs: [...pairs, 'USDT/UAH'] }, pair: 'USDT/UAH' },
  zero: { body: fixtureWith('p2p/binance-contract.json', '"price":"97.85"', '"price":"0.00"'), pair: 'USDT/RUB' },
  envelope: { response: { fixture: 'p2p/binance-error.json' }, says: /illegal parameter \(code 000002\)/ },
});

testSource({
  type: 'p2p',
  options: { venue: 'bybit', pairs, take: 3 },
  requests: 4,
  path: bybitPath,
  normal: { fixture: 'p2p/bybit-contract.json' },
  expected: [
    { pair: 'USDT/RUB', bid: '96.7', ask: '98.1833333333' },
    { pair: 'USDT/KZT', bid: '514.5', ask: '523.4' },
  ],
  missing: { options: { pairs: [...pairs, 'USDT/UAH'] }, pair: 'USDT/UAH' },
  zero: { body: fixtureWith('p2p/bybit-contract.json', '"price":"98.10"', '"price":"0"'), pair: 'USDT/RUB' },
  envelope: { response: { fixture: 'p2p/bybit-error.json' }, says: /Request parameter error \(ret_code 10001\)/ },
  rateLimited: { fixture: 'p2p/bybit-too-many.json' },
});

describe('p2p: its own traps', () => {
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  const binanceBook = (ask = 'p2p/binance-usdt-rub-ask.json', bid = 'p2p/binance-usdt-rub-bid.json') =>
    replay.setRoutes([
      { path: binancePath, body: { tradeType: 'BUY' }, responses: [{ fixture: ask }] },
      { path: binancePath, body: { tradeType: 'SELL' }, responses: [{ fixture: bid }] },
    ]);
  const bybitBook = () =>
    replay.setRoutes([
      { path: bybitPath, body: { side: '1' }, responses: [{ fixture: 'p2p/bybit-usdt-rub-ask.json' }] },
      { path: bybitPath, body: { side: '0' }, responses: [{ fixture: 'p2p/bybit-usdt-rub-bid.json' }] },
    ]);
  const bodies = (count: number) =>
    replay.requests.slice(-count).map((request) => JSON.parse(request.body) as Record<string, unknown>);

  it('asks Binance twice per pair by POST: SELL (adverts buying USDT) for the bid, BUY for the ask, filters sent', async () => {
    binanceBook();
    await runSource(
      'p2p',
      {
        venue: 'binance',
        pairs: ['USDT/RUB'],
        payMethods: ['TinkoffNew'],
        amount: '50000',
        merchantsOnly: true,
        take: 3,
      },
      replay.url,
    );
    const asked = replay.requests.slice(-2);
    expect(asked.map((request) => [request.method, request.headers['content-type']])).toEqual([
      ['POST', 'application/json'],
      ['POST', 'application/json'],
    ]);
    const common = {
      asset: 'USDT',
      fiat: 'RUB',
      page: 1,
      rows: 20,
      payTypes: ['TinkoffNew'],
      publisherType: 'merchant',
    };
    expect(bodies(2)).toEqual([
      { ...common, tradeType: 'SELL', transAmount: '50000' },
      { ...common, tradeType: 'BUY', transAmount: '50000' },
    ]);
  });

  it('averages the best adverts the filters keep: pay method, amount, merchants, the first skipped', async () => {
    binanceBook();
    const result = await runSource(
      'p2p',
      {
        venue: 'binance',
        pairs: ['USDT/RUB'],
        payMethods: ['TinkoffNew'],
        amount: '50000',
        merchantsOnly: true,
        skip: 1,
        take: 3,
      },
      replay.url,
    );
    // Ask (lowest first): 97.62, 97.70, 97.85, 97.95, 98.05 pass (97.40 is a user's, 97.75 starts at 60000, 97.80
    // takes Raiffeisen only, 97.88 is a user's, 98.20 stops at 60000 ≥ 50000 passes too): skip 97.62, average
    // 97.70, 97.85, 97.95 = 97.8333…; bid (highest first): 96.80, 96.72, 96.65, 96.50: skip 96.80, average
    // 96.72, 96.65, 96.50 = 96.6233…
    expect(result.problems).toEqual([]);
    expect(result.quotes).toEqual([
      expect.objectContaining({ pair: 'USDT/RUB', bid: '96.6233333333', ask: '97.8333333333' }),
    ]);
  });

  it('takes the median when asked, exactly', async () => {
    binanceBook();
    const result = await runSource(
      'p2p',
      { venue: 'binance', pairs: ['USDT/RUB'], take: 4, average: 'median' },
      replay.url,
    );
    // Ask: 97.40, 97.62, 97.70, 97.75 → (97.62 + 97.70) / 2; bid: 96.95, 96.80, 96.72, 96.70 → (96.80 + 96.72) / 2.
    expect(result.quotes).toEqual([expect.objectContaining({ bid: '96.76', ask: '97.66' })]);
  });

  it('counts only the adverts of the side asked, and sorts them itself: a page out of price order still averages the best', async () => {
    binanceBook('p2p/binance-usdt-rub-bid.json', 'p2p/binance-usdt-rub-ask.json');
    // Each side's answer now lists the other side's adverts: none of them count, so both sides are missing.
    const crossed = await runSource('p2p', { venue: 'binance', pairs: ['USDT/RUB'] }, replay.url);
    expect(crossed.problems).toEqual([
      `USDT/RUB (binance) in POST ${binancePath}: not in the response (no USDT/RUB adverts on the bid side)`,
    ]);
    const shuffled = fixtureWith('p2p/binance-usdt-rub-ask.json', '"price":"97.40"', '"price":"98.90"');
    replay.setRoutes([
      { path: binancePath, body: { tradeType: 'BUY' }, responses: [{ body: shuffled }] },
      { path: binancePath, body: { tradeType: 'SELL' }, responses: [{ fixture: 'p2p/binance-usdt-rub-bid.json' }] },
    ]);
    const result = await runSource('p2p', { venue: 'binance', pairs: ['USDT/RUB'], take: 2 }, replay.url);
    expect(result.quotes).toEqual([expect.objectContaining({ bid: '96.875', ask: '97.66' })]);
  });

  it('a book too thin for the filters is a missing quote saying how many adverts were left', async () => {
    binanceBook();
    const result = await runSource(
      'p2p',
      { venue: 'binance', pairs: ['USDT/RUB'], amount: '500000', merchantsOnly: true, skip: 1, take: 4 },
      replay.url,
    );
    expect(result.quotes).toEqual([]);
    // The bid side is asked first: no advert buying USDT takes 500000 RUB in one trade.
    expect(result.problems).toEqual([
      `USDT/RUB (binance) in POST ${binancePath}: bid side: 0 adverts after filters, 5 needed (1 skipped + 4 averaged)`,
    ]);
  });

  it('a book that lists nothing for the pair is "not in the response"', async () => {
    replay.setRoutes([{ path: binancePath, responses: [{ fixture: 'p2p/binance-empty.json' }] }]);
    const result = await runSource('p2p', { venue: 'binance', pairs: ['USDT/RUB'] }, replay.url);
    expect(result.problems).toEqual([
      `USDT/RUB (binance) in POST ${binancePath}: not in the response (no USDT/RUB adverts on the bid side)`,
    ]);
  });

  it('drops a crossed book (bid above ask) rather than publish it', async () => {
    binanceBook('p2p/binance-usdt-rub-ask.json', 'p2p/binance-usdt-rub-bid.json');
    const high = fixtureWith('p2p/binance-usdt-rub-bid.json', /"price":"96\.\d\d"/g, '"price":"99.00"');
    replay.setRoutes([
      { path: binancePath, body: { tradeType: 'BUY' }, responses: [{ fixture: 'p2p/binance-usdt-rub-ask.json' }] },
      { path: binancePath, body: { tradeType: 'SELL' }, responses: [{ body: high }] },
    ]);
    const result = await runSource('p2p', { venue: 'binance', pairs: ['USDT/RUB'], take: 2 }, replay.url);
    expect(result.problems).toEqual([`USDT/RUB (binance) in POST ${binancePath}: bid 99 is above ask 97.51`]);
  });

  it('asks Bybit with side "0" for the bid and "1" for the ask, authMaker for merchants, and filters locally', async () => {
    bybitBook();
    const result = await runSource(
      'p2p',
      { venue: 'bybit', pairs: ['USDT/RUB'], payMethods: ['75'], amount: '10000', merchantsOnly: true, take: 2 },
      replay.url,
    );
    const common = {
      userId: '',
      tokenId: 'USDT',
      currencyId: 'RUB',
      payment: ['75'],
      size: '20',
      page: '1',
      amount: '10000',
      authMaker: true,
      canTrade: false,
    };
    expect(bodies(2)).toEqual([
      { ...common, side: '0' },
      { ...common, side: '1' },
    ]);
    // Ask: 98.02 takes only 64 and stops at 9000; 98.20 starts at 100000: 98.11 and 98.14 are averaged. Bid: 96.95
    // takes only 64: 96.81 and 96.77.
    expect(result.quotes).toEqual([expect.objectContaining({ pair: 'USDT/RUB', bid: '96.79', ask: '98.125' })]);
  });

  it('retries Bybit\'s "Too many visits!" (ret_code 10006, sent with HTTP 200)', async () => {
    replay.setRoutes([
      {
        path: bybitPath,
        responses: [{ fixture: 'p2p/bybit-too-many.json' }, { fixture: 'p2p/bybit-contract.json' }],
      },
    ]);
    const waits: number[] = [];
    const result = await runSource(
      'p2p',
      { venue: 'bybit', pairs: ['USDT/RUB'], take: 3, retries: 1 },
      replay.url,
      waits,
    );
    expect(result.quotes).toHaveLength(1);
    expect(waits).toEqual([250]);
  });

  it('refuses an object where the adverts belong', async () => {
    replay.setRoutes([{ path: binancePath, responses: [{ body: '{"code":"000000","data":{"adv":{}}}' }] }]);
    const error = await sourceError(
      runSource('p2p', { venue: 'binance', pairs: ['USDT/RUB'] }, replay.url),
      'p2p',
      binancePath,
    );
    expect(error.message).toContain('expected data, a list of adverts, got an object');
  });

  it('is asked once a minute by default, and refuses more adverts than one search lists', () => {
    const definition = sourceDefinition('p2p')!;
    expect(definition.defaultRefreshMs).toBe(60_000);
    const parsed = definition.options.safeParse({
      type: 'p2p',
      venue: 'binance',
      pairs: ['USDT/RUB'],
      skip: 5,
      take: 16,
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('expected skip + take of at most 20, the adverts one search lists');
    expect(definition.options.safeParse({ type: 'p2p', venue: 'okx', pairs: ['USDT/RUB'] }).success).toBe(false);
  });
});

describe('p2p: a build priced from a Binance P2P average', () => {
  let dir: string;
  let replay: ReplayServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratefile-p2p-build-'));
    await cp(join(repoRoot, 'templates'), join(dir, 'templates'), { recursive: true });
    replay = await startReplay([
      { path: binancePath, body: { tradeType: 'BUY' }, responses: [{ fixture: 'p2p/binance-usdt-rub-ask.json' }] },
      { path: binancePath, body: { tradeType: 'SELL' }, responses: [{ fixture: 'p2p/binance-usdt-rub-bid.json' }] },
    ]);
  });
  afterAll(async () => {
    await replay.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function configWith(filters: string) {
    await writeFile(
      join(dir, 'ratefile.config.yaml'),
      `sources:
  p2p-rub: { type: p2p, venue: binance, pairs: [USDT/RUB], ${filters} }
currencies:
  USDTTRC20: { reserve: "100000" }
  USDTERC20: { reserve: "100000" }
  SBERRUB: { reserve: "5000000" }
directions:
  - { from: USDTTRC20, to: SBERRUB, margin: 1%, chain: [USDT/RUB] }
  - { from: SBERRUB, to: USDTTRC20, margin: 1%, chain: [RUB/USDT] }
`,
    );
    return loadConfig(join(dir, 'ratefile.config.yaml'));
  }
  const now = () => new Date('2026-11-21T12:00:00Z');
  const env = () => ({ RATEFILE_P2P_URL: replay.url });

  it('prices USDT/RUB both ways from the average of the best merchant adverts taking 50,000 RUB by Tinkoff', async () => {
    const config = await configWith('payMethods: [TinkoffNew], amount: 50000, merchantsOnly: true, skip: 1, take: 3');
    const result = await build(config, { now, env: env() });
    expect(result.report.sources[0]).toMatchObject({ name: 'p2p-rub', ok: true, quotes: 1 });
    // The client selling USDT gets the bid (96.6233333333 RUB), the one buying pays the ask (97.8333333333 RUB).
    const market = Object.fromEntries(result.report.priced.map((priced) => [priced.direction.id, priced.market]));
    expect(market['USDTTRC20>SBERRUB']?.toString()).toBe('96.6233333333');
    expect(new Decimal(1).dividedBy(market['SBERRUB>USDTTRC20']!).toSignificantDigits(12).toString()).toBe(
      '97.8333333333',
    );
  });

  it('holds both directions back when the book is too thin for the filters, saying so', async () => {
    const config = await configWith('amount: 500000, merchantsOnly: true, skip: 1, take: 4');
    const result = await build(config, { now, env: env() });
    expect(result.report.priced).toEqual([]);
    expect(result.report.sources[0]?.rejected).toEqual([
      `USDT/RUB (binance) in POST ${binancePath}: bid side: 0 adverts after filters, 5 needed (1 skipped + 4 averaged)`,
    ]);
    expect(result.report.withheld).toHaveLength(2);
  });
});
