// The dashboard's section on the pairs of `rates:`: per pair how it was made, its spread between sources, and each
// term's state, so a source drifting from the others shows before it is dropped.
import type { RateStatus } from '../../pure/status/rates.js';
import { escapeHtml, html, table } from './html.js';
import { publicText, type Redaction } from './redact.js';

export type RateView = RateStatus;

/** The status's pairs with every text made public (a term's reason may quote a source's answer). */
export function rateViews(rates: readonly RateStatus[] | undefined, redaction: Redaction): RateView[] {
  const text = (value: string) => publicText(value, redaction);
  return (rates ?? []).map((rate) => ({
    ...rate,
    terms: rate.terms.map((term) => ({ ...term, ...(term.why === undefined ? {} : { why: text(term.why) }) })),
    ...(rate.missing === undefined ? {} : { missing: text(rate.missing) }),
  }));
}

const termClass = { used: 'good', dropped: 'bad', missing: 'warn', unused: 'muted' } as const;

export function ratesSection(rates: readonly RateView[]): string {
  if (rates.length === 0) return '';
  const rows = rates.map((rate) => [
    rate.pair,
    rate.made,
    html(
      rate.ok ? '<span class="good">ok</span>' : `<span class="bad">MISSING</span>: ${escapeHtml(rate.missing ?? '')}`,
    ),
    rate.spreadText ?? '—',
    rate.bid === undefined ? '—' : `${rate.bid} / ${rate.ask}`,
    html(
      rate.terms
        .map(
          (term) =>
            `<span class="${termClass[term.status]}">${escapeHtml(term.label)}</span>${term.status === 'used' ? '' : ` (${escapeHtml(term.status)}${term.why ? `: ${escapeHtml(term.why)}` : ''})`}`,
        )
        .join('; '),
    ),
  ]);
  return `<h2 id="rates">Rates made by formulas and consensus</h2>\n${table(['Pair', 'Made by', 'State', 'Spread', 'Bid / ask', 'Terms'], rows, { numeric: new Set([3]), caption: 'Pairs of rates:' })}`;
}
