// Conversion along a chain of quotes, bid or ask side, and limits set in a third asset converted through the book. Pure.
import { compact, Decimal } from '../../base/decimal.js';
import type { Direction, Money } from '../../model/config.js';
import type { ChainStep } from '../../model/priced.js';
import type { Quote, QuoteBook } from '../../model/source.js';
import { findChain } from './chains.js';

const ONE = new Decimal(1);

/** Per quote book: the conversions along chains in it and the third-asset limits, so 10,000 directions convert once per asset pair. */
const books = new WeakMap<
  QuoteBook,
  {
    conversions: WeakMap<readonly string[], Map<string, ReturnType<typeof convertAlong>>>;
    limits: Map<string, Decimal | undefined>;
  }
>();

function workOf(book: QuoteBook) {
  let entry = books.get(book);
  if (!entry) {
    entry = { conversions: new WeakMap(), limits: new Map() };
    books.set(book, entry);
  }
  return entry;
}

/** Look a pair up as written or inverted (`USDT/RUB` also finds a `RUB/USDT` quote). */
function lookUp(book: QuoteBook, pair: string): Quote | undefined {
  const found = book.get(pair);
  if (found) return found;
  const [base, quote] = pair.split('/');
  return book.get(`${quote}/${base}`);
}

/**
 * Convert one unit of `from` along `pairs`. Pessimistic: the side that gives less at every step (the
 * client's side of a trade). Optimistic: the side that gives more, used where "safe" means a higher amount.
 */
export function convertAlong(
  book: QuoteBook,
  pairs: readonly string[],
  from: string,
  pessimistic = true,
): { factor: Decimal; steps: ChainStep[] } | { missing: string; why?: string } {
  let asset = from;
  let factor = ONE;
  const steps: ChainStep[] = [];
  for (const pair of pairs) {
    const quote = lookUp(book, pair);
    if (!quote) return { missing: pair };
    // A pair of `rates:` that could not be made this build: the chain fails with its reason.
    if (quote.missing !== undefined) return { missing: pair, why: `${quote.source}: ${quote.missing}` };
    if (quote.base === asset) {
      const side = pessimistic ? 'bid' : 'ask';
      // Times 1 is the quote itself (rounded to the working precision only when longer, as the product would be).
      factor = steps.length === 0 && quote[side].sd() <= Decimal.precision ? quote[side] : factor.times(quote[side]);
      steps.push({ pair: quote.pair, side, quote });
      asset = quote.quote;
    } else {
      const side = pessimistic ? 'ask' : 'bid';
      factor = factor.div(quote[side]);
      steps.push({ pair: quote.pair, side, quote });
      asset = quote.base;
    }
  }
  // Kept with the build's priced directions, their market.
  return { factor: compact(factor), steps };
}

/** convertAlong, remembered per quote book and chain (found chains are shared arrays): directions sharing assets share one conversion. */
export function conversion(
  book: QuoteBook,
  pairs: readonly string[],
  from: string,
  pessimistic = true,
): ReturnType<typeof convertAlong> {
  const { conversions } = workOf(book);
  let byStart = conversions.get(pairs);
  if (!byStart) conversions.set(pairs, (byStart = new Map()));
  const key = pessimistic ? from : `${from}|optimistic`;
  let result = byStart.get(key);
  if (!result) {
    result = convertAlong(book, pairs, from, pessimistic);
    byStart.set(key, result);
  }
  return result;
}

/**
 * A limit set in an asset other than the from and to assets, as an amount of the from asset; undefined when the
 * book cannot convert it. Once per book and limit (value, asset, from asset, side): directions share it.
 */
export function limitThroughBook(
  limit: Money,
  direction: Direction,
  book: QuoteBook,
  roundUpward: boolean,
  key: string,
): Decimal | undefined {
  const { limits } = workOf(book);
  if (limits.has(key)) return limits.get(key);
  const chain = findChain(book, limit.asset, direction.from.asset);
  const converted = chain && conversion(book, chain, limit.asset, !roundUpward);
  const value = !converted || 'missing' in converted ? undefined : limit.value.times(converted.factor);
  limits.set(key, value);
  return value;
}
