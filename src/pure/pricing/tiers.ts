// Amount tiers at one export's rates: each tier's published rate and order range, and the range every format can
// honestly publish at the direction's own (first) rate. Pure; published.ts calls it once per direction and markup.
import { Decimal, roundUp } from '../../base/decimal.js';
import type {
  LadderStep,
  PricedDirection,
  Publication,
  PublishedLimits,
  PublishedRate,
  Refusal,
} from '../../model/priced.js';

/**
 * The tiers of a priced direction at one export's rates. The first step is the direction's own rate, from its
 * minimum; each tier starts at its amount (rounded up to the from precision) and ends one step below the next.
 * Every format lists one rate per direction, so the published range stops below the first tier that is worse for
 * the client than that rate, or whose rate the reserve (or a maximum) cannot pay from its first amount: within the
 * range no client gets less than the listed rate. `steps` only when more than one tier is left.
 */
export function tierLadder(
  priced: PricedDirection,
  publication: Publication,
  formOf: (rate: Decimal) => PublishedRate,
  limitsAt: (form: PublishedRate) => PublishedLimits | Refusal,
): { limits: PublishedLimits; steps?: LadderStep[] } | { reason: string } {
  const { direction, tierRates = [] } = priced;
  const { limits } = publication;
  const base = publication.rate.form;
  const tiers = direction.tiers ?? [];
  const places = direction.from.precision;
  const unit = new Decimal(1).div(new Decimal(10).pow(places));
  const starts = tiers.map((tier) => roundUp(tier.from, places));
  if (limits.min && starts[0]?.lessThanOrEqualTo(limits.min)) {
    return {
      reason: `tier from ${starts[0].toFixed()} ${direction.from.code} is not above the minimum order ${limits.min.toFixed()} ${direction.from.code}`,
    };
  }
  let max = limits.max;
  const found: { min: Decimal; form: PublishedRate }[] = [{ min: limits.min ?? new Decimal(0), form: base }];
  for (let i = 0; i < starts.length; i++) {
    const start = starts[i]!;
    if (start.greaterThan(max)) break;
    const form = formOf(tierRates[i]!);
    // Worse for the client: less out per in than the listed rate.
    const worse = form.out.times(base.in).lessThan(base.out.times(form.in));
    const own = worse ? undefined : limitsAt(form);
    if (own === undefined || 'reason' in own || own.max.lessThan(start)) {
      max = Decimal.min(max, start.minus(unit));
      break;
    }
    max = Decimal.min(max, own.max);
    found.push({ min: start, form });
  }
  const steps = found
    .map((step, k) => ({ ...step, max: k + 1 < found.length ? found[k + 1]!.min.minus(unit) : max }))
    .filter((step) => step.min.lessThanOrEqualTo(step.max));
  const capped = { ...(limits.min === undefined ? {} : { min: limits.min }), max };
  return steps.length > 1 ? { limits: capped, steps } : { limits: capped };
}
