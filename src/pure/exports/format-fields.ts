// What an EREF 1.1 or JSON item has beyond the classic one (side fees, tomin/tomax, tier steps), or why it cannot be written. Pure.
import { type Decimal, formatDecimal, roundDown, roundUp } from '../../base/decimal.js';
import type { ExportFormat } from '../../model/formats.js';
import type { ExportItem } from '../../model/items.js';
import { formatRefusal, sideFee } from './refusals.js';
import type { CommonFields } from './direction-fields.js';
import type {
  LadderStep,
  PricedDirection,
  PublishedLimits,
  PublishedRate,
  RateEntry,
  Refusal,
} from '../../model/priced.js';

type ToLimits = Pick<ExportItem, 'tomin' | 'tomax'> | Refusal;

/**
 * What EREF 1.1 and JSON items have beyond the classic ones. One per selection of a build: it keeps tomin/tomax per
 * published limits object (shared by directions alike at one markup, see publisherAt) and to precision.
 */
export class FormatFields {
  private readonly toLimitTexts = new WeakMap<PublishedLimits, Map<number, ToLimits>>();

  /** What an EREF 1.1 or JSON item has beyond the classic one, or why the direction cannot be written in that format. */
  of(
    format: Exclude<ExportFormat, 'classic'>,
    priced: PricedDirection,
    rate: RateEntry,
    limits: PublishedLimits,
    texts: CommonFields & Pick<ExportItem, 'minamount' | 'maxamount'>,
    steps: readonly LadderStep[] | undefined,
  ): Pick<ExportItem, 'fromfee' | 'tofee' | 'tomin' | 'tomax' | 'steps'> | Refusal {
    return formatFields(format, priced, rate, limits, texts, steps, (places) =>
      this.toLimits(limits, rate.form, places),
    );
  }

  /** tomin/tomax of limits without tiers: tomin rounded up, tomax down, so any amount within them is within the limits. */
  private toLimits(limits: PublishedLimits, form: PublishedRate, places: number): ToLimits {
    let byPlaces = this.toLimitTexts.get(limits);
    if (!byPlaces) this.toLimitTexts.set(limits, (byPlaces = new Map()));
    let known = byPlaces.get(places);
    if (!known) byPlaces.set(places, (known = toLimits(limits, form, places)));
    return known;
  }
}

function formatFields(
  format: Exclude<ExportFormat, 'classic'>,
  priced: PricedDirection,
  rate: RateEntry,
  limits: PublishedLimits,
  texts: CommonFields & Pick<ExportItem, 'minamount' | 'maxamount'>,
  steps: readonly LadderStep[] | undefined,
  toLimitsAt: (places: number) => ToLimits,
): Pick<ExportItem, 'fromfee' | 'tofee' | 'tomin' | 'tomax' | 'steps'> | Refusal {
  // A fee in the side's own currency (`4 USDT` on USDTERC20) is the plain number these formats take.
  const { from, to } = priced.direction;
  const fromfee = texts.fromfee === undefined ? undefined : sideFee(texts.fromfee, from);
  const tofee = texts.tofee === undefined ? undefined : sideFee(texts.tofee, to);
  const reason = formatRefusal(format, { ...texts, fromfee, tofee, in: rate.in, out: rate.out });
  if (reason !== undefined) return { reason, kind: 'format' };
  // Nearly every direction has no such fee: then no object is made here.
  const fees = fromfee === texts.fromfee && tofee === texts.tofee ? undefined : { fromfee, tofee };
  if (format === 'json') return fees ?? {};
  const places = to.precision;
  if (steps === undefined) {
    const bounds = toLimitsAt(places);
    return fees === undefined || 'reason' in bounds ? bounds : { ...fees, ...bounds };
  }
  // tomin up and tomax down: any amount within them is within frommin..frommax at the rates published.
  const toUnits = (value: Decimal, form = rate.form) => value.times(form.out).div(form.in);
  // The largest order is paid at the last tier's rate, the smallest at the first (the listed rate).
  const tomax = roundDown(toUnits(limits.max, steps.at(-1)?.form), places);
  if (tomax.isZero()) return { reason: `tomax rounds to 0 at ${places} decimals`, kind: 'limits' };
  const published = {
    steps: steps.map((step) => ({
      frommin: formatDecimal(step.min),
      frommax: formatDecimal(step.max),
      in: formatDecimal(step.form.in),
      out: formatDecimal(step.form.out),
    })),
  };
  if (limits.min === undefined) return { ...fees, tomax: formatDecimal(tomax), ...published };
  const tomin = roundUp(toUnits(limits.min), places);
  if (tomin.greaterThan(tomax))
    return {
      reason: `tomin ${formatDecimal(tomin)} is above tomax ${formatDecimal(tomax)} at ${places} decimals`,
      kind: 'limits',
    };
  return { ...fees, tomin: formatDecimal(tomin), tomax: formatDecimal(tomax), ...published };
}

function toLimits(limits: PublishedLimits, form: PublishedRate, places: number): ToLimits {
  const tomax = roundDown(limits.max.times(form.out).div(form.in), places);
  const tomin = limits.min === undefined ? undefined : roundUp(limits.min.times(form.out).div(form.in), places);
  // A zero tomax is a maximum no order can meet (the check's `limit` rule): withheld, never published.
  if (tomax.isZero()) return { reason: `tomax rounds to 0 at ${places} decimals`, kind: 'limits' };
  if (tomin === undefined) return { tomax: formatDecimal(tomax) };
  if (tomin.greaterThan(tomax))
    return {
      reason: `tomin ${formatDecimal(tomin)} is above tomax ${formatDecimal(tomax)} at ${places} decimals`,
      kind: 'limits',
    };
  return { tomin: formatDecimal(tomin), tomax: formatDecimal(tomax) };
}
