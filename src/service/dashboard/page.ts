// The dashboard at `/`: the view model as HTML, complete without script (dashboard.js only refreshes it and applies filters in place).
import { lineChart } from './chart.js';
import { archiveSection } from './archive-view.js';
import { competeSection } from './compete-chart.js';
import { escapeHtml, html, style, table, type Cell } from './html.js';
import type { DashboardView, SourceView } from './model.js';
import { age, ago, plural } from '../../base/words.js';
import { directionsSection, stateText } from './directions.js';
import { thousands } from './paging.js';
import { readersSection } from './readers.js';
import { outsideSection } from './outside.js';
import { ratesSection } from './rates.js';
import { soleSourceSection } from './sole-source.js';

const levelText = { ok: 'OK', degraded: 'DEGRADED', failing: 'FAILING' } as const;

/** The headline: the level in its colour and the reasons; dashboard.js rewrites it the same way from the JSON. */
export function headline(head: DashboardView['head']): string {
  const reasons =
    head.health.reasons.length > 0
      ? `<ul>${head.health.reasons.map((r) => `<li>${escapeHtml(r)}</li>`).join('')}</ul>`
      : '';
  return `<div id="health" class="headline ${head.health.level}" role="status"><strong>${levelText[head.health.level]}</strong>${reasons}</div>`;
}

/** The last build in the words of the headline's level (`outcome`, model.ts): green only when the headline is. */
const outcomeText = {
  ok: '<span class="good">ok</span>',
  problems: 'finished, with the problems above',
  failed: '<span class="bad">FAILED</span>',
} as const;

function buildLine(view: DashboardView): string {
  const { build, now } = view.head;
  if (!build) return '<p class="banner">No build has run yet.</p>';
  const outcome = outcomeText[build.outcome];
  const parts = [
    `<p>Last build ${escapeHtml(ago(build.at, now))} (${escapeHtml(build.at)}), ${outcome}, ${build.durationMs} ms.</p>`,
  ];
  if (!build.ok)
    parts.push(
      `<p class="banner">The last build failed and the last good files are still published: ${escapeHtml(build.error ?? 'unknown error')}</p>`,
    );
  if (!build.ok && build.shownAt) parts.push(`<p class="muted">Below: the build of ${escapeHtml(build.shownAt)}.</p>`);
  return parts.join('\n');
}

const sourceStates: Record<SourceView['state'], string> = {
  ok: '<span class="good">ok</span>',
  fallback: '<span class="warn">FAILING, its last good reading in use</span>',
  stale: '<span class="bad">STALE: quotes past maxAge</span>',
  failing: '<span class="bad">FAILING</span>',
};
const sourceState = (source: SourceView): Cell => html(sourceStates[source.state]);

function sourcesSection(view: DashboardView): string {
  if (view.sources.length === 0)
    return '<h2 id="sources">Sources</h2>\n<p class="muted">No source was asked in this build.</p>';
  const rows = view.sources.map((s) => [
    s.name,
    s.type,
    sourceState(s),
    s.stream ? `${s.count} (${s.stream})` : s.count,
    s.lastSuccessAt ? ago(s.lastSuccessAt, view.head.now) : 'never',
    s.quoteAgeSeconds === undefined ? '—' : age(s.quoteAgeSeconds),
    s.maxAgeSeconds === undefined ? '—' : s.maxAgeSeconds === null ? 'off' : age(s.maxAgeSeconds),
    s.leftSeconds === undefined
      ? '—'
      : s.leftSeconds < 0
        ? html(`<span class="bad">passed ${escapeHtml(age(-s.leftSeconds))} ago</span>`)
        : age(s.leftSeconds),
    s.problem ?? '',
  ]);
  const table1 = table(
    ['Source', 'Type', 'State', 'Quotes', 'Last success', 'Oldest quote', 'maxAge', 'Left', 'Problem'],
    rows,
    { numeric: new Set([3]), caption: 'Quote sources' },
  );
  const reserves = view.reserveSources.map((s) => [
    s.name,
    s.type,
    sourceState(s),
    s.count,
    s.lastSuccessAt ? ago(s.lastSuccessAt, view.head.now) : 'never',
    s.problem ?? '',
  ]);
  const table2 =
    reserves.length === 0
      ? ''
      : `\n<h2 id="reserves">Reserve sources</h2>\n${table(['Source', 'Type', 'State', 'Entries', 'Read', 'Problem'], reserves, { numeric: new Set([3]), caption: 'Reserve sources' })}`;
  return `<h2 id="sources">Sources</h2>\n${table1}${table2}`;
}

function exportsSection(view: DashboardView): string {
  const rows = view.exports.map((e) => [
    html(
      `<a href="${escapeHtml(encodeURIComponent(e.file))}">${escapeHtml(e.file)}</a>${e.primary ? ' <span class="muted">(primary)</span>' : ''}`,
    ),
    String(e.items),
    e.bytes === undefined ? '—' : `${(e.bytes / 1024).toFixed(1)} KB`,
    e.changedAt ? ago(e.changedAt, view.head.now) : '—',
    e.markup,
    e.description ?? '',
  ]);
  const empty = view.head.maintenance
    ? '<p class="banner">Maintenance is on: every export is published empty (<code>ratefile maintenance off</code> to end it).</p>\n'
    : '';
  const { ha } = view.head;
  const role = ha
    ? `<p class="banner">Warm standby: this instance (${escapeHtml(ha.instance)}) is the ${ha.role}; ${escapeHtml(ha.publisher)}.</p>\n`
    : '';
  return `<h2 id="exports">Exports</h2>\n${role}${empty}${table(['File', 'Items', 'Size', 'Changed', 'Markup', 'About'], rows, { numeric: new Set([1, 2]), caption: 'Exports' })}`;
}

