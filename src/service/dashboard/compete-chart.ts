// The competing directions' own 24-hour charts (our published rate, the market, the floor, the ceiling and the
// rate at the target place, with our place below) and BestChange's listing of us, for the dashboard. Pure: points
// in, SVG out. Bounded whatever the schedule: one point per minute per direction (the last build of the minute),
// 24 hours, at most MAX_CHARTED directions. Written to .ratefile/history/compete.json by compete-store.ts.
import type { CompeteDetail } from '../../pure/compete/price.js';
import type { ListingView } from '../../pure/compete/listing.js';
import type { Decimal } from '../../base/decimal.js';
import type { BuildReport } from '../../pure/status/report.js';
import { age, directionName, plural } from '../../base/words.js';
import { lineChart } from './chart.js';
import { escapeHtml } from './html.js';

export const MAX_CHARTED = 12;
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** One minute of a competing direction; rates as the published form's side that is not 1 (numbers place pixels only). */
export interface CompetePoint {
  at: number;
  published: number | null;
  market: number;
  floor: number;
  ceiling: number;
  /** The counted competitor at the target place (the first city's); null when there is none. */
  target: number | null;
  /** 0: no place (the field was not used). */
  place: number;
}

/** As a chart shows a rate: the side of its published form that is not 1 (`1:4940000.51` → 4940000.51). */
const sideOf = (rate: Decimal) => (rate.greaterThanOrEqualTo(1) ? rate.toNumber() : 1 / rate.toNumber());

/** A build's point of one competing direction. */
function competePoint(at: number, detail: CompeteDetail, published: Decimal | undefined): CompetePoint {
  const rival = detail.fields.find((field) => field.rival)?.rival;
  return {
    at,
    published: published ? sideOf(published) : null,
    market: sideOf(detail.market),
    floor: sideOf(detail.floorRate),
    ceiling: sideOf(detail.ceilingRate),
    target: rival ? sideOf(rival.rate) : null,
    place: detail.outcome.place,
  };
}

export class CompeteHistory {
  readonly series = new Map<string, CompetePoint[]>();
  /** Competing directions beyond MAX_CHARTED in the last build: not charted. */
  uncharted = 0;

  /** A build's points: the first MAX_CHARTED competing directions in config order; a point in the same minute replaces the last. */
  record(report: Pick<BuildReport, 'startedAt' | 'competition' | 'priced' | 'maintenance'>): void {
    // In maintenance nothing competes: no point, and the charts keep their past.
    if (report.maintenance) return;
    const at = report.startedAt.getTime();
    const details = [...(report.competition ?? new Map<string, CompeteDetail>())];
    this.uncharted = Math.max(0, details.length - MAX_CHARTED);
    const rates = new Map(report.priced.map((p) => [p.direction.id, p.rate]));
    for (const [id, detail] of details.slice(0, MAX_CHARTED)) {
      const points = this.series.get(id) ?? this.series.set(id, []).get(id)!;
      const point = competePoint(at, detail, rates.get(id));
      const last = points.at(-1);
      if (last && last.at > at) continue;
      if (last && Math.floor(last.at / MINUTE_MS) === Math.floor(at / MINUTE_MS)) points[points.length - 1] = point;
      else points.push(point);
    }
    const cut = at - DAY_MS;
    for (const [id, points] of this.series) {
      const first = points.findIndex((point) => point.at >= cut);
      if (first === -1) this.series.delete(id);
      else if (first > 0) points.splice(0, first);
    }
    // A direction no longer charted (config reloaded, or read back from an older config) is dropped with its points.
    const charted = new Set(details.slice(0, MAX_CHARTED).map(([id]) => id));
    for (const id of this.series.keys()) if (!charted.has(id)) this.series.delete(id);
  }
}

