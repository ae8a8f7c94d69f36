// What one monitor's parser does with one item's values, from its profile: each verdict with why. Pure. A verdict's
// severity follows what changes for the exchanger: an item lost or read as another rate or fee is an error, a
// departure the monitor may hold against it a warning, a change no client can see (MoneySwap's 5-decimal rounding,
// a zero fee not read) information.
import { Decimal, formatDecimal } from '../../base/decimal.js';
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
  const own = (name: string) => item.values.get(name)?.[0];
  // An element missing or empty is read under its fallback names, as `findtext(a) or findtext(b)` reads it.
  const first = (name: string) => own(name) || (profile.fallbacks[name] ?? []).map(own).find(Boolean) || own(name);
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
  else if (profile.minBelowMax && min && max) verdicts.push(...belowMax(min, max));
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

/** `minBelowMax`: each limit's first word read by float(), the minimum strictly below (NaN is below nothing). */
function belowMax(min: string, max: string): [Verdict, string][] {
  const [low, high] = [floatRead(min.trim().split(/\s+/)[0]!), floatRead(max.trim().split(/\s+/)[0]!)];
  const unread = low === undefined ? ['minamount', min] : high === undefined ? ['maxamount', max] : undefined;
  if (unread)
    return [
      ['dropped', `<${unread[0]}> ${unread[1]} is not a number float() reads: reading it fails, the item is skipped`],
    ];
  if (!low!.lessThan(high!)) return [['dropped', `minimum ${min} is not below maximum ${max}: the item is skipped`]];
  return [];
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

const digitPart = String.raw`\d(?:_?\d)*`;
const pythonFloat = new RegExp(
  String.raw`^[+-]?(?:(?:${digitPart}(?:\.(?:${digitPart})?)?|\.${digitPart})(?:[eE][+-]?${digitPart})?|inf(?:inity)?|nan)$`,
  'i',
);

/**
 * A number as Python's float() reads it: spaces around, a sign, an exponent, `_` between digits (PEP 515), `inf`,
 * `infinity` and `nan` in any case (ASCII digits only: other scripts' digits are left out); undefined when it raises.
 */
function floatRead(text: string): Decimal | undefined {
  const trimmed = text.trim();
  if (!pythonFloat.test(trimmed)) return undefined;
  const plain = trimmed.replaceAll('_', '').toLowerCase();
  if (/nan$/.test(plain)) return new Decimal(Number.NaN);
  if (/inf/.test(plain)) return new Decimal(plain.startsWith('-') ? '-Infinity' : 'Infinity');
  return new Decimal(plain);
}

/**
 * X as MoneySwap's `make_valid_values_for_dict` makes it, in doubles as Python's floats are: `out / in` unless in is
 * 1, then `1 / out` when that is below 1; then `Decimal(X).quantize(…, ROUND_HALF_UP)`, the double's exact binary
 * value rounded half-up, which is what `toFixed` gives. So 9999999999999.99999, a double of 10¹³, is stored as
 * 10000000000000.00000: 20 characters, too many. Undefined when no finite X is left (quantize raises).
 */
function storedX(inValue: number, outValue: number, decimals: number): string | undefined {
  let [rateIn, rateOut] = [inValue, outValue];
  if (rateIn !== 1) [rateIn, rateOut] = [1, rateOut / rateIn];
  if (rateOut < 1) [rateIn, rateOut] = [1 / rateOut, 1];
  const x = rateIn === 1 ? rateOut : rateIn;
  return Number.isFinite(x) && x < 1e21 ? x.toFixed(decimals) : undefined;
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
  if (decimals === undefined) return [];
  if (!inText || !outText) return [['dropped', 'no <in> or <out>: the item is skipped']];
  const [rateIn, rateOut] = [floatRead(inText), floatRead(outText)];
  if (rateIn === undefined || rateOut === undefined)
    return [['dropped', `the rate ${inText}:${outText} is not two numbers: reading it fails`]];
  // No finite X to store: Decimal(inf).quantize raises, a NaN is no rate.
  if (!rateIn.isFinite() || !rateOut.isFinite())
    return [['dropped', `the rate ${inText}:${outText} is not two finite numbers: storing it fails`]];
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
  // The file's X, exactly; and the X the monitor stores, made as its code makes it.
  const x = paysMore ? a.div(b) : b.div(a);
  const stored = storedX(a.toNumber(), b.toNumber(), decimals);
  if (stored === undefined || stored.length >= 20)
    return [...verdicts, ['dropped', `the rate's X (${stored ?? formatDecimal(x)}) has too many digits to be stored`]];
  const read = new Decimal(stored);
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
