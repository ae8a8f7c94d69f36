// Every published limit holds at the rate and <amount> each export publishes: random directions, rendered and read back.
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import { renderClassic } from '../../../../src/pure/exports/classic.js';
import { selectExports } from '../../../../src/pure/exports/select.js';
import type { Currency, Direction, ExportTemplate, Money } from '../../../../src/model/config.js';
import { priceDirection, priceDirections } from '../../../../src/pure/pricing/price.js';
import type { Quote, QuoteBook } from '../../../../src/model/source.js';
import { random } from '../../../support/random.js';
import type { PricedDirection } from '../../../../src/model/priced.js';

const time = new Date('2026-11-21T12:00:00Z');

// Odd last digits, so rounding a rate to its published precision always changes it.
const book: QuoteBook = new Map(
  [
    ['BTC/USDT', '97012.37', '97013.89'],
    ['LTC/USDT', '97.62275', '97.6391'],
    ['ETH/BTC', '0.0320137', '0.0320411'],
    ['USDT/RUB', '92.0493', '92.3517'],
    ['EUR/USDT', '1.08437', '1.08519'],
  ].map(([pair, bid, ask]) => {
    const [base = '', quote = ''] = pair!.split('/');
    return [
      pair!,
      {
        pair: pair!,
        base,
        quote,
        bid: new Decimal(bid!),
        ask: new Decimal(ask!),
        time,
        source: 'test',
      } satisfies Quote,
    ];
  }),
);

function currency(code: string, asset: string, precision: number, ratePrecision: number, reserve: string): Currency {
  return { code, asset, precision, ratePrecision, reserve: new Decimal(reserve) };
}

const currencies = [
  currency('BTC', 'BTC', 8, 8, '4.123456789'),
  currency('LTC', 'LTC', 8, 8, '620'),
  currency('ETH', 'ETH', 6, 6, '96.5'),
  currency('USDTTRC20', 'USDT', 2, 4, '485000.555'),
  currency('USDTERC20', 'USDT', 6, 4, '20'),
  currency('CARDRUB', 'RUB', 2, 2, '6500000'),
  currency('CASHRUB', 'RUB', 0, 2, '25000000.7'),
  currency('SEPAEUR', 'EUR', 2, 4, '80000'),
];

/** Round numbers of each asset, from small to large, so limits sometimes cross and sometimes pass the reserve. */
const amounts: Record<string, string[]> = {
  BTC: ['0.0002', '0.001', '0.05', '2'],
  LTC: ['0.1', '0.2', '5', '300'],
  ETH: ['0.01', '0.3', '20'],
  USDT: ['20', '108.64', '300', '10000', '150000'],
  RUB: ['2000', '10000', '500000', '3000000'],
  EUR: ['20', '500', '40000'],
};

const templates: ExportTemplate[] = ['0', '0.005', '-0.003', '0.0123'].map((markup, k) => ({
  name: `export${k}`,
  file: `export${k}.xml`,
  format: 'classic',
  excludeTags: [],
  aliases: {},
  markup: new Decimal(markup),
}));

function randomDirections(count: number, seed: number): Direction[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const limit = (): Money | undefined => {
    if (next() < 0.3) return undefined;
    const asset = pick(Object.keys(amounts));
    return { value: new Decimal(pick(amounts[asset]!)), asset };
  };
  const directions: Direction[] = [];
  for (let index = 0; directions.length < count; index++) {
    const [from, to] = [pick(currencies), pick(currencies)];
    if (from.asset === to.asset) continue;
    const [min, max] = [limit(), limit()];
    directions.push({
      id: `${from.code}>${to.code}#${directions.length}`,
      index: directions.length,
      from,
      to,
      margin: new Decimal(pick(['0', '0.008', '0.015', '-0.002', '0.0333'])),
      reserve:
        next() < 0.3 ? new Decimal(pick(amounts[to.asset]!)).times(pick(['1', '1.00000371', '0.999999'])) : to.reserve,
      ...(min ? { min } : {}),
      ...(max ? { max } : {}),
      params: [],
      // The city names the direction in the files read back.
      cities: [`C${directions.length}`],
      tags: [],
    });
  }
  return directions;
}

const parser = new XMLParser({ parseTagValue: false, isArray: (name) => name === 'item' });

/** The items of a rendered file, as text, read back by a parser of its own. */
function readItems(bytes: Buffer): Record<string, string>[] {
  const document = parser.parse(bytes.toString('utf8')) as { rates: '' | { item: Record<string, string>[] } };
  return document.rates === '' ? [] : document.rates.item;
}

