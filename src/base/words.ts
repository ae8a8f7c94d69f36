// How ratefile words things for people — a percentage, a count, an age, a long rate, a direction — once, so the CLI,
// the logs, status, explain, alerts and the dashboard say them alike. Pure; imports nothing above decimal.ts.
import { type Decimal, formatDecimal } from './decimal.js';

/** A fraction as a percentage: 0.015 → "1.5%". */
export const percent = (fraction: Decimal): string => `${formatDecimal(fraction.times(100))}%`;

/** `1 file`, `2 files`; `plural(2, 'entry', 'entries')` for a word that does not just take an s. */
export const plural = (count: number, word: string, many = `${word}s`): string =>
  `${count} ${count === 1 ? word : many}`;

/**
 * A duration, each figure rounded to the nearest unit shown: 90 → "90 s", 300 → "5 min", 7500 → "2 h 5 min",
 * 360000 → "4 days". Seconds up to two minutes and minutes up to two hours, so a limit like "60 s" or "90 min" reads
 * as it was set; a negative duration (a clock ahead of ours) keeps its sign.
 */
export function age(seconds: number): string {
  const s = Math.round(Math.abs(seconds));
  const sign = seconds < 0 && s > 0 ? '-' : '';
  if (s < 120) return `${sign}${s} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 120) return `${sign}${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${sign}${hours} h${minutes % 60 === 0 ? '' : ` ${minutes % 60} min`}`;
  return `${sign}${Math.round(s / 86_400)} days`;
}

/** How long ago `iso` was at `now`: "5 s ago", "2 h 5 min ago". */
export const ago = (iso: string, now: Date | string): string =>
  `${age((new Date(now).getTime() - Date.parse(iso)) / 1000)} ago`;

/**
 * A rate or an amount computed for reading (a quotient can have 40 digits): 14 significant digits, "…" when that
 * cut something. Fourteen shows the digit a rounding decides on the rates exchangers publish (a rate in the
 * millions with its 4 to 8 decimals), so `explain` can be followed step by step; the exact values are in the files.
 */
export function show(value: Decimal): string {
  const short = value.toSignificantDigits(14);
  return `${formatDecimal(short)}${short.equals(value) ? '' : '…'}`;
}

/** A direction as people read it: "BTC → SBERRUB". Its id (`BTC>SBERRUB`, the key in config, state and JSON) stays as it is. */
export const directionName = (from: string, to: string): string => `${from} → ${to}`;

/** The name of a direction given by its id `FROM>TO`. */
export function directionNameOfId(id: string): string {
  const at = id.indexOf('>');
  return at === -1 ? id : directionName(id.slice(0, at), id.slice(at + 1));
}
