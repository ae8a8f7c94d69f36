// The rates a direction can publish: the published form in:out moves in steps of the rate precisions, so
// competing is choosing one of these steps. Pure; every comparison is exact (cross-multiplied), never a
// rounded quotient, so a tie with a competitor is seen as a tie.
import { Decimal, roundDown, roundUp } from '../decimal.js';
import type { Currency } from '../model.js';
import { publishedRate, type PublishedRate } from '../pricing.js';
import type { CompetitorRow } from '../bestchange/feed.js';

const ONE = new Decimal(1);
const unit = (places: number) => ONE.div(new Decimal(10).pow(places));

/** The published rate as a number: what the client gets per unit given. */
export const rateOf = (form: PublishedRate): Decimal => (form.in.equals(ONE) ? form.out : form.out.div(form.in));

/** -1, 0, 1 as `a` gives the client less, the same, more than `b`. */
export const compareForms = (a: PublishedRate, b: PublishedRate): number => a.out.times(b.in).comparedTo(b.out.times(a.in));

/** -1, 0, 1 as the form gives the client less, the same, more than the competitor's row (get per give). */
export const compareToRow = (form: PublishedRate, row: CompetitorRow): number => form.out.times(row.give).comparedTo(new Decimal(row.get).times(form.in));

/** -1, 0, 1 as the form gives the client less, the same, more than `rate`. */
export const compareToRate = (form: PublishedRate, rate: Decimal): number => form.out.comparedTo(rate.times(form.in));

/** The most generous published form at or below `rate`: the usual rounding against the client. */
export const atOrBelow = (rate: Decimal, from: Currency, to: Currency): PublishedRate => publishedRate(rate, from, to);

/** The least generous published form at or above `rate`. */
export function atOrAbove(rate: Decimal, from: Currency, to: Currency): PublishedRate {
  if (rate.greaterThanOrEqualTo(1)) return { in: ONE, out: roundUp(rate, to.ratePrecision) };
  let give = roundDown(ONE.div(rate), from.ratePrecision);
  // 1 ÷ rate is rounded at 40 digits: checked back by multiplication, as limits are.
  if (give.times(rate).greaterThan(1)) give = give.minus(unit(from.ratePrecision));
  return give.lessThanOrEqualTo(1) ? { in: ONE, out: ONE } : { in: give, out: ONE };
}

/** One step more generous. */
export function stepUp(form: PublishedRate, from: Currency, to: Currency): PublishedRate {
  if (form.in.equals(ONE)) return { in: ONE, out: form.out.plus(unit(to.ratePrecision)) };
  const give = form.in.minus(unit(from.ratePrecision));
  return give.lessThanOrEqualTo(1) ? { in: ONE, out: ONE } : { in: give, out: ONE };
}

/** One step less generous. */
export function stepDown(form: PublishedRate, from: Currency, to: Currency): PublishedRate {
  if (form.in.equals(ONE)) {
    const out = form.out.minus(unit(to.ratePrecision));
    if (out.greaterThanOrEqualTo(1)) return { in: ONE, out };
  }
  return { in: form.in.plus(unit(from.ratePrecision)), out: ONE };
}

/**
 * A rate whose usual published form (`publishedRate`) is exactly `form`: the out side itself, or 1 ÷ in when
 * that divides back to it, otherwise a rate half a step inside, which rounds to it whatever 1 ÷ x's last digit.
 */
export function rateFor(form: PublishedRate, from: Currency, to: Currency): Decimal {
  if (form.in.equals(ONE)) return form.out;
  const exact = ONE.div(form.in);
  if (publishedRate(exact, from, to).in.equals(form.in)) return exact;
  return ONE.div(form.in.minus(unit(from.ratePrecision).div(2)));
}
