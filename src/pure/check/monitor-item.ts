// What one monitor's parser does with one item's values, from its profile: each verdict with why. Pure. A verdict's
// severity follows what changes for the exchanger: an item lost or read as another rate or fee is an error, a
// departure the monitor may hold against it a warning, a change no client can see (MoneySwap's 5-decimal rounding,
// a zero fee not read) information.
import { Decimal, formatDecimal, parseDecimal } from '../../base/decimal.js';
import type { MonitorProfile } from '../../model/monitor-profile.js';
import { itemElements } from '../../model/items.js';
import type { Severity } from './findings.js';

/** dropped, misread: errors; ignored (a label), order: warnings; rounded, unread (a zero fee): information. */
export type Verdict = 'dropped' | 'misread' | 'ignored' | 'order' | 'rounded' | 'unread';

export const verdictSeverity: Record<Verdict, Severity> = {
  dropped: 'error',
  misread: 'error',
  ignored: 'warning',
  order: 'warning',
  rounded: 'info',
  unread: 'info',
};

/** One item as a parser sees it: each element's texts in document order, and the order of its element names. */
export interface SeenItem {
  values: ReadonlyMap<string, readonly string[]>;
  order: readonly string[];
  cash: boolean;
}

const rank = new Map<string, number>(itemElements.map((name, index) => [name, index]));

/** What the profile's parser does with one item's values: each verdict with why. */
export function judgeItem(item: SeenItem, profile: MonitorProfile): [Verdict, string][] {
  const verdicts: [Verdict, string][] = [];
  const first = (name: string) => item.values.get(name)?.[0];
  if (profile.order === 'strict') {
    const ranks = item.order.map((name) => rank.get(name)).filter((value) => value !== undefined);
    // The rule comes from a third party's page (estandards.ru), not the monitor's own: a risk, not a known drop.
    if (ranks.some((value, index) => index > 0 && value < ranks[index - 1]!))
      verdicts.push(['order', 'the elements are not in the strictly defined order: the item may be refused']);
  }
  const min = first('minamount');
  const max = first('maxamount');
  if (profile.limits === 'required' && (!min || !max))
    verdicts.push(['dropped', 'no <minamount> or <maxamount>: the item is made inactive']);
  else if (profile.minBelowMax && min && max) {
    const [low, high] = [parseDecimal(min.split(/\s/)[0]!), parseDecimal(max.split(/\s/)[0]!)];
    if (low === undefined || high === undefined || !low.lessThan(high))
      verdicts.push(['dropped', `minimum ${min} is not below maximum ${max}: the item is skipped`]);
  }
  const minfee = first('minfee');
  if (minfee !== undefined && profile.minfee === 'market-gap')
    verdicts.push([
      'misread',
      `<minfee> ${minfee} is read as the least gap to the average market rate, not a fixed fee`,
    ]);
  else if (minfee !== undefined && profile.minfee === 'ignored') verdicts.push(unreadFee('minfee', minfee, ''));
  verdicts.push(...fees(item, profile));
  verdicts.push(...rateRead(first('in'), first('out'), profile));
  const params = item.values.get('param') ?? [];
  if (profile.labels === 'first-cash-only' && params.length > 0 && !item.cash)
    verdicts.push(['ignored', `labels are read on cash items only: <param>${params[0]}</param> is ignored`]);
  else if (profile.labels === 'first-cash-only' && params.length > 1)
    verdicts.push(['ignored', `only the first <param> is read: ${params.slice(1).join(', ')} ignored`]);
  return verdicts;
}

/** A fee's number when it is zero (`0`, `0 %`, `0.00 USD`): not reading it changes nothing. */
const zeroFee = (fee: string): boolean => /^0*(\.0*)?\s*(%|[A-Z][A-Z0-9]*)?$/.test(fee.trim()) && /0/.test(fee);

/** A fee the parser does not read: the rate shown leaves it out, which only a zero fee leaves true. */
function unreadFee(name: string, fee: string, where: string): [Verdict, string] {
  return zeroFee(fee)
    ? ['unread', `<${name}> ${fee} is not read${where}: it is zero, nothing changes`]
    : ['misread', `<${name}> ${fee} is not read${where}: the rate shown leaves the fee out`];
}

