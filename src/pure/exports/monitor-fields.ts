// What a monitor's profile changes in an item after pricing: fees folded into the rate, the rate rounded as the monitor
// reads it, and the directions it cannot read as meant left out of its export with the reason. Pure.
import { Decimal, formatDecimal, roundDown, roundUp } from '../../base/decimal.js';
import type { MonitorProfile } from '../../model/monitor-profile.js';
import type { Refusal } from '../../model/priced.js';
import type { ExportItem } from '../../model/items.js';
import { sideFee } from './refusals.js';

/** The item fields a profile reads and may change. */
export type MonitorInput = Pick<ExportItem, 'in' | 'out' | 'minfee' | 'fromfee' | 'tofee' | 'minamount' | 'maxamount'>;
export type MonitorPatch = Partial<Pick<ExportItem, 'in' | 'out' | 'fromfee' | 'tofee'>>;

interface Side {
  code: string;
  asset: string;
}

const percentFee = /^(\d+(?:\.\d+)?) ?%$/;
const feeWithUnit = /\s[A-Z][A-Z0-9]*$/;

/**
 * The patch that makes an item read as meant by `profile`'s monitor, or why the direction cannot be written for it.
 * Undefined: the item as it is. Every change is against the client, never for him: a fee folded raises what he pays
 * or lowers what he gets, a rate rounded to the monitor's decimals rounds the same way.
 */
export function monitorFields(
  profile: MonitorProfile,
  item: MonitorInput,
  sides: { from: Side; to: Side },
): MonitorPatch | Refusal | undefined {
  const refuse = (reason: string): Refusal => ({ reason: `${profile.title}: ${reason}`, kind: 'format' });
  if (item.minfee !== undefined && profile.minfee !== 'fixed')
    return refuse(
      profile.minfee === 'market-gap'
        ? `<minfee> is read as the least gap to the average market rate, not the fixed minimum fee ${item.minfee}`
        : `<minfee> is not read, so the minimum fee ${item.minfee} would be lost`,
    );
  if (profile.limits === 'required' && (item.minamount === undefined || item.maxamount === undefined))
    return refuse('an item without <minamount> and <maxamount> is made inactive; the direction has no minimum');
  if (
    profile.minBelowMax &&
    item.minamount !== undefined &&
    item.maxamount !== undefined &&
    !new Decimal(item.minamount).lessThan(item.maxamount)
  )
    return refuse(`an item whose minimum ${item.minamount} is not below its maximum ${item.maxamount} is dropped`);
  const fromfee = item.fromfee === undefined ? undefined : sideFee(item.fromfee, sides.from);
  const tofee = item.tofee === undefined ? undefined : sideFee(item.tofee, sides.to);
  if (profile.fees === 'plain') {
    for (const [name, fee] of [
      ['fromfee', fromfee],
      ['tofee', tofee],
    ] as const)
      if (fee !== undefined && feeWithUnit.test(fee))
        return refuse(`${name} ${fee} names a currency; the monitor reads a plain number in the side's currency or N%`);
    return fromfee === item.fromfee && tofee === item.tofee ? undefined : { fromfee, tofee };
  }
  if (profile.fees === 'as-written' && profile.rateDecimals === undefined) return undefined;
  let rateIn = new Decimal(item.in);
  let rateOut = new Decimal(item.out);
  if (profile.fees === 'percent-folded') {
    for (const [name, fee] of [
      ['fromfee', fromfee],
      ['tofee', tofee],
    ] as const) {
      if (fee === undefined) continue;
      const percent = percentFee.exec(fee);
      if (!percent) return refuse(`${name} ${fee} is not a percentage: only a percentage can be folded into the rate`);
      const share = new Decimal(percent[1]!).div(100);
      // fromfee: the client sends that much more for the same payout; tofee: he gets that much less.
      if (name === 'fromfee') rateIn = rateIn.times(share.plus(1));
      else rateOut = rateOut.times(new Decimal(1).minus(share));
    }
  }
  const folded = rateIn.toString() !== item.in || rateOut.toString() !== item.out;
  const rate = oneSided(rateIn, rateOut, item, profile.rateDecimals);
  if ('reason' in rate) return refuse(rate.reason);
  const fees = profile.fees === 'percent-folded' ? { fromfee: undefined, tofee: undefined } : {};
  if (!folded && rate.in === item.in && rate.out === item.out)
    return profile.fees === 'percent-folded' ? fees : undefined;
  return { ...rate, ...fees };
}

/** Places after the point in decimal text. */
function places(text: string): number {
  const point = text.indexOf('.');
  return point < 0 ? 0 : text.length - point - 1;
}

/**
 * `rateIn`:`rateOut` with the side the item had at 1 kept at 1, the other rounded against the client: the most he gets
 * down, the least he pays up. At `decimals` when the monitor reads that many, else at the item's own.
 */
function oneSided(
  rateIn: Decimal,
  rateOut: Decimal,
  item: MonitorInput,
  decimals: number | undefined,
): { in: string; out: string } | { reason: string } {
  if (item.in === '1' || item.out !== '1') {
    const base = new Decimal(item.in);
    const out = roundDown(rateOut.times(base).div(rateIn), decimals ?? Math.max(places(item.out), 8));
    if (out.isZero()) return { reason: 'the rate rounds to 0 at the decimals it is read with' };
    return { in: item.in, out: formatDecimal(out) };
  }
  const paid = roundUp(rateIn.div(rateOut), decimals ?? Math.max(places(item.in), 8));
  return { in: formatDecimal(paid), out: '1' };
}
