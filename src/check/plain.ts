// Plain dot-decimal numbers (`12`, `0.5`) decided as text: doubles where they are clearly apart, exact integers
// (BigInt) at the boundary; no Decimal. Every function here expects a plain number.

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

/** A plain number's digits as an integer: `12.50` → 1250n. */
const integer = (text: string): bigint => BigInt(text.indexOf('.') === -1 ? text : text.replace('.', ''));
/** A plain number's count of decimals: `12.50` → 2. */
const decimals = (text: string): number => {
  const dot = text.indexOf('.');
  return dot === -1 ? 0 : text.length - dot - 1;
};
/** 10ⁿ as BigInt, made once: the exact comparison is the common case at the boundary (a maximum paying the reserve). */
const tens: bigint[] = [1n];
const ten = (exponent: number): bigint => {
  while (tens.length <= exponent) tens.push(tens[tens.length - 1]! * 10n);
  return tens[exponent]!;
};

/**
 * Whether `limit` × `out` / `in` is above `amount`, exactly: `limit` × `out` > `amount` × `in` in integers, no
 * division, so a maximum that pays exactly the reserve (as ratefile publishes it) is not called more than it.
 * Doubles decide when the two sides are clearly apart: their relative error stays below 1e-15 while the margin
 * asked is 1e-12; the exact comparison is for the boundary, which is common, so it is BigInt, not Decimal.
 */
export function paysMoreThan(limit: string, inText: string, outText: string, amount: string): boolean {
  const [l, i, o, a] = [Number(limit), Number(inText), Number(outText), Number(amount)];
  if (normal(l) && normal(i) && normal(o) && normal(a)) {
    const pays = (l * o) / i;
    if (pays > a * (1 + 1e-12)) return true;
    if (pays < a * (1 - 1e-12)) return false;
  }
  // limit × out × 10^(decimals of amount and in) > amount × in × 10^(decimals of limit and out), all integers.
  return integer(limit) * integer(outText) * ten(decimals(amount) + decimals(inText)) > integer(amount) * integer(inText) * ten(decimals(limit) + decimals(outText));
}

/** Far from overflow and underflow, so products and quotients of three stay normal doubles. */
const normal = (value: number): boolean => value >= 1e-90 && value <= 1e90;
