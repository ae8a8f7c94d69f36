// Hundreds of random fields (seeded; COMPETE_SEED explores others): the published rate always lies between the
// ceiling and the floor around the market, gets the place the field says, holds the place when it can, and is
// never more generous than needed: one published step less generous loses the place or falls short of the step.
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../../../src/pure/bestchange/feed.js';
import { competeDirections } from '../../../../src/pure/compete/price.js';
import { Decimal } from '../../../../src/base/decimal.js';
import type { CompeteRule, Currency } from '../../../../src/model/config.js';
import { priceDirection } from '../../../../src/pure/pricing/price.js';
import { publishedRate } from '../../../../src/pure/pricing/published.js';
import { base, dump } from '../../../support/bestchange.js';
import { random } from '../../../support/random.js';
import { competingDirection } from '../../../support/compete.js';
import type { QuoteBook } from '../../../../src/model/source.js';
import type { PublishedRate } from '../../../../src/model/priced.js';

const seed = Number(process.env.COMPETE_SEED ?? 1313);
const ONE = new Decimal(1);

/** -1, 0, 1 as the client gets less, as much, more at form `a` than at get/give `b` (exact: cross-multiplied). */
const versus = (a: PublishedRate, get: Decimal, give: Decimal) => a.out.times(give).comparedTo(get.times(a.in));

