// Plain dot-decimal numbers (`12`, `0.5`) decided as text: doubles where they are clearly apart, exact integers
// at the boundary (doubles while the digits fit, BigInt beyond); no Decimal. Every function here expects a plain number.

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

/** Integers below 2^53 are doubles, and sums and products of them that stay below it are exact. */
export const exactLimit = 2 ** 53;
/** 10ⁿ as doubles, exact up to 10^22. */
const exactTens = Array.from({ length: 23 }, (_, exponent) => 10 ** exponent);

/**
 * The sign of a / 10^aScale − b / 10^bScale for integers a and b below 2^53, exactly; NaN when aligning the scales
 * would leave the exact range.
 */
export function compareScaled(a: number, aScale: number, b: number, bScale: number): number {
  if (aScale < bScale) {
    if (bScale - aScale >= exactTens.length) return NaN;
    // Rounding is monotonic and 2^53 is a double: a product at or above it was at or above it before rounding.
    a *= exactTens[bScale - aScale]!;
    if (a >= exactLimit) return NaN;
  } else if (bScale < aScale) {
    if (aScale - bScale >= exactTens.length) return NaN;
    b *= exactTens[aScale - bScale]!;
    if (b >= exactLimit) return NaN;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Whether limit × out / in > amount, exactly, each number given as its digits (an integer below 2^53) and its
 * scale (value = digits / 10^scale): limit × out against amount × in in doubles while those stay below 2^53, in
 * BigInt made from the digits past that.
 */
export function exceedsScaled(
  limit: number,
  limitScale: number,
  inDigits: number,
  inScale: number,
  out: number,
  outScale: number,
  amount: number,
  amountScale: number,
): boolean {
  const pays = limit * out;
  const holds = amount * inDigits;
  if (pays < exactLimit && holds < exactLimit) {
    const sign = compareScaled(pays, limitScale + outScale, holds, amountScale + inScale);
    if (!Number.isNaN(sign)) return sign > 0;
  }
  return (
    BigInt(limit) * BigInt(out) * ten(amountScale + inScale) >
    BigInt(amount) * BigInt(inDigits) * ten(limitScale + outScale)
  );
}

/** A plain number's digits as a double, or -1 when they are 2^53 or more (a double would not hold them exactly). */
function digitsOf(text: string): number {
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // While the true value stays below 2^53 every step is exact; once it is not, the rounded one is not below either.
    if (c !== 46) value = value * 10 + (c - 48);
  }
  return value < exactLimit ? value : -1;
}

/**
 * Whether `limit` × `out` / `in` is above `amount`, exactly: `limit` × `out` > `amount` × `in` in integers, no
 * division, so a maximum that pays exactly the reserve (as ratefile publishes it) is not called more than it.
 * Doubles decide when the two sides are clearly apart: their relative error stays below 1e-15 while the margin
 * asked is 1e-12. The boundary is common, so it is integers, not Decimal: exceedsScaled while the digits fit in
 * doubles, BigInt from the text beyond.
 */
export function paysMoreThan(limit: string, inText: string, outText: string, amount: string): boolean {
  const [l, i, o, a] = [Number(limit), Number(inText), Number(outText), Number(amount)];
  if (normal(l) && normal(i) && normal(o) && normal(a)) {
    const pays = (l * o) / i;
    if (pays > a * (1 + 1e-12)) return true;
    if (pays < a * (1 - 1e-12)) return false;
  }
  const digits = [digitsOf(limit), digitsOf(inText), digitsOf(outText), digitsOf(amount)] as const;
  if (!digits.includes(-1))
    return exceedsScaled(
      digits[0],
      decimals(limit),
      digits[1],
      decimals(inText),
      digits[2],
      decimals(outText),
      digits[3],
      decimals(amount),
    );
  // limit × out × 10^(decimals of amount and in) > amount × in × 10^(decimals of limit and out), all integers.
  return (
    integer(limit) * integer(outText) * ten(decimals(amount) + decimals(inText)) >
    integer(amount) * integer(inText) * ten(decimals(limit) + decimals(outText))
  );
}

/** Far from overflow and underflow, so products and quotients of three stay normal doubles. */
const normal = (value: number): boolean => value >= 1e-90 && value <= 1e90;
