// What the compete step keeps per feed (fields, the step that holds the place, limits at it) and per market
// object (floor and ceiling, shared by directions of one chain) never goes stale:
// build after build of one feed, as the market, a minReserve converted through the quotes and limits in a third
// asset move, a warm feed gives exactly what a cold one (a fresh object, nothing kept) gives. Seeded;
// COMPETE_SEED explores others. And the quick double tests of the place and the deviation agree with the exact ones.
import { describe, expect, it } from 'vitest';
import { parseFeed, type BestChangeFeed } from '../../../../src/pure/bestchange/feed.js';
import {
  approxOf,
  compareQuick,
  distrust,
  fieldCore,
  placeIn,
  placeOf,
  type FieldCore,
} from '../../../../src/pure/compete/field.js';
import { percent, show } from '../../../../src/base/words.js';
import { compareForms } from '../../../../src/pure/compete/grid.js';
import { competeDirections } from '../../../../src/pure/compete/price.js';
import { Decimal, formatDecimal } from '../../../../src/base/decimal.js';
import type { CompeteRule, Currency, Direction } from '../../../../src/model/config.js';
import { priceDirection } from '../../../../src/pure/pricing/price.js';
import type { Quote, QuoteBook } from '../../../../src/model/source.js';
import { base, dump } from '../../../support/bestchange.js';
import { competingDirection } from '../../../support/compete.js';
import { random, type Next } from '../../../support/random.js';
import type { PricedDirection, PublishedRate } from '../../../../src/model/priced.js';

const seed = Number(process.env.COMPETE_SEED ?? 2718);
const ONE = new Decimal(1);
const time = new Date(0);

const quote = (pair: string, bid: Decimal): [string, Quote] => {
  const [b = '', q = ''] = pair.split('/');
  return [pair, { pair, base: b, quote: q, bid, ask: bid.times('1.001'), time, source: 't' }];
};

/** A rate near `around`, written as BestChange writes it: give:get. */
function row(next: Next, around: Decimal, from: number, to: number, id: number, city: number): string {
  const rate = around.times(ONE.minus(new Decimal(next() * 0.05 - 0.005).toDecimalPlaces(5)));
  const [give, get] = rate.greaterThanOrEqualTo(1)
    ? [ONE, rate.toDecimalPlaces(Math.floor(next() * 6))]
    : [ONE.div(rate).toDecimalPlaces(Math.floor(next() * 6)), ONE];
  return `${from};${to};${id};${give.toFixed()};${get.toFixed()};${Math.floor(next() * 5000)};0.1;0;0;0;${city}`;
}

function ruleOf(next: Next): CompeteRule {
  const worst = 1 + Math.floor(next() * 5);
  const floor = new Decimal(next() * 0.01).toDecimalPlaces(4);
  const ignored = [10, 20, 30].filter(() => next() < 0.2);
  const reserve = next();
  return {
    source: 'bc',
    target: String(worst),
    best: worst,
    worst,
    step: new Decimal(['0', '0.0001', '0.002'][Math.floor(next() * 3)]!),
    floor,
    ceiling: floor.plus(new Decimal(0.01 + next() * 0.06).toDecimalPlaces(4)),
    deviation: new Decimal(['0.02', '0.1', '0.5'][Math.floor(next() * 3)]!),
    ignore: ignored.map(String),
    ignoreNames: new Set(),
    ignoreIds: new Set(ignored),
    // None, in the to asset (a fixed number), or in XC: converted through this build's quotes.
    ...(reserve < 0.3
      ? {}
      : { minReserve: { value: new Decimal(Math.floor(next() * 3000)), asset: reserve < 0.6 ? 'XB' : 'XC' } }),
  };
}

