// How a build made each pair of `rates:`, or why it could not: read by explain, the dashboard, /metrics and the alerts.
import type { Decimal } from '../../base/decimal.js';
import type { RateRule } from '../../model/rates.js';
import type { Quote } from '../../model/source.js';

export type TermStatus = 'used' | 'dropped' | 'missing' | 'unused';

/** What one term (or a formula's result) came to in a build. */
export interface TermOutcome {
  readonly label: string;
  /** The term's value, when every quote it reads was there and fresh. */
  readonly bid?: Decimal;
  readonly ask?: Decimal;
  /** Its oldest quote's time. */
  readonly time?: Date;
  /** The quotes it read. */
  readonly quotes: readonly Quote[];
  /**
   * used: counted in the result; dropped: an outlier past the spread; missing: not there or not fresh; unused: fresh,
   * but the pair could not be made (too few others, or no single outlier).
   */
  readonly status: TermStatus;
  readonly why?: string;
}

/** How a ruled pair (or a direction's own formula) was made in one build, or why it could not be. */
export interface Derivation {
  readonly pair: string;
  readonly rule: RateRule;
  readonly terms: readonly TermOutcome[];
  /** A consensus: (highest mid − lowest mid) ÷ median mid of the fresh terms, before any was dropped. */
  readonly spread?: Decimal;
  /** The made quote; absent when missing. */
  readonly bid?: Decimal;
  readonly ask?: Decimal;
  /** Why the pair is missing this build. */
  readonly missing?: string;
}
