// The preview page at `/`: what the latest build publishes in each export, each source's freshness, and what is held back and why.
import type { BuildReport } from '../build.js';
import { selectExports, type ExportItem } from '../exports/select.js';
import { assessHealth } from '../health.js';
import type { ExportTemplate } from '../model.js';
import type { Status } from '../status.js';
import { escapeHtml, style, table } from './html.js';
import { competingSection } from './competing.js';

export interface PreviewState {
  /** The latest build that published, with the templates it used. */
  latest?: { report: BuildReport; exports: readonly ExportTemplate[] } | undefined;
  /** The latest build's outcome, which may be a failure after `latest`. */
  status?: Status | undefined;
  now: Date;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

function age(now: Date, iso: string | Date): string {
  const seconds = Math.round((now.getTime() - new Date(iso).getTime()) / 1000);
  if (seconds < 120) return `${seconds} s ago`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min ago`;
  return `${Math.round(seconds / 3600)} h ago`;
}

/** Items of one direction that differ only by city, as one row with the cities listed. */
function directionRows(items: readonly ExportItem[]): string[][] {
  const rows: { item: ExportItem; cities: string[] }[] = [];
  for (const item of items) {
    const last = rows.at(-1);
    const same = last && (['from', 'to', 'in', 'out', 'amount', 'minamount', 'maxamount', 'param'] as const).every((key) => last.item[key] === item[key]);
    if (same && item.city !== undefined) last.cities.push(item.city);
    else rows.push({ item, cities: item.city === undefined ? [] : [item.city] });
  }
  return rows.map(({ item, cities }) => [item.from, item.to, `${item.in} : ${item.out}`, item.amount, item.minamount ?? '—', item.maxamount ?? '—', item.param ?? '', cities.join(', ')]);
}

function sourcesSection(report: BuildReport, status: Status | undefined, now: Date): string {
  const times = new Map<string, Date[]>();
  for (const priced of report.priced) for (const step of priced.steps) (times.get(step.quote.source) ?? times.set(step.quote.source, []).get(step.quote.source)!).push(step.quote.time);
  const rows = report.sources.map((source) => {
    const used = (times.get(source.name) ?? []).map((t) => t.getTime());
    const lastSuccess = status?.sources.find((s) => s.name === source.name)?.lastSuccessAt;
    return [
      source.name,
      source.type,
      source.ok ? 'ok' : 'FAILING',
      source.rows === undefined ? String(source.quotes) : `${source.rows} rows`,
      used.length > 0 ? `${age(now, new Date(Math.max(...used)))}` : '—',
      used.length > 0 ? `${age(now, new Date(Math.min(...used)))}` : '—',
      lastSuccess ? age(now, lastSuccess) : 'never',
      [source.error, ...source.rejected.map((r) => `dropped ${r}`)].filter(Boolean).join('; '),
    ];
  });
  if (rows.length === 0) return '<h2>Sources</h2>\n<p class="muted">No source was asked in this build.</p>';
  return `<h2>Sources</h2>\n${table(['Source', 'Type', 'State', 'Quotes', 'Newest quote used', 'Oldest quote used', 'Last success', 'Problem'], rows, new Set([3]))}${reservesSection(report, now)}`;
}

/** The back-office reserve sources of the build, when the config has any. */
function reservesSection(report: BuildReport, now: Date): string {
  if (report.reserves.length === 0) return '';
  const rows = report.reserves.map((source) => [
    source.name,
    source.type,
    source.ok ? 'ok' : 'FAILING',
    String(source.entries),
    source.fetchedAt ? age(now, source.fetchedAt) : 'never',
    source.error ?? '',
  ]);
  return `\n<h2 id="reserves">Reserve sources</h2>\n${table(['Source', 'Type', 'State', 'Entries', 'Read', 'Problem'], rows, new Set([3]))}`;
}

export function renderPreview(state: PreviewState): string {
  const { latest, status, now } = state;
  const parts: string[] = ['<h1>ratefile: what is published now</h1>'];
  // The headline: the health level in its colour, and why.
  const health = assessHealth(status, now);
  const colour = { ok: 'good', degraded: 'warn', failing: 'bad' }[health.level];
  const why = health.reasons.length > 0 ? `: ${health.reasons.map(escapeHtml).join('; ')}` : '';
  parts.push(`<p id="health">Health: <span class="${colour}">${health.level}</span>${why}</p>`);
  if (status) {
    const outcome = status.lastBuild.ok ? '<span class="good">ok</span>' : '<span class="bad">FAILED</span>';
    parts.push(`<p>Last build: ${escapeHtml(status.lastBuild.at)} (${escapeHtml(age(now, status.lastBuild.at))}), ${outcome}, ${status.lastBuild.durationMs} ms</p>`);
    if (!status.lastBuild.ok) {
      parts.push(`<p class="banner">The last build failed and the last good files are still published: ${escapeHtml(status.lastBuild.error ?? 'unknown error')}</p>`);
    }
  }
  if (!latest) {
    parts.push('<p class="banner">No build has published yet.</p>');
    return page(parts);
  }
  const { report } = latest;
  if (status && !status.lastBuild.ok) parts.push(`<p class="muted">Below: the build of ${escapeHtml(report.startedAt.toISOString())}.</p>`);
  if (report.maintenance) parts.push('<p class="banner">Maintenance is on: every export is published empty (<code>ratefile maintenance off</code> to end it).</p>');
  const pausedCount = report.withheld.filter((w) => w.kind === 'paused').length;
  const heldCount = report.withheld.length - pausedCount;
  parts.push(`<p>${plural(report.priced.length, 'direction')} published, ${heldCount} held back${pausedCount > 0 ? `, ${pausedCount} paused` : ''}.</p>`);
  const models = selectExports(report.priced, latest.exports);
  const anchor = (name: string) => `export-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const links = models.map((m) => `<a href="#${escapeHtml(anchor(m.name))}">${escapeHtml(m.file)}</a> ${m.items.length}`);
  const pausedLink = pausedCount > 0 ? [`<a href="#paused">paused</a> ${pausedCount}`] : [];
  parts.push(`<nav>${[...links, ...pausedLink, `<a href="#held-back">held back</a> ${heldCount}`].join('\n')}</nav>`);
  parts.push(sourcesSection(report, status, now));
  for (const model of models) {
    const template = latest.exports.find((e) => e.name === model.name);
    parts.push(
      `<h2 id="${escapeHtml(anchor(model.name))}"><a href="/${escapeHtml(encodeURIComponent(model.file))}">${escapeHtml(model.file)}</a> <span class="muted">${plural(model.items.length, 'item')}</span></h2>`,
    );
    if (template?.description) parts.push(`<p class="muted">${escapeHtml(template.description)}</p>`);
    parts.push(
      model.items.length === 0
        ? '<p class="muted">Empty: <code>&lt;rates&gt;&lt;/rates&gt;</code></p>'
        : table(['From', 'To', 'Rate (in : out)', 'Reserve (to)', 'Min (from)', 'Max (from)', 'Labels', 'Cities'], directionRows(model.items), new Set([2, 3, 4, 5])),
    );
  }
  const competing = competingSection(report);
  if (competing) parts.push(competing);
  // Paused on purpose (`ratefile pause`, a reserve source's `enabled: false`) is shown apart from faults.
  const paused = report.withheld.filter((w) => w.kind === 'paused');
  const held = report.withheld.filter((w) => w.kind !== 'paused');
  const rows = (list: typeof report.withheld) => list.map((w) => [`${w.direction.from.code} → ${w.direction.to.code}`, w.reason]);
  if (paused.length > 0) {
    parts.push('<h2 id="paused">Paused</h2>');
    parts.push(table(['Direction', 'Reason'], rows(paused)));
  }
  parts.push('<h2 id="held-back">Held back</h2>');
  parts.push(held.length === 0 ? '<p class="muted">Nothing is held back.</p>' : table(['Direction', 'Reason'], rows(held)));
  parts.push(`<p class="muted">Page made ${escapeHtml(now.toISOString())}; reload for the latest build.</p>`);
  return page(parts);
}

function page(parts: readonly string[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ratefile preview</title>
<style>${style}</style>
</head>
<body>
${parts.join('\n')}
</body>
</html>
`;
}
