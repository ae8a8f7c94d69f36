// Reserves shaped, not only read: the published reserve as a formula over back-office entries, capped at an amount
// or a share of what is there, and margins that follow the reserve. Config fields and their normalized form.
import { z } from 'zod';
import type { Decimal } from '../base/decimal.js';
import { amount, describeValue, percentage, text } from '../base/config/fields.js';
import { type Formula, parseFormula } from '../base/config/formula.js';

export const reserveFormulaField = z
  .string({
    error: (issue) =>
      `expected a formula like "hot:USDTTRC20 + cold:USDTTRC20 - payouts:USDTTRC20", got ${describeValue(issue.input)}`,
  })
  .transform((value, context): Formula => {
    const read = parseFormula(value, 'entry');
    if ('problem' in read) {
      context.addIssue({ code: 'custom', message: read.problem, input: value });
      return z.NEVER;
    }
    return read;
  })
  .describe(
    'The reserve as a formula over reserve sources\' entries (`source:CODE`), e.g. "hot:USDTTRC20 + cold:USDTTRC20 - payouts:USDTTRC20"; below 0 it is 0. Instead of reserve or reserveFrom.',
  );

export const reserveCapField = z
  .union([amount, text(/^\d+(\.\d+)?\s?%$/, 'an amount like "50000" or a share like "80%"')], {
    error: (issue) => `expected an amount like "50000" or a share like "80%", got ${describeValue(issue.input)}`,
  })
  .describe('The most reserve published: an amount of the currency, or a share of what is there ("80%").');

export const reserveMarginsField = z
  .array(
    z.strictObject({
      from: amount.describe('From this reserve on (in the to currency, as published)…'),
      margin: percentage.describe("…this margin instead of the direction's."),
    }),
  )
  .min(1, { error: 'expected at least one step' })
  .describe(
    "Margins by reserve: from a published reserve of `from` on, `margin`; the step with the highest `from` reached wins, below every step the direction's margin.",
  );

/** A cap, normalized: an amount, or a share (0..1] of the reserve there is. */
export type ReserveCap = { readonly amount: Decimal } | { readonly share: Decimal };

/** The margin from a reserve on, ascending by `from`. */
export interface ReserveMargin {
  readonly from: Decimal;
  readonly margin: Decimal;
}
