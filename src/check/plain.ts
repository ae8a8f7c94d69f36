// Plain dot-decimal numbers (`12`, `0.5`) decided as text: the per-item rules construct a Decimal only to word a
// finding or when a float comparison is too close to call. Every function here expects a plain number.
import { Decimal } from '../decimal.js';

const plain = /^\d+(\.\d+)?$/;
const nonZeroDigit = /[1-9]/;
const one = /^0*1(\.0+)?$/;
const atLeastOneForm = /^0*[1-9]/;
const whole = /^\d+(\.0+)?$/;

/** Digits, optionally a dot and more digits: no sign, comma, exponent, spaces or bare dot. */
export const isPlain = (text: string): boolean => plain.test(text);
export const isZero = (text: string): boolean => !nonZeroDigit.test(text);
export const isOne = (text: string): boolean => one.test(text);
/** At least 1: a non-zero digit before the dot. */
export const atLeastOne = (text: string): boolean => atLeastOneForm.test(text);
export const isWhole = (text: string): boolean => whole.test(text);

/** The sign of a − b, exactly. */
export function compare(a: string, b: string): number {
  const [aWhole, aFraction] = split(a);
  const [bWhole, bFraction] = split(b);
  if (aWhole.length !== bWhole.length) return aWhole.length < bWhole.length ? -1 : 1;
  if (aWhole !== bWhole) return aWhole < bWhole ? -1 : 1;
  // Without trailing zeros, digit strings after the dot order like the fractions they write.
  return aFraction === bFraction ? 0 : aFraction < bFraction ? -1 : 1;
}

/** The digits before the dot without leading zeros, and after it without trailing zeros. */
function split(text: string): [string, string] {
  const dot = text.indexOf('.');
  const before = (dot === -1 ? text : text.slice(0, dot)).replace(/^0+/, '');
  const after = dot === -1 ? '' : text.slice(dot + 1).replace(/0+$/, '');
  return [before, after];
}

/** Decimal that never rounds a product: a product of two plain numbers has at most the digits of both. */
const Exact = Decimal.clone({ precision: 1e9 });

/**
 * Whether `limit` × `out` / `in` is above `amount`, exactly: `limit` × `out` > `amount` × `in`, no division, so a
 * maximum that pays exactly the reserve is not called more than it (1/in rounded to 40 digits would tip it).
 * Doubles decide when the two sides are clearly apart: their relative error stays below 1e-15 while the margin
 * asked is 1e-12.
 */
export function paysMoreThan(limit: string, inText: string, outText: string, amount: string): boolean {
  const [l, i, o, a] = [Number(limit), Number(inText), Number(outText), Number(amount)];
  if (normal(l) && normal(i) && normal(o) && normal(a)) {
    const pays = (l * o) / i;
    if (pays > a * (1 + 1e-12)) return true;
    if (pays < a * (1 - 1e-12)) return false;
  }
  return new Exact(limit).times(outText).greaterThan(new Exact(amount).times(inText));
}

/** Far from overflow and underflow, so products and quotients of three stay normal doubles. */
const normal = (value: number): boolean => value >= 1e-90 && value <= 1e90;
