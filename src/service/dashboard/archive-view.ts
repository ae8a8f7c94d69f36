// The dashboard's Archive section: the archive's window (configured and kept), its size against the budget, its
// newest and last verified record, and on request (`?archive=BTC>SBERRUB`) one direction's published rate over the
// whole window, drawn from the archive's whole records. Pure: the status and the points in, the view and HTML out.
import type { ArchiveStatus } from '../../model/archive.js';
import { age, ago, directionNameOfId } from '../../base/words.js';
import { bytesText } from '../../pure/archive/lines.js';
import { lineChart, rateValue } from './chart.js';
import { escapeHtml, table } from './html.js';

export interface ArchivePoint {
  at: number;
  rate: string | null;
  market: string | null;
}

export interface ArchiveView {
  store: string;
  window: string;
  kept: string;
  size: string;
  newest?: string;
  verified: string;
  signed: string;
  problem?: string;
  /** The direction asked for (`?archive=`), its points over the window, and the span drawn. */
  series?: { id: string; name: string; points: ArchivePoint[]; from: number; to: number };
}

export function archiveView(
  archive: ArchiveStatus | undefined,
  now: Date,
  series?: { id: string; points: ArchivePoint[] },
): ArchiveView | undefined {
  if (!archive) return undefined;
  const verified = archive.verified;
  const from = archive.oldest ? Date.parse(archive.oldest) : now.getTime() - archive.windowMs;
  return {
    store: archive.store,
    window: age(archive.windowMs / 1000),
    kept: archive.oldest ? `since ${archive.oldest} (${ago(archive.oldest, now)})` : 'no records yet',
    size: `${bytesText(archive.bytes)} of ${bytesText(archive.budgetBytes)}`,
    ...(archive.last
      ? {
          newest: `record ${archive.last.seq}, build ${archive.last.build}, in place ${ago(archive.last.published, now)}`,
        }
      : {}),
    verified:
      verified?.ok === false
        ? `FAILED: ${verified.problem ?? 'a record does not verify'}`
        : verified && verified.seq >= 0
          ? `record ${verified.seq} (checked ${ago(verified.at, now)})`
          : 'not yet',
    signed: archive.signed ? `yes, key ${archive.publicKey}` : 'no (no archive.key)',
    ...(archive.problem
      ? { problem: `records cannot be appended (${archive.pending ?? 0} waiting): ${archive.problem}` }
      : {}),
    ...(series
      ? {
          series: {
            ...series,
            name: directionNameOfId(series.id),
            from: Math.max(from, now.getTime() - archive.windowMs),
            to: now.getTime(),
          },
        }
      : {}),
  };
}

const chartValue = rateValue;

export function archiveSection(view: ArchiveView | undefined, asked: string): string {
  if (!view) return '';
  const rows: [string, string][] = [
    ['Store', view.store],
    ['Window', view.window],
    ['Kept', view.kept],
    ['Size', view.size],
    ['Newest record', view.newest ?? '—'],
    ['Last verified', view.verified],
    ['Signed', view.signed],
    ...(view.problem ? ([['Problem', view.problem]] as [string, string][]) : []),
  ];
  const form = `<form class="filters" method="get" action="./" aria-label="A direction's rate over the archive's window"><label>Direction<input name="archive" value="${escapeHtml(asked)}" placeholder="BTC>SBERRUB"></label><button type="submit">Show its rate over the window</button></form>`;
  const { series } = view;
  const chart = series
    ? series.points.length === 0
      ? `<p>${escapeHtml(series.name)}: no records of it in the window.</p>`
      : `<figure>${lineChart({
          id: 'chart-archive',
          title: `${series.name}, the archive's window`,
          desc: `Published rate (solid) and market rate (dashed) at the archive's whole records; ${series.points.length} points; now ${series.points.at(-1)?.rate ?? 'not published'}.`,
          from: series.from,
          to: series.to,
          width: 640,
          height: 160,
          step: true,
          series: [
            { className: 'market', points: series.points.map((p) => ({ at: p.at, value: chartValue(p.market) })) },
            { className: 'published', points: series.points.map((p) => ({ at: p.at, value: chartValue(p.rate) })) },
          ],
        })}<figcaption>${escapeHtml(series.name)}: published rate over the window</figcaption></figure>`
    : '';
  return `<h2 id="archive">Archive</h2>
${table(['', ''], rows, { caption: 'Archive' })}
${form}
${chart}`;
}