function fees(item: SeenItem, profile: MonitorProfile): [Verdict, string][] {
  const verdicts: [Verdict, string][] = [];
  for (const name of ['fromfee', 'tofee'] as const) {
    const fee = item.values.get(name)?.[0];
    if (fee === undefined || fee === '') continue;
    if (profile.fees === 'plain' && /\s[A-Z][A-Z0-9]*$/.test(fee))
      verdicts.push([
        'misread',
        `<${name}> ${fee} names a currency; a plain number in the side's currency or N% is read`,
      ]);
    if (profile.fees !== 'percent-folded') continue;
    if (name === 'tofee' || !item.cash) verdicts.push(unreadFee(name, fee, item.cash ? '' : ' on a non-cash item'));
    // Kept as text unless it ends in %, the fee then meets arithmetic and raises: even `0` drops the item.
    else if (!fee.endsWith('%')) verdicts.push(['dropped', `<fromfee> ${fee} is not a percentage: reading it fails`]);
    else if (new Decimal(item.values.get('in')?.[0] ?? '1').greaterThan(item.values.get('out')?.[0] ?? '1'))
      // Normalised to X:1, the fee is taken off X, the amount the client pays: a better rate than the real one.
      verdicts.push([
        'misread',
        `<fromfee> ${fee} is folded into the rate by lowering <in>: the rate shown is better than the real one`,
      ]);
  }
  return verdicts;
}

/** A number as Python's float() reads it (spaces around, a sign, an exponent); undefined when it raises. */
function floatRead(text: string): Decimal | undefined {
  const trimmed = text.trim();
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed) ? new Decimal(trimmed) : undefined;
}

/**
 * The rate as a profile that normalises it (`rateDecimals`) reads it: each side by float(), its sign dropped
 * (`negativeRate: absolute`); a side that is no number or zero makes the division raise and the item is skipped;
 * then 1:X with X rounded half-up, which is information (at most half a unit of the last decimal read, ≤ 0.0005 %).
 */
function rateRead(
  inText: string | undefined,
  outText: string | undefined,
  profile: MonitorProfile,
): [Verdict, string][] {
  const decimals = profile.rateDecimals;
  if (decimals === undefined || inText === undefined || outText === undefined) return [];
  const [rateIn, rateOut] = [floatRead(inText), floatRead(outText)];
  if (rateIn === undefined || rateOut === undefined)
    return [['dropped', `the rate ${inText}:${outText} is not two numbers: reading it fails`]];
  if (rateIn.isZero() || rateOut.isZero())
    return [['dropped', `a side of the rate ${inText}:${outText} is zero: normalising it divides by zero`]];
  const verdicts: [Verdict, string][] = [];
  if (rateIn.isNegative() || rateOut.isNegative())
    verdicts.push([
      'misread',
      profile.negativeRate === 'absolute'
        ? `the rate ${inText}:${outText} has a negative side: it is read without its sign (older code read it with it)`
        : `the rate ${inText}:${outText} has a negative side: it is read with its sign`,
    ]);
  const [a, b] = profile.negativeRate === 'absolute' ? [rateIn.abs(), rateOut.abs()] : [rateIn, rateOut];
  const paysMore = a.greaterThan(b);
  const x = paysMore ? a.div(b) : b.div(a);
  const read = x.toDecimalPlaces(decimals, Decimal.ROUND_HALF_UP);
  if (read.toFixed(decimals).length >= 20)
    return [...verdicts, ['dropped', `the rate's X (${formatDecimal(read)}) has too many digits to be stored`]];
  // The client pays X (paysMore): read lower is better for him; he gets X: read higher is.
  if (paysMore ? read.lessThan(x) : read.greaterThan(x)) {
    const moved = read.minus(x).abs().div(x).times(100);
    verdicts.push([
      'rounded',
      `the rate is read as ${paysMore ? `${formatDecimal(read)}:1` : `1:${formatDecimal(read)}`} (${decimals} decimals, rounded half-up), ${moved.toSignificantDigits(2).toString()} % better than the file's`,
    ]);
  }
  return verdicts;
}
