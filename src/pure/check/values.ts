// The value forms of the export standard: plain dot-decimal numbers, limits with an optional unit, fees, floating.
// Values stay text (see plain.ts): a big file has tens of thousands of them and nearly all are fine.
import { Decimal, formatDecimal } from '../../base/decimal.js';
import { atLeastOne, isOne, isPlain, isWhole } from './plain.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** A plain dot-decimal number (`12`, `0.5`): no sign, comma, exponent, spaces or bare dot. */
export function parseNumber(text: string): Parsed<Decimal> {
  const problem = numberProblem(text);
  return problem === undefined ? { ok: true, value: new Decimal(text) } : { ok: false, problem };
}

/** What keeps `text` from being a plain dot-decimal number, or undefined when it is one. */
export function numberProblem(text: string): string | undefined {
  if (isPlain(text)) return undefined;
  if (text === '') return 'is empty';
  if (/^\d+,\d+$/.test(text) && !/^\d{1,3},\d{3}$/.test(text))
    return `has a decimal comma: write ${text.replace(',', '.')}`;
  if (text.includes(',')) return 'has a comma: use a dot as the decimal point and no thousands separators';
  if (/^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$/.test(text))
    return `is in exponent notation: write ${formatDecimal(new Decimal(text))}`;
  if (text.startsWith('-')) return 'is negative';
  if (text.startsWith('+')) return `has a sign: write ${text.slice(1)}`;
  if (/^\.\d+$/.test(text)) return `has no digit before the dot: write 0${text}`;
  if (/^\d+\.$/.test(text)) return `ends with a dot: write ${text.slice(0, -1)}`;
  if (/\s/.test(text)) return 'has spaces inside';
  return 'is not a number';
}

/**
 * A non-negative number in exponent notation (`3.849952E-7`) as plain text, or undefined. PHP's, Python's and Go's
 * number parsers read it, and no monitor profile records a parser that misreads it: a departure from the standard, not
 * a misreading (tolerated). An exponent beyond ±40 stays an error: its plain text would be as long as the exponent.
 */
export function exponentPlain(text: string): string | undefined {
  const match = /^\+?(?:\d+\.?\d*|\.\d+)[eE]([+-]?\d+)$/.exec(text);
  if (!match || Math.abs(Number(match[1])) > 40) return undefined;
  return formatDecimal(new Decimal(text));
}

/** The message of a number in exponent notation. */
export const exponentMessage = (name: string, text: string, plain: string): string =>
  `${name} "${text}" is in exponent notation (${plain}): PHP, Python and Go read it, no monitor profile is known to misread it, but the standard asks for a plain decimal`;

/**
 * A reserve or maximum written as a negative number (`-5`): monitors read it as written, like a zero one, and no
 * order can be made; the magnitude's text, or undefined when `text` is not a minus sign and a plain number.
 */
export function negativeNumber(text: string): string | undefined {
  return text.startsWith('-') && isPlain(text.slice(1)) ? text.slice(1) : undefined;
}

/** The message of a negative reserve or maximum: read as written, like a zero one. */
export const negativeMessage = (name: string, text: string): string =>
  `${name} "${text}" is negative: read as written, like zero no order can be made; leave the direction out instead`;

export interface Limit {
  /** The number, plain dot-decimal text. */
  value: string;
  /** The currency suffix of the classic form (`100 RUB`); undefined for a plain number in the from currency. */
  unit?: string;
}

/** `minamount`/`maxamount`: a plain number in the from currency, or the classic `100 RUB`. */
export function parseLimit(text: string): Parsed<Limit> {
  if (isPlain(text)) return { ok: true, value: { value: text } };
  const parts = text.split(' ');
  const [number = '', unit] = parts;
  if (parts.length > 2 || (unit !== undefined && !/^[A-Z][A-Z0-9]*$/.test(unit))) {
    const lone = numberProblem(text);
    return lone === undefined
      ? { ok: true, value: { value: text } }
      : {
          ok: false,
          problem: `${lone} (expected a number, optionally followed by a currency code: "100" or "100 RUB")`,
        };
  }
  const problem = numberProblem(number);
  if (problem !== undefined) return { ok: false, problem };
  return { ok: true, value: { value: number, ...(unit === undefined ? {} : { unit }) } };
}

