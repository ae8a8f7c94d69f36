import { describe, expect, it } from 'vitest';
import { Decimal, formatDecimal } from '../../../../src/base/decimal.js';
import type { Currency, Direction } from '../../../../src/model/config.js';
import { findChain } from '../../../../src/pure/pricing/chains.js';
import { convertAlong } from '../../../../src/pure/pricing/convert.js';
import { priceDirection, priceDirections } from '../../../../src/pure/pricing/price.js';
import { publishedRate } from '../../../../src/pure/pricing/published.js';
import type { QuoteBook } from '../../../../src/model/source.js';
import { random } from '../../../support/random.js';
import { quoteBook, testCurrency, testDirection } from '../../../support/model.js';
import type { PricedDirection } from '../../../../src/model/priced.js';

const time = new Date('2026-11-21T12:00:00Z');

const book = (...rows: [pair: string, bid: string, ask: string][]): QuoteBook => quoteBook(time, 'test', ...rows);

const currency = testCurrency;

const BTC = currency('BTC', 'BTC', 8);
const ETH = currency('ETH', 'ETH', 8);
const USDT = currency('USDTTRC20', 'USDT', 2);
const SBER = currency('SBERRUB', 'RUB', 2);
const TCSB = currency('TCSBRUB', 'RUB', 2);
const CASH = currency('CASHRUB', 'RUB', 0);

/** Without a margin unless given: these tests read the market rate itself. */
const direction = (from: Currency, to: Currency, extra: Partial<Direction> = {}): Direction =>
  testDirection(from, to, { margin: new Decimal(0), ...extra });

const market = book(
  ['BTC/USDT', '97000', '97010'],
  ['USDT/RUB', '92.10', '92.40'],
  ['ETH/BTC', '0.032', '0.0321'],
  ['ETH/USDT', '3100', '3101'],
);

function priced(result: ReturnType<typeof priceDirection>): PricedDirection {
  if ('reason' in result) throw new Error(`withheld: ${result.reason}`);
  return result;
}

describe('convertAlong: the side worse for the client at every step', () => {
  it.each([
    // [chain, from asset, expected factor]
    [['BTC/USDT'], 'BTC', '97000'], // selling BTC: the bid
    [['BTC/USDT'], 'USDT', formatDecimal(new Decimal(1).div('97010'))], // buying BTC: the ask
    [['BTC/USDT', 'USDT/RUB'], 'BTC', formatDecimal(new Decimal('97000').times('92.10'))],
    [['USDT/RUB', 'BTC/USDT'], 'RUB', formatDecimal(new Decimal(1).div('92.40').div('97010'))],
    [['RUB/USDT'], 'RUB', formatDecimal(new Decimal(1).div('92.40'))], // inverted pair found as USDT/RUB
  ])('%j from %s → %s', (chain, from, expected) => {
    const result = convertAlong(market, chain, from);
    if ('missing' in result) throw new Error(`missing ${result.missing}`);
    expect(formatDecimal(result.factor)).toBe(expected);
  });

  it('uses the client-friendly side when asked for the optimistic conversion', () => {
    const result = convertAlong(market, ['BTC/USDT'], 'BTC', false);
    expect('factor' in result && formatDecimal(result.factor)).toBe('97010');
  });

  it('names the missing pair', () => {
    expect(convertAlong(market, ['BTC/EUR'], 'BTC')).toEqual({ missing: 'BTC/EUR' });
  });
});

describe('findChain', () => {
  it.each([
    ['BTC', 'USDT', ['BTC/USDT']],
    ['BTC', 'RUB', ['BTC/USDT', 'USDT/RUB']],
    ['RUB', 'ETH', ['USDT/RUB', 'ETH/USDT']],
    ['RUB', 'RUB', []],
  ])('%s → %s is %j', (from, to, chain) => {
    expect(findChain(market, from, to)).toEqual(chain);
  });

  it('finds nothing when no quotes connect the assets', () => {
    expect(findChain(market, 'BTC', 'EUR')).toBeUndefined();
  });

  it('a book without its stale quote gets its own chains, build after build (books alternating as a build with a stale quote makes them)', () => {
    const pairs: [string, string, string][] = [
      ['EUR/USD', '1.2', '1.2001'],
      ['EUR/RUB', '100', '101'],
      ['USD/RUB', '90', '91'],
    ];
    for (let build = 0; build < 3; build++) {
      const withStale = book(...pairs);
      const fresh = book(...pairs.slice(1));
      expect(findChain(withStale, 'EUR', 'USD')).toEqual(['EUR/USD']);
      expect(findChain(fresh, 'EUR', 'USD')).toEqual(['EUR/RUB', 'USD/RUB']);
      expect(
        formatDecimal(
          priced(
            priceDirection(direction(currency('CASHEUR', 'EUR', 4), currency('CASHUSD', 'USD', 4)), fresh),
          ).market.toDecimalPlaces(6),
        ),
      ).toBe('1.098901');
      expect(findChain(withStale, 'EUR', 'USD')).toEqual(['EUR/USD']);
    }
  });
});