describe(`the compete step across builds of one feed (seed ${seed})`, () => {
  it('a warm feed gives what a cold one gives, as quotes, a converted minReserve and limits move', () => {
    const next = random(seed);
    const seen = { place: 0, floor: 0, ceiling: 0, fallback: 0, withheld: 0 };
    for (let n = 0; n < 40; n++) {
      const places = () => Math.floor(next() * 7);
      const BTC: Currency = {
        code: 'BTC',
        asset: 'XA',
        precision: 8,
        ratePrecision: places(),
        reserve: new Decimal('1e12'),
      };
      const RUB: Currency = {
        code: 'SBERRUB',
        asset: 'XB',
        precision: 2,
        ratePrecision: places(),
        reserve: new Decimal('1e12'),
      };
      const USD: Currency = {
        code: 'CASHUSD',
        asset: 'XD',
        precision: 2,
        ratePrecision: places(),
        reserve: new Decimal('1e12'),
      };
      const [rub, usd] = [
        new Decimal(10).pow(next() * 8 - 4).toSignificantDigits(6),
        new Decimal(10).pow(next() * 8 - 4).toSignificantDigits(6),
      ];
      const rows: string[] = [];
      for (let i = 0; i < 1 + Math.floor(next() * 10); i++)
        rows.push(row(next, rub, 2, 1, 10 * (1 + Math.floor(next() * 12)), 0));
      for (let i = 0; i < Math.floor(next() * 10); i++)
        rows.push(row(next, usd, 2, 3, 10 * (1 + Math.floor(next() * 12)), Math.floor(next() * 3)));
      const exchangers = Array.from({ length: 12 }, (_, i) => `${10 * (i + 1)};E${i + 1};;0;1`).join('\n');
      const feed = parseFeed(
        dump({
          ...base,
          'bm_exch.dat': exchangers,
          'bm_cities.dat': '1;Moscow\n2;Saint Petersburg\n',
          'bm_rates.dat': rows.join('\n'),
        }),
      );

      const limit = () =>
        next() < 0.5 ? {} : { min: { value: new Decimal(Math.floor(next() * 50)), asset: next() < 0.5 ? 'XA' : 'XC' } };
      const plain = (
        id: string,
        from: Currency,
        to: Currency,
        compete: CompeteRule,
        extra: Partial<Direction> = {},
      ): Direction => competingDirection(from, to, compete, { id, ...limit(), ...extra });
      const shared = ruleOf(next);
      const directions = [
        plain('BTC>SBERRUB', BTC, RUB, shared),
        // The same rule object at other rate precisions: what is kept is told apart by them too.
        plain('BTC>SBERRUB@2', { ...BTC, ratePrecision: places() }, { ...RUB, ratePrecision: places() }, shared),
        plain('BTC>CASHUSD', BTC, USD, ruleOf(next), { cities: ['MSK', 'SPB'] }),
        // A reserve about one minimum order at the market: whether it lasts depends on the rate (withheld or not).
        plain('BTC>SBERRUB@tight', BTC, RUB, ruleOf(next), {
          min: { value: ONE, asset: 'XA' },
          reserve: rub.times(0.97 + next() * 0.03).toDecimalPlaces(2),
        }),
      ];

      let [m1, m2, xc] = [rub, usd, new Decimal(10).pow(next() * 4 - 2).toSignificantDigits(5)];
      for (let b = 0; b < 6; b++) {
        // Quotes move, or stay the same value in new objects (as a rebuilt book has them).
        const move = (value: Decimal, by: number) =>
          next() < 0.3
            ? new Decimal(value.toString())
            : value.times(ONE.plus(new Decimal((next() * 2 - 1) * by).toDecimalPlaces(4)));
        // The third asset moves more, so a minReserve converted through it crosses rows' reserves.
        [m1, m2, xc] = [move(m1, 0.01), move(m2, 0.01), move(xc, 0.4)];
        const book: QuoteBook = new Map([
          quote('XA/XB', m1),
          quote('XA/XD', m2),
          quote('XC/XB', xc),
          quote('XC/XD', xc.times(m2).div(m1)),
          quote('XC/XA', ONE.div(m1).times(xc)),
        ]);
        const priced = directions
          .map((d) => priceDirection(d, book))
          .filter((p): p is PricedDirection => !('reason' in p));
        const run = (some: PricedDirection[], f: BestChangeFeed, b: QuoteBook) =>
          competeDirections({ priced: some, book: b, feeds: new Map([['bc', { feed: f, ageSeconds: 1 }]]) });
        const warm = run(priced, feed, book);
        // Cold: each direction alone, priced on a copy of the book (its own market objects), with a feed object nothing has seen.
        const cold = priced.map(({ direction }) => {
          const copy: QuoteBook = new Map(book);
          return run([priceDirection(direction, copy) as PricedDirection], { ...feed }, copy);
        });
        const context = `case ${n}, build ${b}: ${JSON.stringify({ rows, m1, m2, xc })}`;
        expect(warm.priced, context).toEqual(cold.flatMap((c) => c.priced));
        expect(warm.withheld, context).toEqual(cold.flatMap((c) => c.withheld));
        expect([...warm.details], context).toEqual(cold.flatMap((c) => [...c.details]));
        for (const detail of warm.details.values()) seen[detail.outcome.basis as keyof typeof seen]++;
        seen.withheld += warm.withheld.length;
      }
    }
    // Every basis, and limits failing at the compete rate, are reached: no path goes unchecked.
    const { withheld, ...bases } = seen;
    expect(Object.values(bases).every((count) => count > 5) && withheld > 0, JSON.stringify(seen)).toBe(true);
  });

  it('reads a feed once: a later build shares its rows, a new feed is read anew, and each build has its own places', () => {
    const rows = [
      '2;1;10;1;4960000;10000000;0.1;0;0;0;0',
      '2;1;20;1;4950000;500;0.1;0;0;0;0',
      '2;1;30;1;4940000.5;500;0.1;0;0;0;0',
    ];
    const exchangers = '10;Alpha;;0;1\n20;Beta;;0;1\n30;Gamma;;0;1\n';
    const read = () => parseFeed(dump({ ...base, 'bm_exch.dat': exchangers, 'bm_rates.dat': rows.join('\n') }));
    const BTC: Currency = { code: 'BTC', asset: 'BTC', precision: 8, ratePrecision: 8, reserve: new Decimal('100') };
    const RUB: Currency = {
      code: 'SBERRUB',
      asset: 'RUB',
      precision: 2,
      ratePrecision: 2,
      reserve: new Decimal('1e9'),
    };
    const rule: CompeteRule = {
      ...ruleOf(random(1)),
      worst: 2,
      best: 2,
      target: '2',
      step: new Decimal(0),
      floor: new Decimal('0.001'),
      ceiling: new Decimal('0.1'),
      deviation: new Decimal('0.1'),
      ignoreIds: new Set(),
      ignore: [],
    };
    const { minReserve: _, ...noReserve } = rule;
    const d: Direction = {
      id: 'BTC>SBERRUB',
      index: 0,
      from: BTC,
      to: RUB,
      margin: new Decimal('0.02'),
      reserve: RUB.reserve,
      params: [],
      cities: [],
      tags: [],
      compete: noReserve,
    };
    const buildAt = (market: string, feed: BestChangeFeed) => {
      const book: QuoteBook = new Map([quote('BTC/RUB', new Decimal(market))]);
      const priced = priceDirection(d, book) as PricedDirection;
      return competeDirections({ priced: [priced], book, feeds: new Map([['bc', { feed }]]) }).details.get(d.id)!;
    };
    const feed = read();
    const [first, second, other] = [buildAt('5000000', feed), buildAt('4951000', feed), buildAt('5000000', read())];
    expect(second.fields[0]!.entries).toBe(first.fields[0]!.entries);
    expect(other.fields[0]!.entries).not.toBe(first.fields[0]!.entries);
    expect(other.fields[0]!.entries).toEqual(first.fields[0]!.entries);
    // The place is this build's: at 4,951,000 the floor (0.1%) lets only 4,946,049 through, third place.
    expect([first.outcome.basis, first.fields[0]!.place, second.outcome.basis, second.fields[0]!.place]).toEqual([
      'place',
      2,
      'floor',
      3,
    ]);
  });
});