export interface FeePart {
  /** The number, plain dot-decimal text. */
  value: string;
  /** `%`, a currency code, or undefined for the currency of the side the fee is on. */
  unit?: string;
}

/** `fromfee`/`tofee`/`minfee`: `0.0005`, `1 %`, `1%`, `2 USD`, or parts joined by ", " (`1 USD, 0.5 %`). */
export function parseFee(text: string): Parsed<FeePart[]> {
  const parts: FeePart[] = [];
  for (const part of text.split(/,\s+/)) {
    // `1E5` would otherwise read as 1 of a currency called E5.
    const whole = numberProblem(part);
    if (whole?.startsWith('is in exponent')) return { ok: false, problem: `"${part}" ${whole}` };
    const match = /^(\S+?)\s?(%|[A-Z][A-Z0-9]*)?$/.exec(part);
    if (!match) return { ok: false, problem: `"${part}" is not a fee (expected 0.0005, 1 %, or 2 USD)` };
    const problem = numberProblem(match[1]!);
    if (problem !== undefined) return { ok: false, problem: `"${part}" ${problem}` };
    parts.push({ value: match[1]!, ...(match[2] === undefined ? {} : { unit: match[2] }) });
  }
  return { ok: true, value: parts };
}

/** `floating`: minutes the rate is held (`15`), or a market move in percent (`1%`); numbers as plain text. */
export function parseFloating(text: string): Parsed<{ minutes?: string; percent?: string }> {
  const percent = /^(\S+?)\s?%$/.exec(text);
  const number = percent ? percent[1]! : text;
  const problem = numberProblem(number);
  if (problem !== undefined) return { ok: false, problem: `${problem} (expected minutes like 15 or a move like 1%)` };
  if (!percent && !isWhole(number))
    return { ok: false, problem: 'expected whole minutes like 15, or a move in percent like 1%' };
  return { ok: true, value: percent ? { percent: number } : { minutes: number } };
}

/** The rate in its published form, or why it is not 1:X / X:1 with X ≥ 1 (and the form it should take). */
export function rateFormProblem(inValue: Decimal, outValue: Decimal): string | undefined {
  if (inValue.isZero() || outValue.isZero()) return 'a side of the rate is zero: leave the direction out instead';
  const shown = `${formatDecimal(inValue)}:${formatDecimal(outValue)}`;
  const one = new Decimal(1);
  const ratio = outValue.div(inValue);
  // The other side, rounded against the client as an exporter would: `out` down, `in` up.
  const other = ratio.greaterThanOrEqualTo(1) ? ratio : one.div(ratio);
  const shownOther = other.toDecimalPlaces(8, ratio.greaterThanOrEqualTo(1) ? Decimal.ROUND_DOWN : Decimal.ROUND_UP);
  const suggestion = ratio.greaterThanOrEqualTo(1)
    ? `1:${formatDecimal(shownOther)}`
    : `${formatDecimal(shownOther)}:1`;
  const about = shownOther.equals(other) ? '' : 'about ';
  if (inValue.equals(one) && outValue.greaterThanOrEqualTo(one)) return undefined;
  if (outValue.equals(one) && inValue.greaterThanOrEqualTo(one)) return undefined;
  if (inValue.equals(one) || outValue.equals(one)) {
    return `rate ${shown}: the side that is not 1 must be at least 1; the same rate is ${about}${suggestion}`;
  }
  return `rate ${shown}: one side must be exactly 1 and the other at least 1; the same rate is ${about}${suggestion}`;
}

/**
 * Why a rate written as text is not 1:X / X:1 with X ≥ 1: the common good forms pass as text, without a Decimal;
 * anything else gets rateFormProblem's wording (or passes it).
 */
export function rateTextProblem(inValue: string, outValue: string): string | undefined {
  if ((isOne(inValue) && atLeastOne(outValue)) || (isOne(outValue) && atLeastOne(inValue))) return undefined;
  return rateFormProblem(new Decimal(inValue), new Decimal(outValue));
}
