// The bands of src/pure/moves/bands.ts: a move inside them never changes a number any export prints. Random exchangers
// (chains of one to three quotes, margins, markups, precisions, tiers, limits in the from, to or a third asset, pairs
// made by formulas and by a consensus) are priced, their bands taken, then their streamed quotes moved inside the
// bands and priced again: every published form, limit and tier step must print the same. BANDS_SEED explores others.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import type { Currency, Direction, Money } from '../../../../src/model/config.js';
import { ratesSchema } from '../../../../src/model/rates.js';
import type { Quote } from '../../../../src/model/source.js';
import {
  bandAround,
  bandKey,
  formulaElasticity,
  moveBands,
  movesOut,
  printSlack,
} from '../../../../src/pure/moves/bands.js';
import { priceDirections } from '../../../../src/pure/pricing/price.js';
import { publisherAt } from '../../../../src/pure/pricing/published.js';
import { makeBook } from '../../../../src/pure/rates/book.js';
import { rulesOf } from '../../../../src/pure/rates/rules.js';
import { spreadOf } from '../../../../src/pure/rates/consensus.js';
import { parseFormula } from '../../../../src/base/config/formula.js';
import { testCurrency, testDirection } from '../../../support/model.js';
import { random, type Next } from '../../../support/random.js';

const seed = Number(process.env.BANDS_SEED ?? 4646);
const now = new Date('2026-11-21T12:00:00Z');

describe('printSlack', () => {
  it('measures the distance to the next printed value, down and up, in ln', () => {
    // 95.123 prints 95.12 (down, 2 places): it may fall to 95.12 and rise below 95.13.
    const slack = printSlack(95.123, 2, 2);
    expect(slack).toBeCloseTo(Math.log(95.123 / 95.12), 12);
    // On a boundary, or within float error of one: no band.
    expect(printSlack(95.12, 2, 2)).toBe(0);
    expect(printSlack(95.12 + 1e-13, 2, 2)).toBe(0);
    // A grid finer than floats tell: no band.
    expect(printSlack(4_900_000.123456789, 2, 8)).toBe(0);
    // Below 1 the form is 1 : in, `in` rounded up: 1 / 0.0123 = 81.30…, printed 81.31 (2 places).
    const small = printSlack(0.0123, 2, 2);
    expect(small).toBeGreaterThan(0);
    expect(small).toBeLessThan(Math.log(81.31 / 81.3));
  });

  it('bounds how much a formula moves per move of its quotes', () => {
    const of = (text: string) => {
      const read = parseFormula(text);
      if ('problem' in read) throw new Error(read.problem);
      return formulaElasticity(read.node);
    };
    expect(of('BTC/USDT * USDT/RUB')).toBe(2);
    expect(of('BTC/USDT / 2')).toBe(1);
    expect(of('(a:BTC/USDT + b:BTC/USDT) / 2')).toBe(1);
    expect(of('BTC/USDT - 5')).toBeUndefined();
  });
});