describe(`competeDirections on random fields (seed ${seed})`, () => {
  it('stays inside [ceiling, floor], gets the place counted, holds it when it can, and never gives more than needed', () => {
    const next = random(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const seen = { place: 0, floor: 0, ceiling: 0, fallback: 0 };
    for (let n = 0; n < 400; n++) {
      const fromPlaces = Math.floor(next() * 9);
      const toPlaces = Math.floor(next() * 9);
      const from: Currency = {
        code: 'BTC',
        asset: 'XA',
        precision: 8,
        ratePrecision: fromPlaces,
        reserve: new Decimal('1e12'),
      };
      const to: Currency = {
        code: 'SBERRUB',
        asset: 'XB',
        precision: 8,
        ratePrecision: toPlaces,
        reserve: new Decimal('1e12'),
      };
      const market = new Decimal(10).pow(next() * 10 - 5).toSignificantDigits(8);
      const book: QuoteBook = new Map([
        [
          'XA/XB',
          {
            pair: 'XA/XB',
            base: 'XA',
            quote: 'XB',
            bid: market,
            ask: market.times('1.001'),
            time: new Date(0),
            source: 't',
          },
        ],
      ]);

      // Competitors around the market, written as BestChange writes them: 1:get, or give:1 when get < 1.
      const rows: string[] = [];
      const competitors: { id: number; get: Decimal; give: Decimal; reserve: Decimal }[] = [];
      const count = Math.floor(next() * 12);
      for (let i = 0; i < count; i++) {
        const rate = market.times(ONE.minus(new Decimal(next() * 0.1 - 0.02).toDecimalPlaces(5)));
        const [give, get] = rate.greaterThanOrEqualTo(1)
          ? [ONE, rate.toDecimalPlaces(Math.floor(next() * 10))]
          : [ONE.div(rate).toDecimalPlaces(Math.floor(next() * 10)), ONE];
        if (get.isZero() || give.isZero()) continue;
        const reserve = new Decimal(Math.floor(next() * 5000));
        const id = 10 * (i + 1);
        competitors.push({ id, get, give, reserve });
        rows.push(`2;1;${id};${give.toFixed()};${get.toFixed()};${reserve.toFixed()};0.1;0;0;0;0`);
      }
      if (rows.length === 0) rows.push('1;2;10;1;1;1;0;0;0;0;0'); // a feed needs a row; this one is another direction
      const exchangers = Array.from({ length: 12 }, (_, i) => `${10 * (i + 1)};E${i + 1};;0;1`).join('\n');
      const feed = parseFeed(dump({ ...base, 'bm_exch.dat': exchangers, 'bm_rates.dat': rows.join('\n') }));

      const floor = new Decimal(next() * 0.02).toDecimalPlaces(4);
      const worst = 1 + Math.floor(next() * 8);
      const ignored = competitors.filter(() => next() < 0.15).map((c) => c.id);
      const minReserve = next() < 0.3 ? new Decimal(Math.floor(next() * 3000)) : undefined;
      const rule: CompeteRule = {
        source: 'bc',
        target: String(worst),
        best: 1 + Math.floor(next() * worst),
        worst,
        step: new Decimal(pick(['0', '0.0001', '0.001', '0.005'])),
        floor,
        ceiling: floor.plus(new Decimal(next() * 0.05).toDecimalPlaces(4)),
        deviation: new Decimal('0.05'),
        ignore: ignored.map(String),
        ignoreNames: new Set(),
        ignoreIds: new Set(ignored),
        ...(minReserve ? { minReserve: { value: minReserve, asset: 'XB' } } : {}),
      };
      const direction = competingDirection(from, to, rule, { index: n });
      const margined = priceDirection(direction, book);
      if ('reason' in margined) throw new Error(margined.reason);
      const result = competeDirections({ priced: [margined], book, feeds: new Map([['bc', { feed, ageSeconds: 1 }]]) });
      const priced = result.priced[0]!;
      const outcome = priced.compete!;
      seen[outcome.basis as keyof typeof seen]++;
      const context = `case ${n}: ${JSON.stringify({ market, fromPlaces, toPlaces, rows, rule: { ...rule, ignoreIds: ignored } })} → ${JSON.stringify(outcome)}`;

      const form = publishedRate(priced.rate, from, to);
      const counted = competitors
        .filter((c) => !ignored.includes(c.id) && !(minReserve && c.reserve.lessThan(minReserve)))
        .sort((a, b) => b.get.times(a.give).comparedTo(a.get.times(b.give)));
      const placeAt = (f: PublishedRate) => 1 + counted.filter((c) => versus(f, c.get, c.give) <= 0).length;
      expect(outcome.place, context).toBe(placeAt(form));
      expect(outcome.competitors, context).toBe(counted.length);
      if (outcome.basis === 'fallback') {
        expect(priced.rate, context).toBe(margined.rate);
        continue;
      }
      const floorRate = market.times(ONE.minus(rule.floor));
      const ceilingRate = market.times(ONE.minus(rule.ceiling));
      // Never more generous than the floor; never less than the ceiling unless no published step fits between.
      expect(versus(form, floorRate, ONE), context).toBeLessThanOrEqual(0);
      const lessGenerous: PublishedRate =
        form.in.equals(ONE) && form.out.minus(ONE.div(new Decimal(10).pow(toPlaces))).greaterThanOrEqualTo(1)
          ? { in: ONE, out: form.out.minus(ONE.div(new Decimal(10).pow(toPlaces))) }
          : { in: form.in.plus(ONE.div(new Decimal(10).pow(fromPlaces))), out: ONE };
      const roomBetween = versus(lessGenerous, ceilingRate, ONE) >= 0 || versus(form, ceilingRate, ONE) >= 0;
      if (roomBetween) expect(versus(form, ceilingRate, ONE), context).toBeGreaterThanOrEqual(0);
      const rival = counted[worst - 1];
      if (outcome.basis === 'place') {
        expect(outcome.place, context).toBeLessThanOrEqual(worst);
        // One step less generous loses the place, or is no longer `step` better than the rival.
        const target = rival!.get.div(rival!.give).times(ONE.plus(rule.step));
        expect(placeAt(lessGenerous) > worst || versus(lessGenerous, target, ONE) < 0, context).toBe(true);
      }
      if (outcome.basis === 'ceiling' && roomBetween) {
        expect(outcome.place, context).toBeLessThanOrEqual(worst);
        expect(versus(lessGenerous, ceilingRate, ONE), context).toBeLessThan(0);
      }
      if (outcome.basis === 'floor' && roomBetween) {
        // Pinned: the place needs more than the floor allows, and one step more would pass the floor.
        expect(rival, context).toBeDefined();
        expect(versus(form, rival!.get, rival!.give) <= 0 || rule.step.greaterThan(0), context).toBe(true);
        const moreGenerous: PublishedRate = form.in.equals(ONE)
          ? { in: ONE, out: form.out.plus(ONE.div(new Decimal(10).pow(toPlaces))) }
          : { in: form.in.minus(ONE.div(new Decimal(10).pow(fromPlaces))), out: ONE };
        if (moreGenerous.in.greaterThanOrEqualTo(1))
          expect(versus(moreGenerous, floorRate, ONE), context).toBeGreaterThan(0);
      }
    }
    // The random fields reach every basis, so no branch goes untested.
    expect(
      Object.values(seen).every((count) => count > 10),
      JSON.stringify(seen),
    ).toBe(true);
  });
});