describe('publishedRate: one side 1, the other ≥ 1, rounded against the client', () => {
  it.each([
    // [rate (to per from), from precision, to precision, in, out]
    ['8934832.99', 8, 2, '1', '8934832.99'],
    ['8934832.999', 8, 2, '1', '8934832.99'], // out rounded down
    ['95557.115', 8, 2, '1', '95557.11'],
    ['90.7185', 2, 0, '1', '90'], // to a currency without decimals
    ['1', 2, 2, '1', '1'],
    ['0.01066552', 2, 2, '93.77', '1'], // in = 1 / rate = 93.7600…, rounded up
    ['0.5', 2, 2, '2', '1'],
    ['0.0000103', 2, 8, '97087.38', '1'],
    ['0.0000103', 0, 8, '97088', '1'],
  ])('rate %s → %s:%s', (rate, fromPrecision, toPrecision, expectedIn, expectedOut) => {
    const result = publishedRate(new Decimal(rate), currency('A', 'A', fromPrecision), currency('B', 'B', toPrecision));
    expect([formatDecimal(result.in), formatDecimal(result.out)]).toEqual([expectedIn, expectedOut]);
    // never better for the client than the rate itself
    expect(result.out.div(result.in).lessThanOrEqualTo(rate)).toBe(true);
    expect(result.in.greaterThanOrEqualTo(1) && result.out.greaterThanOrEqualTo(1)).toBe(true);
  });

  it('rounds to the rate precision, which may be finer than the amount precision', () => {
    const usdt = currency('USDTTRC20', 'USDT', 2, '1000', 4);
    const usdc = currency('USDCERC20', 'USDC', 2, '1000', 4);
    // a 0.9% margin on a 1:1 swap: 1 / 0.991 = 1.00908…, published as 1.0091 instead of 1.01
    expect(formatDecimal(publishedRate(new Decimal('0.991'), usdt, usdc).in)).toBe('1.0091');
    expect(formatDecimal(publishedRate(new Decimal('0.991'), currency('A', 'A', 2), currency('B', 'B', 2)).in)).toBe(
      '1.01',
    );
  });
});

