// The preview page's "Competing on BestChange" table: each competing direction's place, what set its rate, and why.
import type { BuildReport } from '../build.js';
import { escapeHtml, table } from './html.js';

const basisText = { place: 'holds the place', floor: 'pinned at the floor', ceiling: 'at the ceiling', fallback: 'NORMAL MARGIN: field not trusted' } as const;

export function competingSection(report: BuildReport): string {
  const rows = report.priced.flatMap(({ direction, compete }) =>
    compete
      ? [[`${direction.from.code} → ${direction.to.code}`, compete.target, compete.basis === 'fallback' && compete.place === 0 ? '–' : String(compete.place), String(compete.competitors), basisText[compete.basis], compete.reason ?? '', compete.feedAgeSeconds === undefined ? '–' : `${compete.feedAgeSeconds} s`]]
      : [],
  );
  if (rows.length === 0) return '';
  return `<h2 id="competing">${escapeHtml('Competing on BestChange')}</h2>\n${table(['Direction', 'Target', 'Place', 'Competitors', 'Rate set by', 'Why', 'Feed age'], rows, new Set([2, 3]))}`;
}
