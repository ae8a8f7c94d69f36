// priceDirections: market rate through a chain of quotes, the margin, and what it publishes (published.ts); priced by groups. Pure.
import { Decimal } from '../../base/decimal.js';
import type { Direction } from '../../model/config.js';
import type { PricedDirection, WithheldDirection, WithheldKind } from '../../model/priced.js';
import type { QuoteBook } from '../../model/source.js';
import { findChain } from './chains.js';
import { conversion } from './convert.js';
import { marginRate, planOf, termsOf } from './plan.js';
import { publicationAt } from './published.js';

const ONE = new Decimal(1);

/** What every direction of a group gets from one book: the work of its first direction, shared. */
type GroupPrice = Pick<PricedDirection, 'steps' | 'market' | 'rate' | 'terms' | 'published'>;

/**
 * Group prices per quote book (a book is a new Map per build, never changed once priced), by plan group.
 * `null`: the group's first direction was withheld; each of its directions is then priced alone, since
 * reasons name currency codes and a group shares only numbers.
 */
const groupPrices = new WeakMap<QuoteBook, Map<string, GroupPrice | null>>();

/** Price one direction, or say why it cannot be published: once per group and book, the rest shared. */
export function priceDirection(direction: Direction, book: QuoteBook): PricedDirection | WithheldDirection {
  return priceInGroup(direction, book, groupsOf(book));
}

function groupsOf(book: QuoteBook): Map<string, GroupPrice | null> {
  let byGroup = groupPrices.get(book);
  if (!byGroup) groupPrices.set(book, (byGroup = new Map()));
  return byGroup;
}

function priceInGroup(
  direction: Direction,
  book: QuoteBook,
  byGroup: Map<string, GroupPrice | null>,
): PricedDirection | WithheldDirection {
  const { group } = planOf(direction);
  const known = byGroup.get(group);
  if (known === null) return priceAlone(direction, book);
  if (known !== undefined) {
    const { steps, market, rate, terms, published } = known;
    const priced: PricedDirection = { direction, steps, market, rate, terms, published };
    if (direction.tiers !== undefined) priced.tierRates = tierRates(direction.tiers, market);
    return priced;
  }
  const result = priceAlone(direction, book);
  byGroup.set(group, 'reason' in result ? null : result);
  return result;
}

/** Price one direction step by step: the reference the group path shares the results of. */
function priceAlone(direction: Direction, book: QuoteBook): PricedDirection | WithheldDirection {
  const withhold = (kind: WithheldKind, reason: string): WithheldDirection => ({ direction, kind, reason });
  const { from, to } = direction;
  const chain = direction.chain ?? findChain(book, from.asset, to.asset);
  if (!chain) return withhold('quote', `no quotes lead from ${from.asset} to ${to.asset}`);
  const converted = conversion(book, chain, from.asset);
  if ('missing' in converted)
    return withhold(
      'quote',
      `no quote for ${converted.missing}${converted.why === undefined ? '' : ` (${converted.why})`}`,
    );
  const market = converted.factor;
  const rate = marginRate(converted, direction);
  if (!rate.isFinite() || rate.lessThanOrEqualTo(0))
    return withhold('sanity', `rate ${rate.toFixed()} is not positive`);
  if (!planOf(direction).reserveShown)
    return withhold('limits', `no reserve of ${to.code} (${direction.reserve.toFixed()} at ${to.precision} decimals)`);
  const terms = termsOf(direction, book);
  if ('reason' in terms) return withhold(terms.kind, terms.reason);
  // Withheld when its limits fail at its own published rate; an export with a markup checks again at its rate.
  const published = publicationAt(direction, terms, rate);
  if ('reason' in published) return withhold(published.kind, published.reason);
  const priced: PricedDirection = { direction, steps: converted.steps, market, rate, terms, published };
  if (direction.tiers !== undefined) priced.tierRates = tierRates(direction.tiers, market);
  return priced;
}

/** The rates of a direction's amount tiers: the market after each tier's margin (tiers.ts publishes them). */
function tierRates(tiers: NonNullable<Direction['tiers']>, market: Decimal): Decimal[] {
  return tiers.map((tier) => market.times(ONE.minus(tier.margin)));
}

export function priceDirections(
  directions: readonly Direction[],
  book: QuoteBook,
): { priced: PricedDirection[]; withheld: WithheldDirection[] } {
  const priced: PricedDirection[] = [];
  const withheld: WithheldDirection[] = [];
  const byGroup = groupsOf(book);
  for (const direction of directions) {
    const result = priceInGroup(direction, book, byGroup);
    if ('reason' in result) withheld.push(result);
    else priced.push(result);
  }
  return { priced, withheld };
}
