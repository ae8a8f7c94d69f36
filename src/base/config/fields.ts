// Leaf schemas for config values, each with an error message that says what was expected and what was got.
import { z } from 'zod';
import { checkDecimalLength } from '../decimal.js';
import { quoteValue } from '../errors.js';
import { parseHours } from '../hours.js';

/** How a config value is shown in an error: strings quoted, structures named. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return quoteValue(value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

function expected(what: string) {
  return (issue: { input?: unknown }) => `expected ${what}, got ${describeValue(issue.input)}`;
}

/** A text value matching `pattern`, with one message for a wrong type and a wrong shape alike. */
export function text(pattern: RegExp, what: string) {
  // abort: a value of the wrong shape gets this one message, not also those of later refinements.
  return z.string({ error: expected(what) }).regex(pattern, { error: expected(what), abort: true });
}

/**
 * A text value whose leading number (`12.5`, `1.5%`, `5000 RUB`) is not longer than decimals may be
 * (src/base/decimal.ts): every decimal of the config and templates is read through this.
 */
function decimalText(pattern: RegExp, what: string) {
  return text(pattern, what).superRefine((value, context) => {
    const problem = checkDecimalLength(value);
    // fatal: a number this long gets this one message, and later refinements never read it.
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem, input: value, fatal: true });
  });
}

/** Accept a YAML number as its decimal text, so `reserve: 12.5` and `reserve: "12.5"` mean the same. */
function numberAsText(value: unknown): unknown {
  return typeof value === 'number' && Number.isFinite(value) && !/e/i.test(String(value)) ? String(value) : value;
}

const decimalPattern = /^\d+(\.\d+)?$/;

/** A non-negative plain decimal such as `12.5`; no exponents, commas or signs. */
export const amount = z.preprocess(numberAsText, decimalText(decimalPattern, 'a non-negative decimal like "12.5"'));

/** A quote's price: like `amount`, but its length is bounded where every source's quotes are checked (`MAX_QUOTE_DIGITS`). */
export const price = z.preprocess(numberAsText, text(decimalPattern, 'a non-negative decimal like "12.5"'));

/** A percentage such as `1.5%`, bounded so a typo cannot give the rate away. */
export const percentage = decimalText(/^-?\d+(\.\d+)?\s?%$/, 'a percentage like "1.5%"').refine(
  (value) => Math.abs(Number.parseFloat(value)) < 100,
  { error: (issue) => `expected a percentage between -100% and 100%, got ${describeValue(issue.input)}` },
);

/** A bound on a move, above zero and past 100% if need be (`30%`, `400%` for ×5): bounded, so a typo stays a typo. */
export const movePercentage = decimalText(/^\d+(\.\d+)?\s?%$/, 'a percentage like "30%"').refine(
  (value) => Number.parseFloat(value) > 0 && Number.parseFloat(value) <= 100_000,
  { error: (issue) => `expected a percentage above 0% and at most 100000%, got ${describeValue(issue.input)}` },
);

const codePattern = /^[A-Z][A-Z0-9]{1,15}$/;
export const currencyCode = text(codePattern, 'a currency code in capitals like "SBERRUB"');
export const assetCode = text(/^[A-Z][A-Z0-9]{1,9}$/, 'an asset ticker in capitals like "RUB" or "USDT"');
export const cityCode = text(/^[A-Z][A-Z0-9]{1,9}$/, 'a city code in capitals like "MSK"');
export const pairText = text(/^[A-Z][A-Z0-9]{1,9}\/[A-Z][A-Z0-9]{1,9}$/, 'a quote pair like "BTC/USDT"');

/** An amount with an optional unit: `0.01` (in the direction's from currency) or `5000 RUB`. */
export const amountWithUnit = z.preprocess(
  numberAsText,
  decimalText(/^\d+(\.\d+)?( [A-Z][A-Z0-9]{1,15})?$/, 'an amount like "0.01" or "5000 RUB"'),
);

/** A fee as the monitors print it: `0.0005` (direction currency), `1.5%` or `2 USD`. */
export const fee = z.preprocess(
  numberAsText,
  decimalText(/^\d+(\.\d+)?(\s?%| [A-Z][A-Z0-9]{1,15})?$/, 'a fee like "0.0005", "1.5%" or "2 USD"'),
);

const durationPattern = /^(\d+(?:\.\d+)?)\s?(ms|s|m|h|d)$/;
const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration, `500ms`, `10s`, `5m`, `1h`, `1d` (a plain number is seconds), as milliseconds. */
export const duration = z
  .preprocess(
    (value) =>
      typeof value === 'number' && Number.isFinite(value) && value >= 0 && !/e/i.test(String(value))
        ? `${value}s`
        : value,
    decimalText(durationPattern, 'a duration like "10s", "5m" or "1h"'),
  )
  .transform((value) => {
    const [, amount = '0', unit = 's'] = durationPattern.exec(value) ?? [];
    return Math.round(Number(amount) * (durationUnits[unit] ?? 1000));
  });

export const minutes = z
  .int({ error: expected('a whole number of minutes') })
  .min(0, { error: expected('a whole number of minutes') });

/** `floating`: minutes the rate is held, or the market move in percent that ends it. */
export const floating = z.preprocess(
  (value) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? String(value) : value),
  decimalText(/^(\d+|\d+(\.\d+)?\s?%)$/, 'minutes like 15 or a percentage like "1%"'),
);

export const labels = ['manual', 'juridical', 'verifying', 'cardverify', 'reg', 'otherin', 'otherout'] as const;
export type Label = (typeof labels)[number];
export const label = z.enum(labels, { error: expected(`one of ${labels.join(', ')}`) });

/** Working hours, checked by parseHours so a bad day, time or zone is reported at load. */
export const hours = z
  .string({ error: expected('hours like "Mon-Fri 09:00-21:00 Europe/Moscow"') })
  .superRefine((value, context) => {
    const parsed = parseHours(value);
    if (typeof parsed === 'string')
      context.addIssue({ code: 'custom', message: `${parsed}, got ${describeValue(value)}` });
  });

export const tag = text(/^[a-z0-9][a-z0-9_-]*$/, 'a tag in lower case like "ref"');

export const precision = z
  .int({ error: expected('an integer 0..18') })
  .min(0, { error: expected('an integer 0..18') })
  .max(18, { error: expected('an integer 0..18') });

/** One value or a list of them, so `from: BTC` and `from: [BTC, ETH]` both work. */
export function oneOrMany<T extends z.ZodType>(item: T, what: string) {
  return z.union([item, z.array(item).min(1, { error: `expected at least one ${what}` })], {
    error: expected(`${what} or a list of them`),
  });
}

/** A User-Agent as sent: printable ASCII (a header cannot carry more), at most 300 characters. */
export const userAgentText = z
  .string()
  .min(1)
  .max(300)
  .regex(/^[\x20-\x7e]+$/, { error: 'expected a user agent of printable ASCII' });
