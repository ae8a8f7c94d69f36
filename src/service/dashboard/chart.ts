// Line charts as server-side SVG: pure, no script, titled and described for screen readers.
import { escapeHtml } from './html.js';

export interface ChartSeries {
  /** A CSS class of the page's stylesheet (stroke colour). */
  className: string;
  /** Ascending in time; null breaks the line (not published then). Numbers here only place pixels: money stays Decimal. */
  points: readonly { at: number; value: number | null }[];
}

export interface ChartSpec {
  id: string;
  title: string;
  desc: string;
  /** The time window shown, in ms since the epoch. */
  from: number;
  to: number;
  width: number;
  height: number;
  series: readonly ChartSeries[];
  /** Steps: a value holds until the next point (rates); otherwise points are joined (build figures). */
  step?: boolean;
  /** Text of the highest and lowest value at the left edge. */
  labels?: { high: string; low: string };
}

const round = (n: number) => Math.round(n * 10) / 10;

export function lineChart(spec: ChartSpec): string {
  const values = spec.series
    .flatMap((s) => s.points.map((p) => p.value))
    .filter((v): v is number => v !== null && Number.isFinite(v));
  const inside = spec.series.reduce(
    (count, s) => count + s.points.filter((p) => p.value !== null && p.at <= spec.to).length,
    0,
  );
  const left = spec.labels ? 4 : 0;
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (!(high > low))
    [low, high] =
      values.length > 0 ? [low - Math.abs(low) * 0.01 - 1e-12, high + Math.abs(high) * 0.01 + 1e-12] : [0, 1];
  const pad = (high - low) * 0.08;
  const x = (at: number) =>
    round(
      left + ((Math.min(Math.max(at, spec.from), spec.to) - spec.from) / (spec.to - spec.from)) * (spec.width - left),
    );
  const y = (v: number) => round(spec.height - 2 - ((v - (low - pad)) / (high - low + 2 * pad)) * (spec.height - 4));
  const paths = spec.series.map((series) => {
    let d = '';
    let open = false;
    series.points.forEach((point, index) => {
      if (point.value === null || !Number.isFinite(point.value)) {
        open = false;
        return;
      }
      const [px, py] = [x(point.at), y(point.value)];
      if (!open) d += `M${px} ${py}`;
      else d += spec.step ? `H${px}V${py}` : `L${px} ${py}`;
      open = true;
      // A step's last value holds until the next point, or until the end of the window.
      const next = series.points[index + 1];
      if (spec.step && (!next || next.value === null)) d += `H${next ? x(next.at) : x(spec.to)}`;
    });
    return d === '' ? '' : `<path class="${escapeHtml(series.className)}" d="${d}"/>`;
  });
  const labels = spec.labels
    ? `<text class="axis" x="${left + 2}" y="11">${escapeHtml(spec.labels.high)}</text><text class="axis" x="${left + 2}" y="${spec.height - 4}">${escapeHtml(spec.labels.low)}</text>`
    : '';
  const id = escapeHtml(spec.id);
  return (
    `<svg class="chart" role="img" aria-labelledby="${id}-t ${id}-d" viewBox="0 0 ${spec.width} ${spec.height}" width="${spec.width}" height="${spec.height}" data-points="${inside}">` +
    `<title id="${id}-t">${escapeHtml(spec.title)}</title><desc id="${id}-d">${escapeHtml(spec.desc)}</desc>` +
    `<rect class="frame" x="0" y="0" width="${spec.width}" height="${spec.height}"/>${paths.join('')}${labels}</svg>`
  );
}

/** A rate in the published form (`in:out`) as one number for a chart: the side that is not 1. */
export const rateValue = (text: string | null): number | null => {
  if (text === null) return null;
  const [inText = '', outText = ''] = text.split(':');
  return Number(inText === '1' ? outText : inText);
};
