// A consensus of several terms for one pair: the fresh terms counted against the quorum, an outlier past the spread
// limit dropped while a quorum remains, then bids and asks combined apart by the method. Pure.
import { Decimal } from '../../base/decimal.js';
import { percent } from '../../base/words.js';
import type { ConsensusMethod, ConsensusRule } from '../../model/rates.js';
import type { Sides } from './evaluate.js';

const TWO = new Decimal(2);

/** A fresh term: its sides, and its place among the rule's terms. */
export interface FreshTerm extends Sides {
  index: number;
}

export interface ConsensusResult {
  /** The terms dropped as outliers, by their place among the rule's terms, with why (missing terms are the caller's). */
  dropped: Map<number, string>;
  spread?: Decimal;
  sides?: Sides;
  missing?: string;
}

/** A spread for people: three significant digits are enough to compare with a limit. */
export const shortPercent = (fraction: Decimal): string => percent(fraction.toSignificantDigits(3));

export const midOf = (sides: Sides): Decimal => sides.bid.plus(sides.ask).div(TWO);

/** The middle value, or the mean of the two middle ones. */
export function median(values: readonly Decimal[]): Decimal {
  const sorted = [...values].sort((a, b) => a.comparedTo(b));
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : sorted[middle - 1]!.plus(sorted[middle]!).div(TWO);
}

function mean(values: readonly Decimal[]): Decimal {
  return values.reduce((sum, value) => sum.plus(value), new Decimal(0)).div(values.length);
}

/** Without the lowest and the highest value. */
function trimmedMean(values: readonly Decimal[]): Decimal {
  const sorted = [...values].sort((a, b) => a.comparedTo(b));
  return mean(sorted.slice(1, -1));
}

/** (highest mid − lowest mid) ÷ the median mid. */
export function spreadOf(terms: readonly Sides[]): Decimal {
  const mids = terms.map(midOf);
  const [low, high] = [Decimal.min(...mids), Decimal.max(...mids)];
  return high.minus(low).div(median(mids));
}

export function combine(method: ConsensusMethod, terms: readonly Sides[]): Sides {
  const bids = terms.map((term) => term.bid);
  const asks = terms.map((term) => term.ask);
  switch (method) {
    case 'median':
      return { bid: median(bids), ask: median(asks) };
    case 'mean':
      return { bid: mean(bids), ask: mean(asks) };
    case 'trimmed':
      return { bid: trimmedMean(bids), ask: trimmedMean(asks) };
    case 'worst':
      return { bid: Decimal.min(...bids), ask: Decimal.max(...asks) };
  }
}

/**
 * The consensus of the fresh terms. Fewer than the quorum: missing. Past the spread limit: the term furthest from
 * the median mid is dropped (none when two are equally far: nothing tells which is wrong), again while the
 * spread is past the limit and a quorum remains; otherwise missing.
 */
export function consensusOf(
  rule: ConsensusRule,
  fresh: readonly FreshTerm[],
  labels: readonly string[],
): ConsensusResult {
  const dropped = new Map<number, string>();
  if (fresh.length < rule.quorum)
    return { dropped, missing: `${fresh.length} fresh of ${rule.terms.length} terms, quorum ${rule.quorum}` };
  const spread = spreadOf(fresh);
  let kept = [...fresh];
  for (let now = spread; rule.spread !== undefined && now.greaterThan(rule.spread); now = spreadOf(kept)) {
    const outlier = furthestFromMedian(kept);
    const past = `spread ${shortPercent(now)} past ${percent(rule.spread)}`;
    if (outlier === undefined)
      return { dropped, spread, missing: `${past}, and no single term is furthest from the median` };
    if (kept.length - 1 < rule.quorum)
      return {
        dropped,
        spread,
        missing: `${past}; without ${labels[outlier.index]} ${kept.length - 1} terms are left, quorum ${rule.quorum}`,
      };
    dropped.set(outlier.index, `${past}: furthest from the median`);
    kept = kept.filter((term) => term !== outlier);
  }
  if (rule.method === 'trimmed' && kept.length < 3)
    return { dropped, spread, missing: `a trimmed mean needs 3 terms, ${kept.length} left` };
  return { dropped, spread, sides: combine(rule.method, kept) };
}

/** Two terms are always equally far from their median: neither is the outlier. */
function furthestFromMedian(terms: readonly FreshTerm[]): FreshTerm | undefined {
  if (terms.length <= 2) return undefined;
  const center = median(terms.map(midOf));
  const distances = terms.map((term) => midOf(term).minus(center).abs());
  const furthest = Decimal.max(...distances);
  const at = distances.flatMap((distance, index) => (distance.equals(furthest) ? [index] : []));
  return at.length === 1 ? terms[at[0]!] : undefined;
}