describe(`the quick double tests agree with the exact ones (seed ${seed})`, () => {
  it('placeIn counts what placeOf counts, and compareQuick says what compareForms says, at ties, one step either side and anywhere', () => {
    const next = random(seed + 1);
    for (let n = 0; n < 200; n++) {
      const places = Math.floor(next() * 9);
      const currency: Currency = { code: 'BTC', asset: 'XA', precision: 8, ratePrecision: places, reserve: ONE };
      const to: Currency = { ...currency, code: 'SBERRUB', asset: 'XB' };
      const market = new Decimal(10).pow(next() * 10 - 5).toSignificantDigits(7);
      const rows = Array.from({ length: 1 + Math.floor(next() * 12) }, (_, i) =>
        row(next, market, 2, 1, 10 * (i + 1), 0),
      );
      const exchangers = Array.from({ length: 12 }, (_, i) => `${10 * (i + 1)};E${i + 1};;0;1`).join('\n');
      const feed = parseFeed(dump({ ...base, 'bm_exch.dat': exchangers, 'bm_rates.dat': rows.join('\n') }));
      const core = fieldCore(
        feed,
        currency,
        to,
        { ...ruleOf(next), ignoreIds: new Set(), worst: 1 },
        undefined,
        undefined,
      );
      const unit = ONE.div(new Decimal(10).pow(places));
      // Each row's own rate (a tie), a step either side of it, in both published shapes.
      const forms: PublishedRate[] = core.counted.flatMap(({ row: r }): PublishedRate[] => {
        const [give, get] = [new Decimal(r.give), new Decimal(r.get)];
        const tie = give.equals(ONE) ? { in: ONE, out: get } : { in: give, out: ONE };
        const side = give.equals(ONE)
          ? (delta: Decimal) => ({ in: ONE, out: get.plus(delta) })
          : (delta: Decimal) => ({ in: give.minus(delta), out: ONE });
        return [tie, side(unit), side(unit.negated()), side(new Decimal('1e-30'))];
      });
      const valid = forms.filter((form) => form.in.greaterThan(0) && form.out.greaterThan(0));
      for (const form of valid) {
        expect(placeIn(core, form, approxOf(form)), JSON.stringify({ rows, form })).toBe(placeOf(form, core.counted));
        const other = valid[Math.floor(next() * valid.length)]!;
        expect(compareQuick(form, approxOf(form), other, approxOf(other)), JSON.stringify({ form, other })).toBe(
          compareForms(form, other),
        );
      }
    }
  });

  it('distrust says what the plain division says, at the limit and either side of it', () => {
    const next = random(seed + 2);
    for (let n = 0; n < 300; n++) {
      const market = new Decimal(10).pow(next() * 10 - 5).toSignificantDigits(9);
      const deviation = new Decimal(next() * 0.2).toDecimalPlaces(3);
      const offset = [
        deviation,
        deviation.negated(),
        deviation.plus('1e-30'),
        deviation.minus('1e-30'),
        new Decimal(next() * 0.4 - 0.2),
      ][Math.floor(next() * 5)]!;
      const median = market.times(ONE.plus(offset));
      const core: FieldCore = {
        entries: [],
        counted: [],
        approx: new Float64Array(),
        median,
        medianApprox: median.toNumber(),
      };
      const rule = { ...ruleOf(next), deviation };
      const off = median.minus(market).abs().div(market);
      const expected = off.greaterThan(deviation)
        ? `the median of the top 0 competitors, ${show(median)}, is ${formatDecimal(off.times(100).toDecimalPlaces(2))}% from the market ${show(market)} (limit ${percent(deviation)})`
        : undefined;
      expect(distrust([core], market, market.toNumber(), rule), JSON.stringify({ market, median, deviation })).toBe(
        expected,
      );
    }
  });
});