describe('priceDirection', () => {
  it.each([
    {
      from: BTC,
      to: SBER,
      margin: '0.015',
      chain: undefined,
      expected: new Decimal('97000').times('92.10').times('0.985'),
    },
    {
      from: BTC,
      to: SBER,
      margin: '0.015',
      chain: ['BTC/USDT', 'USDT/RUB'],
      expected: new Decimal('97000').times('92.10').times('0.985'),
    },
    { from: SBER, to: USDT, margin: '0.02', chain: undefined, expected: new Decimal(1).div('92.40').times('0.98') },
    { from: ETH, to: BTC, margin: '0.01', chain: ['ETH/BTC'], expected: new Decimal('0.032').times('0.99') },
    {
      from: ETH,
      to: BTC,
      margin: '0.01',
      chain: ['ETH/USDT', 'BTC/USDT'],
      expected: new Decimal('3100').div('97010').times('0.99'),
    },
    // same asset: no quote needed
    { from: SBER, to: TCSB, margin: '0.005', chain: undefined, expected: new Decimal('0.995') },
    // a negative margin favours the client
    { from: USDT, to: CASH, margin: '-0.001', chain: undefined, expected: new Decimal('92.10').times('1.001') },
  ])('$from.code → $to.code with margin $margin and chain $chain', ({ from, to, margin, chain, expected }) => {
    const result = priced(
      priceDirection(direction(from, to, { margin: new Decimal(margin), ...(chain ? { chain } : {}) }), market),
    );
    expect(result.rate.toFixed()).toBe(expected.toFixed());
  });

  it('records the quotes used, with the side taken', () => {
    const result = priced(priceDirection(direction(BTC, SBER), market));
    expect(result.steps.map((step) => `${step.pair}:${step.side}`)).toEqual(['BTC/USDT:bid', 'USDT/RUB:bid']);
  });

  it('holds back a direction whose chain has no quote, naming the pair', () => {
    const result = priceDirection(direction(BTC, SBER, { chain: ['BTC/EUR', 'EUR/RUB'] }), market);
    expect(result).toMatchObject({ reason: 'no quote for BTC/EUR' });
  });

  it('holds back a direction no quotes lead to', () => {
    expect(priceDirection(direction(BTC, currency('CASHEUR', 'EUR', 2)), market)).toMatchObject({
      reason: 'no quotes lead from BTC to EUR',
    });
  });

  it('holds back a direction without reserve', () => {
    expect(priceDirection(direction(BTC, SBER, { reserve: new Decimal(0) }), market)).toMatchObject({
      reason: 'no reserve of SBERRUB (0 at 2 decimals)',
    });
    // below the last decimal place it would be published as 0
    expect(priceDirection(direction(BTC, SBER, { reserve: new Decimal('0.004') }), market)).toMatchObject({
      reason: 'no reserve of SBERRUB (0.004 at 2 decimals)',
    });
  });

  describe('limits in the from currency, set in any currency, as published (min up, max down)', () => {
    const rate = new Decimal('97000').times('92.10');

    it('takes a from-currency limit as it is', () => {
      const result = priced(
        priceDirection(direction(BTC, SBER, { min: { value: new Decimal('0.001'), asset: 'BTC' } }), market),
      );
      expect(result.published.limits.min?.toFixed()).toBe('0.001');
    });

    it('converts a to-currency limit at the direction rate', () => {
      const result = priced(
        priceDirection(direction(BTC, SBER, { max: { value: new Decimal('500000'), asset: 'RUB' } }), market),
      );
      // rounded down to BTC's 8 places, as published
      expect(result.published.limits.max.toFixed()).toBe(
        new Decimal('500000').div(rate).toDecimalPlaces(8, Decimal.ROUND_DOWN).toFixed(),
      );
    });

    it('converts a limit in a third asset through the quote book, the higher amount for a minimum', () => {
      const result = priced(
        priceDirection(direction(BTC, SBER, { min: { value: new Decimal('100'), asset: 'USDT' } }), market),
      );
      // rounded up to BTC's 8 places, as published
      expect(result.published.limits.min?.toFixed()).toBe(
        new Decimal('100').div('97000').toDecimalPlaces(8, Decimal.ROUND_UP).toFixed(),
      );
    });

    it('converts a third-asset maximum to the lower amount', () => {
      const result = priced(
        priceDirection(direction(BTC, SBER, { max: { value: new Decimal('100'), asset: 'USDT' } }), market),
      );
      expect(result.published.limits.max.toFixed()).toBe(
        new Decimal('100').div('97010').toDecimalPlaces(8, Decimal.ROUND_DOWN).toFixed(),
      );
    });

    it('caps the maximum by what the reserve can pay', () => {
      const result = priced(
        priceDirection(
          direction(BTC, SBER, { reserve: new Decimal('920000'), max: { value: new Decimal('5'), asset: 'BTC' } }),
          market,
        ),
      );
      expect(result.published.limits.max.toFixed()).toBe(
        new Decimal('920000').div(rate).toDecimalPlaces(8, Decimal.ROUND_DOWN).toFixed(),
      );
    });

    it('holds back a direction whose minimum is above its maximum', () => {
      const result = priceDirection(
        direction(BTC, SBER, { reserve: new Decimal('9200'), min: { value: new Decimal('0.01'), asset: 'BTC' } }),
        market,
      );
      expect(result).toMatchObject({ reason: 'reserve 9200 SBERRUB is below the minimum order 0.01 BTC' });
    });

    it('holds back a direction whose minimum is above its configured maximum', () => {
      const limits = {
        min: { value: new Decimal('0.02'), asset: 'BTC' },
        max: { value: new Decimal('0.01'), asset: 'BTC' },
      };
      expect(priceDirection(direction(BTC, SBER, limits), market)).toMatchObject({
        reason: 'minimum 0.02 BTC is above the maximum 0.01 BTC',
      });
    });

    it('holds back a direction whose limit cannot be converted', () => {
      const result = priceDirection(direction(BTC, SBER, { min: { value: new Decimal('10'), asset: 'EUR' } }), market);
      expect(result).toMatchObject({ reason: 'cannot convert min 10 EUR to BTC: no quotes' });
    });
  });

  it('prices a list, keeping config order and separating the held back', () => {
    const result = priceDirections(
      [direction(BTC, SBER), direction(BTC, currency('CASHEUR', 'EUR', 2)), direction(SBER, USDT)],
      market,
    );
    expect(result.priced.map((p) => p.direction.id)).toEqual(['BTC>SBERRUB', 'SBERRUB>USDTTRC20']);
    expect(result.withheld.map((w) => w.direction.id)).toEqual(['BTC>CASHEUR']);
  });
});

