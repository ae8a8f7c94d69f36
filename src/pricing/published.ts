// The published in/out form of a rate (rounded against the client) and the limits that hold at a published rate. Pure.
import { Decimal, roundDown, roundUp } from '../decimal.js';
import type { Currency, Direction } from '../model.js';
import type { LimitTerms, PublishedLimits, PublishedRate, WithheldKind } from '../priced.js';
import { Memo } from './memo.js';

const ONE = new Decimal(1);

/**
 * The published form of a rate (to units per from unit): one side exactly 1, the other ≥ 1, rounded against
 * the client to the rate precision of the currency that side counts: `out` down, `in` up.
 */
export function publishedRate(rate: Decimal, from: Currency, to: Currency): { in: Decimal; out: Decimal } {
  // Decimals are immutable: every form shares the one 1.
  if (rate.greaterThanOrEqualTo(ONE)) return { in: ONE, out: roundDown(rate, to.ratePrecision) };
  return { in: roundUp(ONE.div(rate), from.ratePrecision), out: ONE };
}

/** Published forms per rate object and rate precisions: directions sharing a rate share its form, and the limits at it. */
const publishedForms = new Memo<Decimal, number, PublishedRate>();

/** publishedRate, remembered per rate object and pair of rate precisions. */
export function publishedForm(rate: Decimal, from: Currency, to: Currency): PublishedRate {
  // Precisions are 0..18: one number names the pair.
  const key = from.ratePrecision * 32 + to.ratePrecision;
  return publishedForms.get(rate, key) ?? publishedForms.set(rate, key, publishedRate(rate, from, to));
}

/**
 * Published limits per published rate and terms (terms are shared per limits key, which names the from
 * precision): computed once per distinct pair. Reasons name currency codes, so only limits are shared.
 */
const sharedLimits = new Memo<PublishedRate, LimitTerms, PublishedLimits>();

/**
 * The limits to publish with a rate in its published form, or why there are none. They hold at that rate:
 * the minimum buys at least a minimum set in the to asset, the maximum pays no more than a maximum set in it
 * nor than the published `<amount>`; the minimum rounded up, the maximum down, in the from precision.
 */
export function publishedLimits(
  direction: Direction,
  terms: LimitTerms,
  rate: PublishedRate,
): PublishedLimits | { reason: string; kind: WithheldKind } {
  const known = sharedLimits.get(rate, terms);
  if (known) return known;
  const limits = limitsAt(direction, terms, rate);
  // Terms live as long as their book, forms as long as their rate: held by the form, they die together.
  if (!('reason' in limits)) sharedLimits.set(rate, terms, limits);
  return limits;
}

function limitsAt(
  direction: Direction,
  terms: LimitTerms,
  rate: PublishedRate,
): PublishedLimits | { reason: string; kind: WithheldKind } {
  const { from, to } = direction;
  const places = from.precision;
  const capacity = fromUnits(terms.amount, rate, places, false);
  let max = capacity;
  if (terms.maxFrom) max = Decimal.min(max, roundDown(terms.maxFrom, places));
  if (terms.maxTo) max = Decimal.min(max, fromUnits(terms.maxTo, rate, places, false));
  if (max.isZero())
    return {
      kind: 'limits',
      reason: `maximum order rounds to 0 ${from.code} at ${places} decimals (limit or reserve too small)`,
    };
  const min = terms.minFrom
    ? roundUp(terms.minFrom, places)
    : terms.minTo
      ? fromUnits(terms.minTo, rate, places, true)
      : undefined;
  if (min === undefined) return { max };
  if (min.greaterThan(max)) {
    if (min.greaterThan(capacity))
      return {
        kind: 'limits',
        reason: `reserve ${direction.reserve.toFixed()} ${to.code} is below the minimum order ${min.toFixed()} ${from.code}`,
      };
    return {
      kind: 'limits',
      reason: `minimum ${min.toFixed()} ${from.code} is above the maximum ${max.toFixed()} ${from.code}`,
    };
  }
  return { min, max };
}

/**
 * An amount of the to asset as from units at a published rate, rounded to `places`: up for a minimum (it
 * buys at least `value`), down for a maximum (it pays at most `value`). Checked back by multiplication, so
 * the division's 40-digit rounding can never tip a limit across the line.
 */
function fromUnits(value: Decimal, rate: PublishedRate, places: number, minimum: boolean): Decimal {
  // A published form has one side exactly 1: no multiplication by it (unless the product's rounding to the
  // working precision changes a longer value), and no division (nor check back) by it.
  const target = rate.in.eq(ONE) && value.sd() <= Decimal.precision ? value : value.times(rate.in);
  if (rate.out.eq(ONE)) return minimum ? roundUp(target, places) : roundDown(target, places);
  const exact = target.div(rate.out);
  if (minimum) {
    const min = roundUp(exact, places);
    return min.times(rate.out).lessThan(target) ? min.plus(unitAt(places)) : min;
  }
  const max = roundDown(exact, places);
  return max.times(rate.out).greaterThan(target) ? max.minus(unitAt(places)) : max;
}

/** One unit of the last decimal place. */
const unitAt = (places: number): Decimal => new Decimal(1).div(new Decimal(10).pow(places));
