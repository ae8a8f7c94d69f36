// The model as the config loader makes it, for tests of the pure steps: a quote book, a currency and a direction.
import { Decimal } from '../../src/base/decimal.js';
import type { Currency, Direction } from '../../src/model/config.js';
import type { Quote, QuoteBook } from '../../src/model/source.js';

/** A quote book from `[pair, bid, ask]` rows, every quote taken at `time` from source `source`. */
export function quoteBook(time: Date, source: string, ...rows: [pair: string, bid: string, ask: string][]): QuoteBook {
  return new Map(
    rows.map(([pair, bid, ask]) => {
      const [base = '', quote = ''] = pair.split('/');
      const entry: Quote = { pair, base, quote, bid: new Decimal(bid), ask: new Decimal(ask), time, source };
      return [pair, entry];
    }),
  );
}

/** A currency; its rate precision is its amount precision unless given, its reserve one no test runs out of. */
export const testCurrency = (
  code: string,
  asset: string,
  precision: number,
  reserve = '1000000000',
  ratePrecision = precision,
): Currency => ({ code, asset, precision, ratePrecision, reserve: new Decimal(reserve) });

/** A direction at a 2% margin, reserve from the to currency, no limits, cities or tags; `extra` overrides any field. */
export const testDirection = (from: Currency, to: Currency, extra: Partial<Direction> = {}): Direction => ({
  id: `${from.code}>${to.code}`,
  index: 0,
  from,
  to,
  margin: new Decimal('0.02'),
  reserve: to.reserve,
  params: [],
  cities: [],
  tags: [],
  ...extra,
});
