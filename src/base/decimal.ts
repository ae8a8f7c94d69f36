// Decimal money arithmetic: one configured Decimal class and the number formats used everywhere.
import { Decimal as DecimalJs } from 'decimal.js';

/** High precision so chained conversions lose nothing before the one final rounding. */
export const Decimal = DecimalJs.clone({
  precision: 40,
  rounding: DecimalJs.ROUND_HALF_EVEN,
  toExpNeg: -40,
  toExpPos: 40,
});
export type Decimal = InstanceType<typeof Decimal>;

const plainDecimal = /^-?(\d+)(\.\d+)?$/;

/** Parse a plain decimal ("12", "0.5", "-3.25"); undefined for anything else (no exponents, commas or spaces). */
export function parseDecimal(text: string): Decimal | undefined {
  return plainDecimal.test(text) ? new Decimal(text) : undefined;
}

/** Plain dot-decimal text: never exponent notation, trailing zeros trimmed ("1.50" → "1.5", "2.000" → "2"). */
export function formatDecimal(value: Decimal): string {
  const text = value.toFixed();
  if (!text.includes('.')) return text === '-0' ? '0' : text;
  const trimmed = text.replace(/0+$/, '').replace(/\.$/, '');
  return trimmed === '-0' ? '0' : trimmed;
}

/**
 * An exact copy of `value` whose digits take only the room they need, for a number kept past the build that made
 * it: decimal.js's arithmetic leaves its digit array room to grow (17 places for 7 digits of 7), which at tens of
 * thousands of kept rates is megabytes. The constructor copies a Decimal as it is, never rounded.
 */
export const compact = (value: Decimal): Decimal => new Decimal(value);

/** Parse "1.5%" into the fraction 0.015. */
export function percentToFraction(text: string): Decimal {
  return new Decimal(text.replace('%', '').trim()).div(100);
}

/** Round to `places` decimals toward +∞ (up) or toward 0 (down); amounts here are never negative. */
export function roundUp(value: Decimal, places: number): Decimal {
  return value.toDecimalPlaces(places, Decimal.ROUND_UP);
}

export function roundDown(value: Decimal, places: number): Decimal {
  return value.toDecimalPlaces(places, Decimal.ROUND_DOWN);
}

/**
 * The longest decimal read from a config or a template: digits before and after the point. Decimal.js works
 * on every digit it is given, so a ten-million-digit reserve made a build take seconds; money never needs
 * more than this. Leading zeros count too: they cost as much to read. Quotes have their own, looser bound
 * (`MAX_QUOTE_DIGITS`): a source may send a price of a tiny coin with many decimals or an exponent.
 */
export const MAX_INTEGER_DIGITS = 30;
export const MAX_FRACTION_DIGITS = 18;
export const MAX_QUOTE_DIGITS = 40;

const leadingNumber = /^[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+)(?![\d.]))?/;

/**
 * How many digits the number at the start of `text` (`12.5`, `-3`, `1.5%`, `5000 RUB`, `1e-45`) has before and
 * after the point once written out, counted without writing it out: an exponent moves the point and adds zeros.
 */
export function writtenDigits(text: string): { integer: number; fraction: number } {
  const [, whole = '', part = '', exponentText = '0'] = leadingNumber.exec(text) ?? [];
  const exponent = Number(exponentText);
  if (exponent >= 0) return { integer: whole.length + exponent, fraction: Math.max(0, part.length - exponent) };
  return { integer: Math.max(1, whole.length + exponent), fraction: part.length - exponent };
}

/**
 * Why the number at the start of `text` is too long to read, in the `expected …, got …` form of config
 * problems; undefined when it is short enough.
 */
export function checkDecimalLength(text: string): string | undefined {
  const { integer, fraction } = writtenDigits(text);
  if (integer <= MAX_INTEGER_DIGITS && fraction <= MAX_FRACTION_DIGITS) return undefined;
  return `expected at most ${MAX_INTEGER_DIGITS} digits before the decimal point and ${MAX_FRACTION_DIGITS} after, got ${integer} before and ${fraction} after`;
}
