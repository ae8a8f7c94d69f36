// The `rates:` block of the config — pairs made by a formula over other quotes, or by a consensus of several sources —
// normalized into rules (src/pure/rates/rules.ts) that src/pure/rates/book.ts makes pairs by.
import { z } from 'zod';
import type { Decimal } from '../base/decimal.js';
import { describeValue, pairText, percentage } from '../base/config/fields.js';
import { type Formula, parseFormula } from '../base/config/formula.js';

/** A formula's text, read at load: a mistake is a config problem naming the column. */
export const formulaText = z
  .string({ error: (issue) => `expected a formula like "BTC/USDT * USDT/RUB", got ${describeValue(issue.input)}` })
  .transform((text, context): Formula => {
    const read = parseFormula(text);
    if ('problem' in read) {
      context.addIssue({ code: 'custom', message: read.problem, input: text });
      return z.NEVER;
    }
    return read;
  });

export const consensusMethods = ['median', 'mean', 'trimmed', 'worst'] as const;
export type ConsensusMethod = (typeof consensusMethods)[number];

const consensus = z.strictObject({
  sources: z
    .array(z.string({ error: (issue) => `expected a source name or a formula, got ${describeValue(issue.input)}` }))
    .min(2, { error: 'expected at least two terms: a consensus of one source is that source' })
    .max(20, { error: 'expected at most 20 terms' })
    .describe(
      'The terms: a source name (its quote of this pair, either way round) or a formula like "nbu:USD/UAH * kraken:USDT/USD".',
    ),
  method: z
    .enum(consensusMethods, {
      error: (issue) => `expected one of ${consensusMethods.join(', ')}, got ${describeValue(issue.input)}`,
    })
    .default('median')
    .describe(
      'How the fresh terms are combined, bid and ask apart: median (default), mean, trimmed (the mean without the highest and the lowest), worst (the lowest bid and the highest ask).',
    ),
  quorum: z
    .int({ error: 'expected a whole number of terms' })
    .min(1)
    .max(20)
    .optional()
    .describe('At least this many fresh terms, else the pair is missing. Default: a majority of the terms.'),
  spread: percentage
    .optional()
    .describe(
      'Terms further apart than this (highest mid − lowest mid, over the median mid): the one furthest from the median is dropped while a quorum remains, else the pair is missing.',
    ),
});

const rule = z.union([formulaText, consensus], {
  error: (issue) =>
    `expected a formula like "whitebit:BTC/USDT * USDT/UAH" or a consensus like { sources: [a, b, c] }, got ${describeValue(issue.input)}`,
});

export const ratesSchema = z
  .record(pairText, rule)
  .default({})
  .describe(
    'Pairs made by a formula over other quotes (`BTC/UAH: "whitebit:BTC/USDT * USDT/UAH"`) or by a consensus of several sources (`USDT/RUB: { sources: [a, b, c], spread: 1% }`); docs/formulas.md.',
  );

export type RatesFile = z.output<typeof ratesSchema>;

/** A pair's rule, normalized. Its terms are formulas: a consensus term naming a source alone is `source:PAIR`. */
export type RateRule = FormulaRule | ConsensusRule;

export interface FormulaRule {
  readonly kind: 'formula';
  readonly pair: string;
  readonly base: string;
  readonly quote: string;
  readonly formula: Formula;
}

export interface ConsensusRule {
  readonly kind: 'consensus';
  readonly pair: string;
  readonly base: string;
  readonly quote: string;
  readonly terms: readonly ConsensusTerm[];
  readonly method: ConsensusMethod;
  readonly quorum: number;
  /** As a fraction: "1%" → 0.01; absent: no limit. */
  readonly spread?: Decimal;
}

export interface ConsensusTerm {
  /** What people read: the source's name, or the formula's text. */
  readonly label: string;
  readonly formula: Formula;
}