function historySection(view: DashboardView): string {
  const count = view.builds.length;
  const chart = (id: string, title: string, className: string, index: 1 | 2, unit: string) => {
    const values = view.builds.map((b) => b[index]);
    const [low, high] = values.length > 0 ? [Math.min(...values), Math.max(...values)] : [0, 0];
    return lineChart({
      id,
      title,
      desc: `${plural(count, 'build')} in the last 24 hours; from ${low} to ${high} ${unit}.`,
      from: view.window.from,
      to: view.window.to,
      width: 480,
      height: 120,
      labels: { high: `${high} ${unit}`, low: `${low} ${unit}` },
      series: [{ className, points: view.builds.map((b) => ({ at: b[0], value: b[index] })) }],
    });
  };
  return `<h2 id="history">Last 24 hours</h2>
<div class="charts"><figure>${chart('chart-durations', 'Build durations, last 24 hours', 'duration', 1, 'ms')}<figcaption>Build duration (ms)</figcaption></figure>
<figure>${chart('chart-published', 'Directions published per build, last 24 hours', 'count', 2, 'directions')}<figcaption>Directions published</figcaption></figure></div>`;
}

function filtersForm(view: DashboardView): string {
  const select = (
    name: string,
    label: string,
    options: readonly string[],
    selected: string,
    text: (o: string) => string = (o) => o,
  ) =>
    `<label>${escapeHtml(label)}<select name="${name}"><option value="">all</option>${options
      .map(
        (o) => `<option value="${escapeHtml(o)}"${o === selected ? ' selected' : ''}>${escapeHtml(text(o))}</option>`,
      )
      .join('')}</select></label>`;
  return `<h2 id="directions">Directions</h2>
<form id="filters" class="filters" method="get" action="./" role="search" aria-label="Filter directions">
${select('currency', 'Currency', view.options.currencies, view.filter.currency)}
${select('state', 'State', view.options.states, view.filter.state, (s) => stateText[s as keyof typeof stateText] ?? s)}
${select('export', 'Export', view.options.exports, view.filter.export)}
<label>Search<input type="search" name="q" value="${escapeHtml(view.filter.q)}" placeholder="code, city, label, reason"></label>
${view.paging.sort === 'config' ? '' : `<input type="hidden" name="sort" value="${escapeHtml(view.paging.sort)}">`}${view.paging.order === 'asc' ? '' : '<input type="hidden" name="order" value="desc">'}
<button type="submit">Apply</button>
</form>`;
}

/** The two parts dashboard.js replaces after each build, around the filters (kept, so typing is not interrupted). */
function renderLive(view: DashboardView): { top: string; rows: string } {
  const { counts } = view.head;
  const built = view.head.build !== undefined || view.exports.length > 0;
  const top = `<div id="live" data-stamp="${escapeHtml(view.head.stamp)}" data-level="${view.head.health.level}">
${headline(view.head)}
${buildLine(view)}
<p id="counts">${thousands(counts.published)} direction${counts.published === 1 ? '' : 's'} published, ${thousands(counts.withheld)} withheld, ${thousands(counts.hours)} out of hours, ${thousands(counts.paused)} paused.</p>
<nav aria-label="Sections"><a href="#sources">Sources</a>${view.rates.length > 0 ? '<a href="#rates">Rates</a>' : ''}${view.soleSource.length > 0 ? '<a href="#sole-source">One source</a>' : ''}<a href="#exports">Exports</a>${view.readers ? '<a href="#readers">Readers</a>' : ''}${view.outside ? '<a href="#outside">Outside view</a>' : ''}<a href="#directions">Directions</a>${view.compete.charts.length + view.compete.listing.length > 0 ? '<a href="#competing">Competing</a>' : ''}<a href="#history">Last 24 hours</a>${view.archive ? '<a href="#archive">Archive</a>' : ''}</nav>
${built ? `${sourcesSection(view)}${view.rates.length > 0 ? `\n${ratesSection(view.rates)}` : ''}${view.soleSource.length > 0 ? `\n${soleSourceSection(view.soleSource)}` : ''}\n${exportsSection(view)}` : ''}${view.readers ? `\n${readersSection(view.readers, view.head.now)}` : ''}${view.outside ? `\n${outsideSection(view.outside, view.head.now)}` : ''}
</div>`;
  const rows = `<div id="live-rows">
${built ? `${directionsSection(view)}\n${competeSection(view.compete, view.window)}\n${historySection(view)}` : ''}${view.archive ? `\n${archiveSection(view.archive, view.archive.series?.id ?? '')}` : ''}
<p class="muted">Page made ${escapeHtml(view.head.now)}.</p><noscript><p>Script is off: reload the page for the latest build.</p></noscript>
</div>`;
  return { top, rows };
}

export function renderDashboard(view: DashboardView): string {
  const live = renderLive(view);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ratefile dashboard</title>
<style>${style}</style>
<script src="dashboard.js" defer></script>
</head>
<body>
<header><h1>ratefile dashboard</h1>
<p id="contact" class="contact" role="alert" hidden></p></header>
<main>
${live.top}
${filtersForm(view)}
${live.rows}
</main>
</body>
</html>
`;
}