describe('limits hold at the published rate and amount (defect 14)', () => {
  const LTC = currency('LTC', 'LTC', 8);
  const USDT4 = currency('USDTTRC20', 'USDT', 2, '485000', 4);
  const CARD = currency('CARDRUB', 'RUB', 2, '6500000');
  const quotes = book(
    ['LTC/USDT', '97.62275', '97.63'],
    ['USDT/RUB', '92.049', '92.3'],
    ['ETH/BTC', '0.032', '0.0321'],
  );
  const unit = (places: number) => new Decimal(1).div(new Decimal(10).pow(places));

  it.each([
    // LTC→USDTTRC20 at 97.62275, published as out 97.6227: the old minimum 0.20487028 bought 19.99999… USDT
    { from: LTC, to: USDT4, min: '20', asset: 'USDT', published: '1:97.6227' },
    // USDTTRC20→CARDRUB at 92.049, published as 92.04: the old minimum 108.64 bought 9,999.23 RUB
    { from: USDT4, to: CARD, min: '10000', asset: 'RUB', published: '1:92.04' },
  ])(
    'a minimum of $min $asset buys at least that at the published $published',
    ({ from, to, min, asset, published }) => {
      const result = priced(priceDirection(direction(from, to, { min: { value: new Decimal(min), asset } }), quotes));
      const form = publishedRate(result.rate, from, to);
      expect(`${formatDecimal(form.in)}:${formatDecimal(form.out)}`).toBe(published);
      const bought = (amount: Decimal) => amount.times(form.out).div(form.in);
      expect(bought(result.published.limits.min!).greaterThanOrEqualTo(min)).toBe(true);
      // and it is the smallest such amount at the from precision
      expect(bought(result.published.limits.min!.minus(unit(from.precision))).lessThan(min)).toBe(true);
    },
  );

  it('caps the maximum by the published <amount>, not the configured reserve', () => {
    // ETH→BTC at 0.032: a reserve of 4.123456789 BTC is published as 4.12345678; the old maximum 128.85802465 ETH paid 4.1234567888 BTC
    const result = priced(priceDirection(direction(ETH, BTC, { reserve: new Decimal('4.123456789') }), quotes));
    const form = publishedRate(result.rate, ETH, BTC);
    const paid = (amount: Decimal) => amount.times(form.out).div(form.in);
    expect(paid(result.published.limits.max).lessThanOrEqualTo('4.12345678')).toBe(true);
    expect(paid(result.published.limits.max.plus(unit(8))).greaterThan('4.12345678')).toBe(true);
  });

  it('converts a maximum in the to currency at the published rate, never paying more than it', () => {
    const result = priced(
      priceDirection(direction(USDT4, CARD, { max: { value: new Decimal('10000'), asset: 'RUB' } }), quotes),
    );
    expect(formatDecimal(result.published.limits.max)).toBe('108.64'); // 10000 ÷ 92.04 = 108.6484…, rounded down
    expect(result.published.limits.max.times('92.04').lessThanOrEqualTo(10000)).toBe(true);
  });

  it('withholds a direction whose minimum at the published rate passes its maximum', () => {
    // 10000 RUB is 108.65 USDT at 92.04 (108.64 at the unrounded 92.049), above a max of 108.64 USDT
    const limits = {
      min: { value: new Decimal('10000'), asset: 'RUB' },
      max: { value: new Decimal('108.64'), asset: 'USDT' },
    };
    expect(priceDirection(direction(USDT4, CARD, limits), quotes)).toMatchObject({
      reason: 'minimum 108.65 USDTTRC20 is above the maximum 108.64 USDTTRC20',
    });
  });
});