const pick = <T>(next: Next, list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
const decimal = (next: Next, low: number, high: number, digits: number) =>
  new Decimal((low + (high - low) * next()).toFixed(digits));

/** A random exchanger around BTC, ETH, USDT, RUB and UAH: the live (streamed) source quotes three pairs. */
function exchanger(next: Next) {
  const btc = decimal(next, 60_000, 100_000, pick(next, [1, 2, 4]));
  const eth = decimal(next, 2_000, 4_000, pick(next, [2, 3]));
  const rub = decimal(next, 80, 100, pick(next, [2, 4]));
  const spread = (mid: Decimal) => mid.times(1 + next() * 0.001).toSignificantDigits(12);
  const q = (pair: string, bid: Decimal, ask: Decimal, source: string): Quote => {
    const [base = '', quote = ''] = pair.split('/');
    return { pair, base, quote, bid, ask, time: now, source };
  };
  const live = [
    q('BTC/USDT', btc, spread(btc), 'live'),
    q('ETH/USDT', eth, spread(eth), 'live'),
    q('USDT/RUB', rub, spread(rub), 'live'),
  ];
  const uah = decimal(next, 40, 45, 3);
  const rest = [
    q('USDT/UAH', uah, spread(uah), 'rest'),
    q('ETH/BTC', new Decimal('0.0321'), new Decimal('0.0322'), 'rest'),
  ];
  const other = [q('USDT/UAH', uah.times(1.0005).toSignificantDigits(8), spread(uah.times(1.0005)), 'other')];
  const liveUah = [q('USDT/UAH', uah.times(0.9998).toSignificantDigits(8), uah.toSignificantDigits(8), 'live-uah')];
  // A spread limit far off, just past the terms' spread now (a move may drop a term), or just short of it (one is dropped).
  const now_ = spreadOf([rest[0]!, other[0]!, liveUah[0]!]).times(100);
  const limit = pick(next, [
    undefined,
    '1%',
    `${now_.times(1 + 1e-6).toFixed(12)}%`,
    `${now_.times(1 - 1e-6).toFixed(12)}%`,
  ]);
  const rules = rulesOf(
    ratesSchema.parse({
      'BTC/RUB': pick(next, ['live:BTC/USDT * live:USDT/RUB', '(live:BTC/USDT + live:BTC/USDT) / 2 * live:USDT/RUB']),
      'USDT/UAH': { sources: ['rest', 'other', 'live-uah'], quorum: 2, ...(limit ? { spread: limit } : {}) },
    }),
  );
  return { lists: { live, rest, other, 'live-uah': liveUah }, rules };
}

function currencies(next: Next): Record<string, Currency> {
  const places = () => pick(next, [0, 2, 4, 6, 8]);
  return {
    BTC: testCurrency('BTC', 'BTC', 8, '5', pick(next, [4, 6, 8])),
    ETH: testCurrency('ETH', 'ETH', 6, '100', places()),
    USDT: testCurrency('USDTTRC20', 'USDT', pick(next, [2, 4, 6]), '500000', places()),
    RUB: testCurrency('SBERRUB', 'RUB', 2, '50000000', pick(next, [0, 2, 4])),
    UAH: testCurrency('CARDUAH', 'UAH', 2, '9000000', pick(next, [2, 4])),
  };
}

function directions(next: Next, money: Record<string, Currency>): Direction[] {
  const codes = Object.keys(money);
  const out: Direction[] = [];
  // Few directions now and then: a quote only a limit's conversion reads must still build when it moves.
  const count = next() < 0.3 ? 1 + Math.floor(next() * 3) : 24;
  for (let i = 0; i < count; i++) {
    const from = money[pick(next, codes)]!;
    const to =
      money[
        pick(
          next,
          codes.filter((code) => money[code] !== from),
        )
      ]!;
    const limit = (): Money | undefined => {
      const asset = pick(next, [from.asset, to.asset, 'USDT', 'BTC', undefined]);
      return asset === undefined ? undefined : { value: decimal(next, 10, 5_000, 2), asset };
    };
    const min = limit();
    const max =
      next() < 0.5 ? { value: decimal(next, 100_000, 900_000, 0), asset: pick(next, [to.asset, 'USDT']) } : undefined;
    const tiers = next() < 0.25 ? [{ from: new Decimal(1_000), margin: new Decimal('0.01') }] : undefined;
    out.push(
      testDirection(from, to, {
        id: `${from.code}>${to.code}#${i}`,
        margin: decimal(next, -0.01, 0.05, 4),
        ...(min ? { min } : {}),
        ...(max ? { max } : {}),
        ...(tiers ? { tiers } : {}),
      }),
    );
  }
  return out;
}

/** Everything an export prints of each direction at each markup (published forms, limits, tier steps, or the refusal), and which are withheld. */
function printed(dirs: readonly Direction[], book: ReturnType<typeof makeBook>['book'], markups: readonly Decimal[]) {
  const { priced, withheld } = priceDirections(dirs, book);
  const texts = markups.map((markup) => {
    const publish = publisherAt(markup);
    return priced.map((p) => JSON.stringify([p.direction.id, publish(p)]));
  });
  // A withheld direction is in no file: which are withheld counts, not the figures in their reasons.
  return { priced, text: JSON.stringify([texts, withheld.map((w) => [w.direction.id, w.kind])]) };
}

/** The quote with its sides moved inside its band (text as a venue sends it), or undefined when it cannot be. */
function moved(next: Next, quote: Quote, band: { bid: readonly [number, number]; ask: readonly [number, number] }) {
  const inside = ([lo, hi]: readonly [number, number], at: number) => {
    if (hi === Number.POSITIVE_INFINITY) return at * (1 + (next() - 0.5) * 0.02);
    return lo + (hi - lo) * (0.02 + 0.96 * next());
  };
  const bid = new Decimal(inside(band.bid, quote.bid.toNumber()).toPrecision(14));
  const ask = new Decimal(inside(band.ask, quote.ask.toNumber()).toPrecision(14));
  if (bid.gt(ask) || movesOut(band, bid.toNumber(), ask.toNumber())) return undefined;
  return { ...quote, bid, ask };
}

describe(`moveBands (BANDS_SEED=${seed})`, () => {
  it('no move inside the bands changes a printed number, over 500 random exchangers', () => {
    const next = random(seed);
    let changedQuotes = 0;
    for (let round = 0; round < 500; round++) {
      const { lists, rules } = exchanger(next);
      const money = currencies(next);
      const dirs = directions(next, money);
      const markups = [new Decimal(0), ...(next() < 0.6 ? [decimal(next, 0, 0.02, 4)] : [])];
      const sources = (each: typeof lists) => Object.entries(each).map(([source, quotes]) => ({ source, quotes }));
      const before = makeBook(sources(lists), rules, now);
      const first = printed(dirs, before.book, markups);
      const bands = moveBands({
        published: first.priced,
        markups,
        derivations: before.derivations,
        book: before.book,
        streamed: new Set(['live', 'live-uah']),
      });
      for (let move = 0; move < 5; move++) {
        const shifted = { ...lists };
        for (const source of ['live', 'live-uah'] as const)
          shifted[source] = lists[source].map((quote) => {
            // No band at all: the trigger lets it move as it likes, so the test does too.
            const around = bands.get(bandKey(source, quote.pair)) ?? bandOf(quote, Number.POSITIVE_INFINITY);
            const next_ = moved(next, quote, around);
            if (next_ && !next_.bid.eq(quote.bid)) changedQuotes++;
            return next_ ?? quote;
          });
        const after = makeBook(sources(shifted), rules, now);
        expect(printed(dirs, after.book, markups).text, `round ${round}, move ${move}`).toBe(first.text);
      }
    }
    // The property says something only if quotes did move inside their bands.
    expect(changedQuotes).toBeGreaterThan(1_000);
  });
});

const bandOf = (quote: Quote, ln: number) => ({
  bid: bandAround(quote.bid.toNumber(), ln),
  ask: bandAround(quote.ask.toNumber(), ln),
});

describe('a limit in a third asset', () => {
  it('bands the quotes its conversion through the book reads, even one no published rate reads', () => {
    const q = (pair: string, bid: string, ask: string, source: string): Quote => {
      const [base = '', quote = ''] = pair.split('/');
      return { pair, base, quote, bid: new Decimal(bid), ask: new Decimal(ask), time: now, source };
    };
    const rub = testCurrency('SBERRUB', 'RUB', 2, '50000000');
    const uah = testCurrency('CARDUAH', 'UAH', 2, '9000000');
    // RUB → UAH through USDT; its minimum, 0.05 BTC, is converted through BTC/USDT, which no rate reads.
    const dirs = [testDirection(rub, uah, { min: { value: new Decimal('0.05'), asset: 'BTC' } })];
    const book = (btc: string) =>
      makeBook(
        [
          { source: 'live', quotes: [q('BTC/USDT', btc, btc, 'live'), q('USDT/RUB', '98.71', '98.75', 'live')] },
          { source: 'rest', quotes: [q('USDT/UAH', '43.2693', '43.278', 'rest')] },
        ],
        [],
        now,
      ).book;
    const markups = [new Decimal(0)];
    const at = book('97012.3');
    const first = printed(dirs, at, markups);
    const bands = moveBands({
      published: first.priced,
      markups,
      derivations: [],
      book: at,
      streamed: new Set(['live']),
    });
    const band = bands.get(bandKey('live', 'BTC/USDT'));
    expect(band).toBeDefined();
    const [lo, hi] = band!.ask;
    expect(hi / lo).toBeLessThan(1.001);
    const inside = (lo + 97012.3) / 2;
    expect(printed(dirs, book(inside.toFixed(8)), markups).text).toBe(first.text);
    // Outside (here by 0.1%), the minimum prints differently: the band is not vacuous.
    expect(printed(dirs, book((97012.3 * 1.001).toFixed(8)), markups).text).not.toBe(first.text);
  });
});
