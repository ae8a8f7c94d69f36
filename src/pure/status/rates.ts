// The pairs of `rates:` as the status keeps them (status.json, the dashboard, /metrics, the alerts): how each was
// made this build, its spread between sources, and each term's state. Plain JSON. Pure.
import { formatDecimal } from '../../base/decimal.js';
import { shortPercent } from '../rates/consensus.js';
import type { Derivation, TermStatus } from '../rates/derivation.js';

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

export function rateStatuses(derivations: readonly Derivation[]): RateStatus[] {
  return derivations.map(({ pair, rule, terms, spread, bid, ask, missing }) => ({
    pair,
    made: rule.kind === 'formula' ? 'formula' : `${rule.method} of ${rule.terms.length}`,
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
