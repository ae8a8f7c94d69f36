// What an EREF 1.1 or JSON item has beyond the classic one (side fees, tomin/tomax, tier steps), or why it cannot be written. Pure.
import { type Decimal, formatDecimal, roundDown, roundUp } from '../decimal.js';
import type { ExportFormat } from './formats.js';
import type { ExportItem } from './items.js';
import { formatRefusal, sideFee } from './refusals.js';
import type { CommonFields } from './direction-fields.js';
import type { RateEntry } from './rates.js';
import type { LadderStep } from './tiers.js';
import type { PricedDirection, PublishedLimits, PublishedRate, WithheldKind } from '../priced.js';

/** What an EREF 1.1 or JSON item has beyond the classic one, or why the direction cannot be written in that format. */
export function formatFields(
  format: Exclude<ExportFormat, 'classic'>,
  priced: PricedDirection,
  rate: RateEntry,
  limits: PublishedLimits,
  texts: CommonFields & Pick<ExportItem, 'minamount' | 'maxamount'>,
  steps: readonly LadderStep[] | undefined,
): Pick<ExportItem, 'fromfee' | 'tofee' | 'tomin' | 'tomax' | 'steps'> | { reason: string; kind: WithheldKind } {
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
    const bounds = toLimits(limits, rate.form, places);
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

/**
 * tomin/tomax of limits without tiers, per limits object (shared by directions alike at one published rate, see
 * publishedLimits) and to precision: tomin rounded up, tomax down, so any amount within them is within the limits.
 */
const toLimitTexts = new WeakMap<
  PublishedLimits,
  Map<number, Pick<ExportItem, 'tomin' | 'tomax'> | { reason: string; kind: WithheldKind }>
>();

function toLimits(
  limits: PublishedLimits,
  form: PublishedRate,
  places: number,
): Pick<ExportItem, 'tomin' | 'tomax'> | { reason: string; kind: WithheldKind } {
  let byPlaces = toLimitTexts.get(limits);
  if (!byPlaces) toLimitTexts.set(limits, (byPlaces = new Map()));
  let known = byPlaces.get(places);
  if (!known) {
    const tomax = roundDown(limits.max.times(form.out).div(form.in), places);
    const tomin = limits.min === undefined ? undefined : roundUp(limits.min.times(form.out).div(form.in), places);
    // A zero tomax is a maximum no order can meet (the check's `limit` rule): withheld, never published.
    known = tomax.isZero()
      ? { reason: `tomax rounds to 0 at ${places} decimals`, kind: 'limits' }
      : tomin === undefined
        ? { tomax: formatDecimal(tomax) }
        : tomin.greaterThan(tomax)
          ? {
              reason: `tomin ${formatDecimal(tomin)} is above tomax ${formatDecimal(tomax)} at ${places} decimals`,
              kind: 'limits',
            }
          : { tomin: formatDecimal(tomin), tomax: formatDecimal(tomax) };
    byPlaces.set(places, known);
  }
  return known;
}