describe('work shared between directions (one rate per asset pair and margin, one set of limits per rate)', () => {
  function* randomDirections(count: number, seed: number): Generator<Direction> {
    const generator = random(seed);
    const next = (n: number) => Math.floor(generator() * n);
    const currencies = [
      BTC,
      ETH,
      USDT,
      SBER,
      TCSB,
      CASH,
      currency('CARDRUB', 'RUB', 2, '5000'),
      currency('USDTERC', 'USDT', 6, '20', 4),
    ];
    const margins = ['0', '0.015', '0.02', '-0.001'];
    const limits = [
      undefined,
      { value: '0.001', asset: 'BTC' },
      { value: '100', asset: 'USDT' },
      { value: '500000', asset: 'RUB' },
      { value: '3', asset: 'ETH' },
    ];
    for (let index = 0; index < count; index++) {
      const from = currencies[next(currencies.length)]!;
      const to = currencies[next(currencies.length)]!;
      if (from.asset === to.asset) continue;
      const [min, max] = [limits[next(limits.length)], limits[next(limits.length)]];
      yield direction(from, to, {
        index,
        margin: new Decimal(margins[next(margins.length)]!),
        reserve: next(3) === 0 ? new Decimal(['0.5', '70000', '0.001'][next(3)]!) : to.reserve,
        ...(min ? { min: { value: new Decimal(min.value), asset: min.asset } } : {}),
        ...(max ? { max: { value: new Decimal(max.value), asset: max.asset } } : {}),
      });
    }
  }

  const shown = (result: PricedDirection | { direction: Direction; reason: string }) =>
    'reason' in result
      ? { id: result.direction.id, index: result.direction.index, reason: result.reason }
      : {
          id: result.direction.id,
          index: result.direction.index,
          market: result.market.toString(),
          rate: result.rate.toString(),
          min: result.published.limits.min?.toString(),
          max: result.published.limits.max.toString(),
          steps: result.steps.map((step) => `${step.pair} ${step.side}`),
          tiers: result.tierRates?.map(String),
        };

  it('prices every direction exactly as it is priced alone', () => {
    const directions = [...randomDirections(600, 7)];
    const together = priceDirections(directions, market);
    expect(together.priced.length).toBeGreaterThan(100);
    expect(together.withheld.length).toBeGreaterThan(10);
    const sharedResults = [...together.priced, ...together.withheld]
      .sort((a, b) => a.direction.index - b.direction.index)
      .map(shown);
    // A copy of the book per direction: nothing can be shared with another direction.
    const alone = directions.map((d) => shown(priceDirection(d, new Map(market))));
    expect(sharedResults).toEqual(alone);
  });

  it('prices build after build as alone: groups, explicit chains and tiers, on books of the same pairs with new prices', () => {
    const generator = random(11);
    const moved = (factor: string): QuoteBook =>
      new Map(
        [...market].map(([pair, quote]) => [
          pair,
          {
            ...quote,
            bid: quote.bid.times(factor),
            ask: quote.ask.times(factor).plus(generator() < 0.5 ? '0' : '0.0001'),
          },
        ]),
      );
    const directions = [...randomDirections(600, 13)].map((d, k) => ({
      ...d,
      ...(k % 5 === 0 && d.from.asset === 'BTC' && d.to.asset === 'RUB' ? { chain: ['BTC/USDT', 'USDT/RUB'] } : {}),
      ...(k % 7 === 0
        ? {
            tiers: [
              { from: new Decimal('0.5'), margin: new Decimal('0.01') },
              { from: new Decimal('2'), margin: new Decimal('0.005') },
            ],
          }
        : {}),
    }));
    for (const factor of ['1', '1.013', '0.97', '1.013']) {
      const book = moved(factor);
      const together = priceDirections(directions, book);
      expect(together.priced.some((p) => p.tierRates !== undefined)).toBe(true);
      const sharedResults = [...together.priced, ...together.withheld]
        .sort((a, b) => a.direction.index - b.direction.index)
        .map(shown);
      // A copy of the book and of the direction: no plan or group of another direction or build is used (chains are
      // shared by books with the same pairs and priorities, by design).
      const alone = directions.map((d) => shown(priceDirection({ ...d }, new Map(book))));
      expect(sharedResults).toEqual(alone);
    }
  });
});