describe('published limits over random directions, read back from the rendered files', () => {
  const directions = randomDirections(1500, 14);
  const { priced, withheld } = priceDirections(directions, book);
  const selections = selectExports(priced, templates);

  it('hold at each export’s published rate and amount', () => {
    const counts = { items: 0, toMin: 0, fromMin: 0, toMax: 0, fromMax: 0, reserveBound: 0 };
    for (const [k, selection] of selections.entries()) {
      for (const item of readItems(renderClassic(selection))) {
        counts.items++;
        const direction = directions[Number(item.city!.slice(1))]!;
        const { from, to, min, max } = direction;
        const where = `${selections[k]!.file} ${direction.id}: ${JSON.stringify(item)}`;
        const [rateIn, rateOut] = [new Decimal(item.in!), new Decimal(item.out!)];
        const [amount, maxamount] = [new Decimal(item.amount!), new Decimal(item.maxamount!)];
        // What `value` of the from currency pays at the published rate, compared without dividing: value × out / in.
        const pays = (value: Decimal) => value.times(rateOut);
        const unit = new Decimal(1).div(new Decimal(10).pow(from.precision));
        expect(amount.toFixed(), where).toBe(
          direction.reserve.toDecimalPlaces(to.precision, Decimal.ROUND_DOWN).toFixed(),
        );
        expect(maxamount.decimalPlaces(), where).toBeLessThanOrEqual(from.precision);
        expect(maxamount.isPositive() && !maxamount.isZero(), where).toBe(true);
        expect(pays(maxamount).lessThanOrEqualTo(amount.times(rateIn)), where).toBe(true);
        if (pays(maxamount.plus(unit)).greaterThan(amount.times(rateIn))) counts.reserveBound++;
        if (max?.asset === to.asset) {
          counts.toMax++;
          expect(pays(maxamount).lessThanOrEqualTo(max.value.times(rateIn)), where).toBe(true);
        }
        if (max?.asset === from.asset) {
          counts.fromMax++;
          expect(maxamount.lessThanOrEqualTo(max.value), where).toBe(true);
        }
        if (!min) {
          expect(item.minamount, where).toBeUndefined();
          continue;
        }
        const minamount = new Decimal(item.minamount!);
        expect(minamount.decimalPlaces(), where).toBeLessThanOrEqual(from.precision);
        expect(minamount.lessThanOrEqualTo(maxamount), where).toBe(true);
        if (min.asset === to.asset) {
          counts.toMin++;
          expect(pays(minamount).greaterThanOrEqualTo(min.value.times(rateIn)), where).toBe(true);
          // the smallest such amount: one unit less buys less than the minimum
          expect(pays(minamount.minus(unit)).lessThan(min.value.times(rateIn)), where).toBe(true);
        }
        if (min.asset === from.asset) {
          counts.fromMin++;
          expect(minamount.greaterThanOrEqualTo(min.value), where).toBe(true);
          expect(minamount.minus(unit).lessThan(min.value), where).toBe(true);
        }
      }
    }
    // Every case is met often enough to mean something.
    expect(counts.items).toBeGreaterThan(2000);
    for (const [name, count] of Object.entries(counts)) expect(count, name).toBeGreaterThan(100);
  });

  it('withhold with a reason what fails, and leave a direction out of only the exports whose rate makes its limits cross', () => {
    expect(withheld.length).toBeGreaterThan(100);
    for (const w of withheld)
      expect(w.reason).toMatch(
        /^(minimum .* is above the maximum|reserve .* is below the minimum order|maximum order rounds to 0)/,
      );
    // Every priced direction is in each export, or left out of it with a reason.
    for (const selection of selections) expect(selection.items.length + selection.withheld.length).toBe(priced.length);
    const leftOut = selections.flatMap((selection) => selection.withheld);
    expect(leftOut.length).toBeGreaterThan(0);
    for (const w of leftOut)
      expect(w.reason).toMatch(
        /^export[1-3]\.xml: (minimum .* is above the maximum|reserve .* is below the minimum order)/,
      );
    // Without a markup the export publishes every direction pricing did.
    expect(selections[0]!.withheld).toEqual([]);
  });

  it('are the same for every direction priced and selected alone', () => {
    // A copy of the book per direction: nothing can be shared with another direction.
    const alone = directions.map((d) => priceDirection(d, new Map(book)));
    const pricedAlone = alone.filter((result): result is PricedDirection => !('reason' in result));
    expect(pricedAlone.map((p) => p.direction.id)).toEqual(priced.map((p) => p.direction.id));
    const selectedAlone = pricedAlone.map((p) => selectExports([p], templates));
    for (const [k, selection] of selections.entries()) {
      expect(selection.items).toEqual(selectedAlone.flatMap((models) => models[k]!.items));
      expect(selection.withheld.map((w) => `${w.direction.id}: ${w.reason}`)).toEqual(
        selectedAlone.flatMap((models) => models[k]!.withheld.map((w) => `${w.direction.id}: ${w.reason}`)),
      );
    }
  });
});
