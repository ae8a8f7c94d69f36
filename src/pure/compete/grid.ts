// The rates a direction can publish: the published form in:out moves in steps of the rate precisions, so
// competing is choosing one of these steps. Pure; every comparison is exact (cross-multiplied), never a
// rounded quotient, so a tie with a competitor is seen as a tie.
import { Decimal, roundDown, roundUp } from '../../base/decimal.js';
import type { Currency } from '../../model/config.js';
import { publishedRate } from '../pricing/published.js';
import type { CompetitorRow } from '../bestchange/feed.js';
import type { PublishedRate } from '../../model/priced.js';
import { show } from '../../base/words.js';

const ONE = new Decimal(1);
const unit = (places: number) => ONE.div(new Decimal(10).pow(places));

/** The published rate as a number: what the client gets per unit given. */
export const rateOf = (form: PublishedRate): Decimal => (form.in.equals(ONE) ? form.out : form.out.div(form.in));

/** The codes a reason names a rate in: a rate below 1 is said from per to, as its exports publish it (X:1). */
export interface RateCodes {
  from: string;
  to: string;
}

/** A rate (to per from) for people, in the form the exports publish: `4940000.5`, or `5044895.52 SBERRUB per BTC`. */
export const sayRate = (rate: Decimal, codes: RateCodes): string =>
  rate.lessThan(ONE) ? `${show(ONE.div(rate).toSignificantDigits(34))} ${codes.from} per ${codes.to}` : show(rate);

/** A published step for people, in its own form. */
export const sayForm = (form: PublishedRate, codes: RateCodes): string => sayRate(rateOf(form), codes);

/** -1, 0, 1 as `a` gives the client less, the same, more than `b`. */
export const compareForms = (a: PublishedRate, b: PublishedRate): number =>
  a.out.times(b.in).comparedTo(b.out.times(a.in));

/** -1, 0, 1 as the form gives the client less, the same, more than the competitor's row (get per give). */
export const compareToRow = (form: PublishedRate, row: CompetitorRow): number =>
  form.out.times(row.give).comparedTo(new Decimal(row.get).times(form.in));

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

/**
 * Steps up from the form at or below the target before the competitor counts as unbeatable. The target is at or
 * above the competitor's rate, and the form one step above the target's is above the target, so in exact
 * arithmetic one step is enough; the rest covers the 40-digit rounding of the rate and the target. Only a rate
 * with about 40 significant digits at its rate precision (no real field) gets near it.
 */
export const MAX_STEPS_UP = 4;

/**
 * The least generous form from `start` upward that beats `row` (gives the client more), or why none can be had:
 * the feed is outside data, so this never loops on it — a step lost in rounding (a rate too large for a step this
 * small at Decimal's precision) or too many steps end it.
 */
export function beyond(
  start: PublishedRate,
  row: CompetitorRow,
  from: Currency,
  to: Currency,
): PublishedRate | { unbeatable: string } {
  let form = start;
  for (let steps = 0; compareToRow(form, row) <= 0; steps++) {
    if (steps === MAX_STEPS_UP)
      return {
        unbeatable: `${MAX_STEPS_UP} published steps above the target still do not beat it at ${Decimal.precision} significant digits`,
      };
    const next = stepUp(form, from, to);
    if (next.in.equals(form.in) && next.out.equals(form.out)) {
      return {
        unbeatable: `one published step more is lost in rounding: that form would need more than ${Decimal.precision} significant digits`,
      };
    }
    form = next;
  }
  return form;
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
