// One side of a P2P book made a price: the adverts a venue listed, filtered the way the config says (pay methods, an
// amount the advert must accept, merchants only), best first, the first `skip` left out as outliers, then the mean
// or the median of the next `take`. Pure: the `p2p` source (src/io/sources/p2p.ts) asks, this decides.
import { Decimal, formatDecimal, parseDecimal } from '../../base/decimal.js';
import { priceLengthProblem, priceText } from './values.js';

/** An advert as a venue lists it, its numbers still decimal text as sent. */
export interface Advert {
  price: unknown;
  /** The smallest and largest single trade the advert accepts, in fiat. */
  minAmount: unknown;
  maxAmount: unknown;
  /** The venue's identifiers of the pay methods it takes (`TinkoffNew`, `75`). */
  payMethods: readonly string[];
  /** Whether the advertiser is a merchant; undefined when the venue does not say (the search filtered already). */
  merchant: boolean | undefined;
}

export interface AdvertFilters {
  payMethods?: readonly string[] | undefined;
  /** An amount in fiat the advert must accept: between its smallest and largest single trade. */
  amount?: string | undefined;
  merchantsOnly: boolean;
  skip: number;
  take: number;
  average: 'mean' | 'median';
}

/** Significant digits a mean keeps (rounded half to even); a median is exact. */
export const meanDigits = 12;

/** A limit (`minAmount`) when it is plain decimal text of a bounded length; the amount filter reads only such. */
function limit(value: unknown): Decimal | undefined {
  return typeof value === 'string' && priceLengthProblem(value) === undefined ? parseDecimal(value) : undefined;
}

function accepts(advert: Advert, filters: AdvertFilters): boolean {
  if (filters.merchantsOnly && advert.merchant === false) return false;
  const wanted = filters.payMethods;
  if (wanted && wanted.length > 0 && !advert.payMethods.some((method) => wanted.includes(method))) return false;
  if (filters.amount === undefined) return true;
  // An advert whose limits cannot be read cannot be shown to accept the amount.
  const min = limit(advert.minAmount);
  const max = limit(advert.maxAmount);
  return (
    min !== undefined &&
    max !== undefined &&
    min.lessThanOrEqualTo(filters.amount) &&
    max.greaterThanOrEqualTo(filters.amount)
  );
}

function average(prices: readonly Decimal[], how: AdvertFilters['average']): Decimal {
  if (how === 'median') {
    const sorted = [...prices].sort((a, b) => a.comparedTo(b));
    const middle = Math.floor(sorted.length / 2);
    const upper = sorted[middle]!;
    return sorted.length % 2 === 1 ? upper : sorted[middle - 1]!.plus(upper).dividedBy(2);
  }
  const sum = prices.reduce((total, price) => total.plus(price), new Decimal(0));
  return sum.dividedBy(prices.length).toSignificantDigits(meanDigits, Decimal.ROUND_HALF_EVEN);
}

/**
 * The price of one side of a book out of its adverts, or why there is none. Every advert's price must be a positive
 * decimal (one that is not fails the side: a broken answer is not averaged); the adverts the filters keep are put
 * best first (the lowest price for the ask, where clients buy; the highest for the bid), `skip` are left out, and
 * the next `take` averaged. Fewer than `skip + take` after filters: a book too thin, no price.
 */
export function sidePrice(
  adverts: readonly Advert[],
  side: 'bid' | 'ask',
  filters: AdvertFilters,
): { price: string } | { problem: string } {
  const priced: { advert: Advert; price: Decimal }[] = [];
  for (const [index, advert] of adverts.entries()) {
    const read = priceText(advert.price);
    if ('problem' in read) return { problem: `advert ${index + 1} of the ${side} side: price ${read.problem}` };
    priced.push({ advert, price: new Decimal(read.text) });
  }
  const kept = priced.filter(({ advert }) => accepts(advert, filters));
  const needed = filters.skip + filters.take;
  if (kept.length < needed) {
    const skipped = filters.skip > 0 ? ` (${filters.skip} skipped + ${filters.take} averaged)` : '';
    return { problem: `${side} side: ${kept.length} adverts after filters, ${needed} needed${skipped}` };
  }
  // Array.prototype.sort is stable: equal prices keep the venue's order.
  kept.sort((a, b) => (side === 'ask' ? a.price.comparedTo(b.price) : b.price.comparedTo(a.price)));
  const used = kept.slice(filters.skip, needed).map(({ price }) => price);
  return { price: formatDecimal(average(used, filters.average)) };
}
