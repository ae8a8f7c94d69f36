// The pairs of `rates:` as the status keeps them (status.json, the dashboard, /metrics, the alerts): how each was
// made this build, its spread between sources, and each term's state. Plain JSON; and the lines `ratefile status`
// and the build log give a pair that cannot be made. Pure.
import { formatDecimal } from '../../base/decimal.js';
import { shortPercent } from '../rates/consensus.js';
import type { Derivation, TermStatus } from '../rates/derivation.js';
import type { RateRule } from '../../model/rates.js';

export interface RateStatus {
  pair: string;
  /** `formula`, or the consensus method and its terms: `median of 3`. */
  made: string;
  ok: boolean;
  bid?: string;
  ask?: string;
  /** A consensus: (highest mid − lowest mid) ÷ median mid of its fresh terms, as a fraction, and in words. */
  spread?: number;
  spreadText?: string;
  terms: { label: string; status: TermStatus; why?: string }[];
  /** Why the pair could not be made. */
  missing?: string;
}

/** How a pair is made, in words: `formula`, `median of 3`. */
export const madeBy = (rule: RateRule): string =>
  rule.kind === 'formula' ? 'formula' : `${rule.method} of ${rule.terms.length}`;

/** A pair that cannot be made, in words: the build log's line, health's reason, `ratefile status`'s line. */
export const notMadeText = (rate: { pair: string; made: string; missing?: string | undefined }): string =>
  `rate ${rate.pair} (${rate.made}) cannot be made: ${rate.missing ?? 'unknown'}`;

/** `ratefile status`'s lines of the pairs that cannot be made (none while every pair is made). */
export function notMadeLines(rates: readonly RateStatus[] | undefined): string[] {
  const missing = (rates ?? []).filter((rate) => !rate.ok);
  if (missing.length === 0) return [];
  return [
    `rates that cannot be made: ${missing.length} of ${rates!.length}`,
    ...missing.map((rate) => `  ${rate.pair} (${rate.made}): ${rate.missing ?? 'unknown'}`),
  ];
}

export function rateStatuses(derivations: readonly Derivation[]): RateStatus[] {
  return derivations.map(({ pair, rule, terms, spread, bid, ask, missing }) => ({
    pair,
    made: madeBy(rule),
    ok: missing === undefined,
    ...(bid === undefined || ask === undefined ? {} : { bid: formatDecimal(bid), ask: formatDecimal(ask) }),
    ...(spread === undefined ? {} : { spread: spread.toNumber(), spreadText: shortPercent(spread) }),
    terms: terms.map((term) => ({
      label: term.label,
      status: term.status,
      ...(term.why === undefined ? {} : { why: term.why }),
    })),
    ...(missing === undefined ? {} : { missing }),
  }));
}
