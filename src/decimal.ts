// Decimal money arithmetic: one configured Decimal class and the number formats used everywhere.
import { Decimal as DecimalJs } from 'decimal.js';

/** High precision so chained conversions lose nothing before the one final rounding. */
export const Decimal = DecimalJs.clone({ precision: 40, rounding: DecimalJs.ROUND_HALF_EVEN, toExpNeg: -40, toExpPos: 40 });
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

/** Round to `places` decimals toward +∞ (up) or toward 0 (down); amounts here are never negative. */
export function roundUp(value: Decimal, places: number): Decimal {
  return value.toDecimalPlaces(places, Decimal.ROUND_UP);
}

export function roundDown(value: Decimal, places: number): Decimal {
  return value.toDecimalPlaces(places, Decimal.ROUND_DOWN);
}