/** The file's form: per direction, points as [at, published, market, floor, ceiling, target, place]. */
export interface CompeteHistoryFile {
  version: 1;
  series: Record<string, (number | null)[][]>;
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** The history as written (compete-store.ts). */
export function competeHistoryFile(history: CompeteHistory): CompeteHistoryFile {
  const series: CompeteHistoryFile['series'] = {};
  for (const [id, points] of history.series)
    series[id] = points.map((p) => [p.at, p.published, p.market, p.floor, p.ceiling, p.target, p.place]);
  return { version: 1, series };
}

/**
 * Points read back into `history`: at most MAX_CHARTED directions and one point per minute of the 24 hours before
 * `now`; a malformed point is skipped, so a hand-edited file costs its own points only. Returns how many were skipped.
 */
export function loadCompeteHistory(history: CompeteHistory, data: unknown, now: Date): number {
  const series = typeof data === 'object' && data !== null ? (data as { series?: unknown }).series : undefined;
  if (typeof series !== 'object' || series === null) return 0;
  let skipped = 0;
  const cut = now.getTime() - DAY_MS;
  for (const [id, raw] of Object.entries(series).slice(0, MAX_CHARTED)) {
    if (!Array.isArray(raw) || id.length > 100) continue;
    const points: CompetePoint[] = [];
    for (const item of raw.slice(-(DAY_MS / MINUTE_MS))) {
      const [at, published, market, floor, ceiling, target, place] = Array.isArray(item) ? item : [];
      const ok =
        isNumber(at) &&
        at >= cut &&
        at > (points.at(-1)?.at ?? -Infinity) &&
        (published === null || isNumber(published)) &&
        isNumber(market) &&
        isNumber(floor) &&
        isNumber(ceiling) &&
        (target === null || isNumber(target)) &&
        Number.isInteger(place);
      if (!ok) {
        skipped++;
        continue;
      }
      points.push({ at, published, market, floor, ceiling, target, place: place as number });
    }
    if (points.length > 0) history.series.set(id, points);
  }
  return skipped;
}

export interface CompeteChartView {
  id: string;
  points: CompetePoint[];
}

export interface CompeteSectionView {
  charts: CompeteChartView[];
  uncharted: number;
  listing: ListingView[];
}

export function competeSectionView(
  history: CompeteHistory | undefined,
  listing: readonly ListingView[] | undefined,
): CompeteSectionView {
  return {
    charts: [...(history?.series ?? [])].map(([id, points]) => ({ id, points: [...points] })),
    uncharted: history?.uncharted ?? 0,
    listing: [...(listing ?? [])],
  };
}

const nameOf = (id: string) => {
  const [from = '', to = ''] = id.split('>');
  return directionName(from, to);
};

/** An axis label: 8 significant digits are enough to read a chart by (the table has the exact rates). */
const label = (value: number) => String(Number(value.toPrecision(8)));

function competeChart(chart: CompeteChartView, window: { from: number; to: number }): string {
  const { points } = chart;
  const key = chart.id.replace(/[^A-Za-z0-9]/g, '-');
  const last = points.at(-1);
  const values = points.flatMap((p) => [p.published, p.market, p.floor, p.ceiling, p.target]);
  const shown = values.filter((v): v is number => v !== null);
  const [low, high] = shown.length > 0 ? [Math.min(...shown), Math.max(...shown)] : [0, 0];
  const series = (className: string, value: (p: CompetePoint) => number | null) => ({
    className,
    points: points.map((p) => ({ at: p.at, value: value(p) })),
  });
  const rates = lineChart({
    id: `compete-${key}`,
    title: `${nameOf(chart.id)}: rates, last 24 hours`,
    desc: `Published rate, market, floor, ceiling and the competitor at the target place; ${plural(points.length, 'minute')}; now ${last?.published ?? 'not published'}.`,
    from: window.from,
    to: window.to,
    width: 480,
    height: 140,
    step: true,
    labels: { high: label(high), low: label(low) },
    series: [
      series('ceiling', (p) => p.ceiling),
      series('floor', (p) => p.floor),
      series('market', (p) => p.market),
      series('target', (p) => p.target),
      series('published', (p) => p.published),
    ],
  });
  const places = points.map((p) => p.place).filter((p) => p > 0);
  const [best, worst] = places.length > 0 ? [Math.min(...places), Math.max(...places)] : [0, 0];
  // Place 1 is the best: drawn upwards, as a negative number.
  const place = lineChart({
    id: `place-${key}`,
    title: `${nameOf(chart.id)}: our place, last 24 hours`,
    desc: `Our place among the counted competitors, from ${best} to ${worst}; now ${last?.place || 'none'}.`,
    from: window.from,
    to: window.to,
    width: 480,
    height: 50,
    step: true,
    labels: { high: `place ${best}`, low: `place ${worst}` },
    series: [{ className: 'place', points: points.map((p) => ({ at: p.at, value: p.place > 0 ? -p.place : null })) }],
  });
  return `<figure class="compete-chart" data-direction="${escapeHtml(chart.id)}">${rates}${place}<figcaption>${escapeHtml(nameOf(chart.id))}: <span class="k published">published</span> <span class="k market">market</span> <span class="k floor">floor</span> <span class="k ceiling">ceiling</span> <span class="k target">at the target place</span>; below, our place</figcaption></figure>`;
}

function listingTable(listing: readonly ListingView[], now: number): string {
  if (listing.length === 0) return '';
  const rows = listing.map((view) => {
    const since = view.since === undefined ? '' : age(Math.max(0, Math.round((now - Date.parse(view.since)) / 1000)));
    return `<tr><td>${escapeHtml(nameOf(view.direction))}${view.city ? ` (${escapeHtml(view.city)})` : ''}</td><td class="listing-${view.state}">${escapeHtml(view.state)}</td><td>${escapeHtml(view.differences.join('; '))}</td><td class="num">${since}</td><td class="num">${view.lagSeconds === undefined ? '—' : age(view.lagSeconds)}</td></tr>`;
  });
  return `<table><caption>As BestChange lists us (self), against what was published</caption><thead><tr><th>Direction</th><th>Listing</th><th>Differences</th><th>For</th><th>Last lag</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The section: BestChange's listing of us, then one chart per competing direction. Empty with no competing direction. */
export function competeSection(view: CompeteSectionView, page: { from: number; to: number }): string {
  if (view.charts.length === 0 && view.listing.length === 0) return '';
  // From the oldest point kept (read back from the file, they may be older than the builds the page remembers).
  const first = Math.min(...view.charts.map((chart) => chart.points[0]?.at ?? page.from));
  const window = { from: Math.min(page.from, first), to: page.to };
  const note =
    view.uncharted > 0
      ? `<p class="muted">${plural(view.uncharted, 'more competing direction')} not charted (the first ${MAX_CHARTED} are).</p>`
      : '';
  return `<h2 id="competing">Competing on BestChange</h2>
<div id="listing">${listingTable(view.listing, window.to)}</div>
<div class="charts">${view.charts.map((chart) => competeChart(chart, window)).join('\n')}</div>${note}`;
}
