// The dashboard's section on the directions one source alone can set, and a direction's reference line: per group of pairs, what checks them (another
// source's quote, a cross, BestChange rivals) or that nothing does, so a config's single points of failure show.
import { directionNameOfId, plural } from '../../base/words.js';
import type { BuildReport } from '../../pure/status/report.js';
import { builtEntries, soleSourceGroups, type SoleSourceStatus } from '../../pure/status/sole-source.js';
import { escapeHtml, type Html, html, table } from './html.js';
import type { DirectionFacts } from './rows.js';
import { publicText, type Redaction } from './redact.js';

export type SoleSourceView = SoleSourceStatus;

/** The build's groups, every text made public. */
export function soleSourceViews(report: BuildReport | undefined, redaction: Redaction): SoleSourceView[] {
  const text = (value: string) => publicText(value, redaction);
  return soleSourceGroups(builtEntries(report?.soleSource ?? [])).map((group) => ({
    ...group,
    pairs: group.pairs.map(text),
    ...(group.reference === undefined ? {} : { reference: text(group.reference) }),
  }));
}

/** Directions named per group in the table; the filters find the rest. */
const named = 6;

export function soleSourceSection(groups: readonly SoleSourceView[]): string {
  if (groups.length === 0) return '';
  const count = groups.reduce((sum, group) => sum + group.directions.length, 0);
  const rows = groups.map((group) => [
    group.pairs.join(', '),
    group.reference === undefined
      ? html('<span class="bad">no reference</span>')
      : html(
          `${escapeHtml(group.reference)}${group.unchecked ? ` <span class="warn">(nothing checks ${escapeHtml(group.unchecked.join(', '))})</span>` : ''}`,
        ),
    `${group.directions.slice(0, named).map(directionNameOfId).join(', ')}${group.directions.length > named ? ` and ${group.directions.length - named} more` : ''}`,
  ]);
  return `<h2 id="sole-source">Priced by one source</h2>\n<p>${plural(count, 'direction')} whose market one source alone sets: one broken source can set their rate unless a reference checks it (docs/pricing-and-guards.md).</p>\n${table(['Pairs (source)', 'Checked against', 'Directions'], rows, { caption: 'Directions priced by one source' })}`;
}

/** `reference 92.1 : 1 (bybit:USDT/RUB), 0.12% off, band 3%`: past the band in red. */
export function referenceLine(reference: NonNullable<DirectionFacts['reference']>): Html {
  const unchecked = reference.unchecked ? `; nothing checks ${reference.unchecked.join(', ')}` : '';
  return html(
    `<span class="${reference.past ? 'bad' : 'muted'}">reference ${escapeHtml(`${reference.market.in} : ${reference.market.out}`)} (${escapeHtml(reference.from)}), ${escapeHtml(reference.deviation)} off, band ${escapeHtml(reference.band)}${escapeHtml(unchecked)}</span>`,
  );
}
