// What a direction publishes at a rate, worked out in this one place: the rate's published form (rounded against the
// client) and its text, the limits that hold at that form or why none do, and, in an export, its tier steps. Pricing
// makes each direction's publication without a markup, compete remakes it at the rate it chooses, and every export
// reads it through `publisherAt` (one per markup and build: exports with one markup share it). Pure.
import { compact, Decimal, formatDecimal, roundDown, roundUp } from '../../base/decimal.js';
import type { Currency, Direction } from '../../model/config.js';
import type {
  LimitTerms,
  PricedDirection,
  Publication,
  Published,
  PublishedLimits,
  PublishedRate,
  Refusal,
} from '../../model/priced.js';
import { tierLadder } from './tiers.js';

const ONE = new Decimal(1);

/**
 * The published form of a rate (to units per from unit): one side exactly 1, the other ≥ 1, rounded against
 * the client to the rate precision of the currency that side counts: `out` down, `in` up.
 */
export function publishedRate(rate: Decimal, from: Currency, to: Currency): PublishedRate {
  // Decimals are immutable: every form shares the one 1.
  if (rate.greaterThanOrEqualTo(ONE)) return { in: ONE, out: compact(roundDown(rate, to.ratePrecision)) };
  return { in: compact(roundUp(ONE.div(rate), from.ratePrecision)), out: ONE };
}

/** A direction rate as an export with `markup` offers it to the client, before rounding: rate × (1 − markup). */
export function rateAtMarkup(rate: Decimal, markup: Decimal): Decimal {
  return markup.isZero() ? rate : rate.times(ONE.minus(markup));
}

/** What a direction publishes at `rate` (its own, a compete rate, or one after a markup), or why its limits fail there. */
export function publicationAt(direction: Direction, terms: LimitTerms, rate: Decimal): Publication | Refusal {
  const form = publishedRate(rate, direction.from, direction.to);
  const limits = limitsAt(direction, terms, form);
  if ('reason' in limits) return limits;
  return { rate: { in: formatDecimal(form.in), out: formatDecimal(form.out), form }, limits };
}

/**
 * What each priced direction publishes at `markup`: its publication at its rate after the markup, with its tiers.
 * Without a markup and tiers that is the direction's own publication (made by pricing or compete); otherwise it is
 * made on the first call for a direction and kept for the publisher's life, one build. Directions alike share one
 * publication (see priceDirections): they share the one at the markup as well, so each is made once per group; a
 * refusal is the direction's own, since its reason names currency codes.
 */
export function publisherAt(markup: Decimal): (priced: PricedDirection) => Published | Refusal {
  const marked = markup.isZero() ? undefined : markup;
  const alike = new Map<Publication, Publication>();
  const own = new Map<PricedDirection, Published | Refusal>();
  const atMarkup = (priced: PricedDirection): Publication | Refusal => {
    if (marked === undefined) return priced.published;
    const known = alike.get(priced.published);
    if (known !== undefined) return known;
    const made = publicationAt(priced.direction, priced.terms, rateAtMarkup(priced.rate, marked));
    if (!('reason' in made)) alike.set(priced.published, made);
    return made;
  };
  return (priced) => {
    if (priced.tierRates === undefined) {
      if (marked === undefined) return priced.published;
      const shared = alike.get(priced.published);
      if (shared !== undefined) return shared;
    }
    const known = own.get(priced);
    if (known !== undefined) return known;
    let made: Published | Refusal = atMarkup(priced);
    if (!('reason' in made) && priced.tierRates !== undefined) {
      const { from, to } = priced.direction;
      const formOf = (rate: Decimal) => publishedRate(marked ? rateAtMarkup(rate, marked) : rate, from, to);
      const ladder = tierLadder(priced, made, formOf, (form) => limitsAt(priced.direction, priced.terms, form));
      made = 'reason' in ladder ? { reason: ladder.reason, kind: 'limits' } : { rate: made.rate, ...ladder };
    }
    // A direction without tiers that its limits publish is already shared by its group: kept only when refused.
    if (priced.tierRates !== undefined || 'reason' in made) own.set(priced, made);
    return made;
  };
}

/**
 * The limits to publish with a rate in its published form, or why there are none. They hold at that rate:
 * the minimum buys at least a minimum set in the to asset, the maximum pays no more than a maximum set in it
 * nor than the published `<amount>`; the minimum rounded up, the maximum down, in the from precision.
 */
export function limitsAt(direction: Direction, terms: LimitTerms, rate: PublishedRate): PublishedLimits | Refusal {
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
  if (min === undefined) return { max: compact(max) };
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
  return { min: compact(min), max: compact(max) };
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
