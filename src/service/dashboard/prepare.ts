// What the dashboard shows of one build that does not depend on the clock or the filter: every direction with
// its published form (the primary export's items, from select.ts), worked out once per build and kept per report.
import { Decimal } from '../../base/decimal.js';
import { selectExports, type ExportSelection } from '../../pure/exports/select.js';
import type { ExportTemplate } from '../../model/config.js';
import type { RatePair } from './history.js';
import { publicText, type Redaction } from './redact.js';
import type { BuildReport } from '../../pure/status/report.js';
import type { ExportItem } from '../../model/items.js';
import type { PricedDirection, WithheldDirection } from '../../model/priced.js';
import { percent } from '../../base/words.js';
import {
  type DirectionFacts,
  type DirectionState,
  type ExportedAs,
  type PublicText,
  publishedRow,
  withheldRow,
} from './rows.js';

export interface ExportFacts {
  name: string;
  file: string;
  primary: boolean;
  items: number;
  /** The partner markup, e.g. "0.5%"; "0%" when none. */
  markup: string;
  description?: string;
}

export interface Prepared {
  exports: ExportFacts[];
  rows: DirectionFacts[];
  currencies: string[];
  /** Published and market rate per published direction, in the published form, for the history. */
  rates: Map<string, RatePair>;
  counts: Record<DirectionState, number>;
}

/**
 * Exports in config order with the primary one first: the template named `parserfile` (the file monitors are
 * given), else the first with no markup and no tag filter (it publishes every direction at its own rate).
 */
export function orderExports(templates: readonly ExportTemplate[]): ExportTemplate[] {
  const primary =
    templates.find((t) => t.name === 'parserfile') ??
    templates.find((t) => t.markup.isZero() && !t.includeTags && t.excludeTags.length === 0) ??
    templates[0];
  return primary ? [primary, ...templates.filter((t) => t !== primary)] : [];
}

const cache = new WeakMap<BuildReport, Prepared>();
const ZERO = new Decimal(0);

export function prepare(report: BuildReport, templates: readonly ExportTemplate[], redaction: Redaction): Prepared {
  const known = cache.get(report);
  if (known) return known;
  // A private export's name is its lock (`private: true`): the public page neither lists nor links it.
  const ordered = orderExports(templates.filter((template) => template.private !== true));
  const selections = selectExports(report.priced, ordered);
  const items = itemsByDirection(ordered, selections);
  const text: PublicText = (value) => publicText(value, redaction);
  const { published, withheld, notes } = eachDirectionOnce(report, text);
  const rows: DirectionFacts[] = [];
  const rates = new Map<string, RatePair>();
  for (const priced of published) {
    const { id } = priced.direction;
    const row = publishedRow(priced, items.get(id) ?? [], notes.get(id), text);
    rows.push(row);
    if (row.rate && row.market) rates.set(id, [`${row.rate.in}:${row.rate.out}`, `${row.market.in}:${row.market.out}`]);
  }
  const primaryMarkup = ordered[0]?.markup ?? ZERO;
  const checked = new Map((report.checked ?? []).map((p) => [p.direction.id, p]));
  for (const held of withheld)
    rows.push(withheldRow(held, report, primaryMarkup, text, checked.get(held.direction.id)));
  inConfigOrder(rows, [...published, ...withheld]);
  for (const row of rows) row.search = searchText(row);
  const currencies = [...new Set(rows.flatMap((row) => [row.from, row.to]))].sort();
  const exports = exportFacts(ordered, selections);
  const counts = { published: 0, withheld: 0, paused: 0, hours: 0 };
  for (const row of rows) counts[row.state]++;
  const prepared = { exports, rows, currencies, rates, counts };
  cache.set(report, prepared);
  return prepared;
}

/** Items back to their direction: an export's aliases undone, so `USDTTRC` in reffile.xml is USDTTRC20 again. */
function itemsByDirection(
  ordered: readonly ExportTemplate[],
  selections: readonly ExportSelection[],
): Map<string, ExportedAs[]> {
  const items = new Map<string, ExportedAs[]>();
  selections.forEach((selection, index) => {
    const template = ordered[index]!;
    const codes = new Map(Object.entries(template.aliases).map(([code, alias]) => [alias, code]));
    const byDirection = new Map<string, ExportItem[]>();
    for (const item of selection.items) {
      const id = `${codes.get(item.from) ?? item.from}>${codes.get(item.to) ?? item.to}`;
      (byDirection.get(id) ?? byDirection.set(id, []).get(id)!).push(item);
    }
    for (const [id, list] of byDirection)
      (items.get(id) ?? items.set(id, []).get(id)!).push({
        file: selection.file,
        markup: template.markup,
        items: list,
      });
  });
  return items;
}

/**
 * Each direction once (report.directions): one left out of some exports only is published, its omissions noted;
 * one left out of every export that selects it is withheld, with its omissions as one reason.
 */
function eachDirectionOnce(report: BuildReport, text: PublicText) {
  const { directions } = report;
  const notes = new Map(directions.leftOut.map((o) => [o.direction.id, text(o.reason)]));
  const everywhere = new Map(directions.withheld.map((w) => [w.direction.id, w]));
  const pricedIds = new Set(report.priced.map((p) => p.direction.id));
  const published = report.priced.filter((p) => !everywhere.has(p.direction.id));
  const withheld = [
    ...report.withheld.filter((w) => !pricedIds.has(w.direction.id)),
    ...report.priced.flatMap((p) => everywhere.get(p.direction.id) ?? []),
  ];
  return { published, withheld, notes };
}

/** Config order (a from/to list's directions share their entry's index; the sort is stable). */
function inConfigOrder(rows: DirectionFacts[], entries: readonly (PricedDirection | WithheldDirection)[]): void {
  const index = new Map(entries.map((entry) => [entry.direction.id, entry.direction.index]));
  rows.sort((a, b) => index.get(a.id)! - index.get(b.id)!);
}

/** Lower-case text the search box looks in. */
function searchText(row: DirectionFacts): string {
  return [
    row.id,
    row.from,
    row.to,
    row.state,
    row.reason ?? '',
    ...row.labels,
    ...row.cities,
    ...row.exports,
    ...row.quotes.map((q) => `${q.source} ${q.pair}`),
  ]
    .join(' ')
    .toLowerCase();
}

function exportFacts(ordered: readonly ExportTemplate[], selections: readonly ExportSelection[]): ExportFacts[] {
  return ordered.map((template, index) => ({
    name: template.name,
    file: template.file,
    primary: index === 0,
    items: selections[index]!.items.length,
    markup: percent(template.markup),
    ...(template.description ? { description: template.description } : {}),
  }));
}
