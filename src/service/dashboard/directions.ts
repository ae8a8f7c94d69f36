// The Directions section: one page of rows (paging.ts) with the pager, the count and the column headers that sort;
// every link is a plain GET (`./?sort=rate&order=desc&page=2`), so it works without script and survives a reload.
import { ago, age, directionName, plural } from '../../base/words.js';
import { rateValue, lineChart } from './chart.js';
import { escapeHtml, html, lines, table, type Cell } from './html.js';
import type { DashboardView, DirectionView } from './model.js';
import { pageNumbers, thousands, type Paging, type SortKey } from './paging.js';
import { referenceLine } from './sole-source.js';

export const stateText = {
  published: 'published',
  withheld: 'withheld',
  hours: 'out of hours',
  paused: 'paused',
} as const;

/** A link to this page with the filters kept and the paging changed; defaults are left out of the query. */
export function linkTo(view: DashboardView, change: Partial<Paging>): string {
  const paging = { ...view.paging, ...change };
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(view.filter)) if (value) params.set(name, value);
  if (paging.sort !== 'config') params.set('sort', paging.sort);
  if (paging.order === 'desc') params.set('order', 'desc');
  if (paging.page > 1) params.set('page', String(paging.page));
  const query = params.toString();
  return `./${query ? `?${query}` : ''}`;
}

const sortWords: Record<SortKey, string> = {
  config: 'config order',
  direction: 'direction',
  rate: 'rate (out per in)',
  reserve: 'reserve',
  state: 'state (faults first)',
  place: 'place',
  age: 'age of the oldest quote',
};

/** A column header that sorts: ascending first, the other way when it is the current sort. */
function sortHeader(view: DashboardView, name: string, key: SortKey): Cell {
  const current = view.paging.sort === key;
  const order = current && view.paging.order === 'asc' ? 'desc' : 'asc';
  const arrow = current ? `<span aria-hidden="true">${view.paging.order === 'asc' ? ' ▲' : ' ▼'}</span>` : '';
  // The visible name first (screen readers and voice control find the link by it), then what the click does.
  const label = `${name}: sort by ${sortWords[key]}, ${order === 'asc' ? 'ascending' : 'descending'}`;
  return html(
    `<a class="sort" data-nav href="${escapeHtml(linkTo(view, { sort: key, order, page: 1 }))}" aria-label="${escapeHtml(label)}">${escapeHtml(name)}${arrow}</a>`,
  );
}

/** Previous, the page numbers around this one (… for gaps), next, and which rows these are. */
function pager(view: DashboardView, where: 'top' | 'bottom'): string {
  const { page, pages, first, last } = view.paging;
  if (pages <= 1) return '';
  const link = (n: number, text: string, rel = '') =>
    `<a data-nav href="${escapeHtml(linkTo(view, { page: n }))}"${rel ? ` rel="${rel}"` : ''}>${text}</a>`;
  const numbers = pageNumbers(page, pages).map((n) =>
    n === null
      ? '<span class="gap">…</span>'
      : n === page
        ? `<strong aria-current="page">${n}</strong>`
        : link(n, String(n)),
  );
  const previous = page > 1 ? link(page - 1, '‹ Previous', 'prev') : '<span class="muted">‹ Previous</span>';
  const next = page < pages ? link(page + 1, 'Next ›', 'next') : '<span class="muted">Next ›</span>';
  return `<nav class="pager" aria-label="Pages of directions (${where})">${previous}${numbers.join('')}${next}<span class="muted">rows ${thousands(first)}–${thousands(last)} of ${thousands(view.matching)}</span></nav>`;
}

/** How many match, which rows are shown, in which order. */
function summary(view: DashboardView): string {
  const { paging } = view;
  const count = `${thousands(view.matching)} direction${view.matching === 1 ? '' : 's'} of ${thousands(view.total)} match`;
  const rows =
    paging.pages > 1
      ? `: rows ${thousands(paging.first)}–${thousands(paging.last)}, page ${paging.page} of ${paging.pages}`
      : '';
  const sorted =
    paging.sort === 'config' && paging.order === 'asc'
      ? ''
      : `, sorted by ${sortWords[paging.sort]}, ${paging.order === 'asc' ? 'ascending' : 'descending'} (<a data-nav href="${escapeHtml(linkTo(view, { sort: 'config', order: 'asc', page: 1 }))}">config order</a>)`;
  return `<p id="matching">${count}${rows}${sorted}.</p>`;
}
const pair = (rate: { in: string; out: string } | undefined) => (rate ? `${rate.in} : ${rate.out}` : '—');

function stateCell(row: DirectionView): Cell {
  const parts: Cell[] = [
    html(
      `<span class="state state-${row.state}">${escapeHtml(stateText[row.state])}${row.kind && row.state === 'withheld' ? ` (${escapeHtml(row.kind)})` : ''}</span>`,
    ),
  ];
  if (row.jump) {
    parts.push(
      html(
        `<span class="jump">held jump: published <b>${escapeHtml(pair(row.jump.old))}</b>, new <b>${escapeHtml(pair(row.jump.new))}</b></span>`,
      ),
    );
    parts.push(html(`<code>${escapeHtml(row.jump.accept)}</code>`));
  }
  if (row.reason) parts.push(row.reason);
  return lines(parts);
}

function sparkline(row: DirectionView, view: DashboardView): Cell {
  if (row.history.length === 0) return '—';
  const [, lastRate] = row.history.at(-1)!;
  const side = lastRate?.startsWith('1:') ? `${row.to} per 1 ${row.from}` : `${row.from} per 1 ${row.to}`;
  return html(
    lineChart({
      id: `chart-${row.id.replace(/[^A-Za-z0-9]/g, '-')}`,
      title: `${directionName(row.from, row.to)}, last 24 hours`,
      desc: `Published rate (solid) and market rate (dashed), ${side}; ${plural(row.history.length, 'change')}; now ${lastRate ?? 'not published'}.`,
      from: view.window.from,
      to: view.window.to,
      width: 160,
      height: 40,
      step: true,
      series: [
        { className: 'market', points: row.history.map(([at, , market]) => ({ at, value: rateValue(market) })) },
        { className: 'published', points: row.history.map(([at, rate]) => ({ at, value: rateValue(rate) })) },
      ],
    }),
  );
}

const basisText = {
  place: 'holds the place',
  floor: 'pinned at the floor',
  ceiling: 'at the ceiling',
  fallback: 'NORMAL MARGIN: field not trusted',
  cap: 'capped against an outlier',
  war: 'PRICE WAR: holding the rate',
} as const;

/** Where a competing direction stands: its place (none when the field was not used), the target, what set the rate and why, the feed's age. */
function competeCell(compete: NonNullable<DirectionView['compete']>): Cell {
  const place = compete.basis === 'fallback' && compete.place === 0 ? '–' : String(compete.place);
  return lines([
    `${place} of ${compete.competitors} (target ${compete.target})`,
    compete.reason ? `${basisText[compete.basis]}: ${compete.reason}` : basisText[compete.basis],
    ...(compete.war && compete.basis !== 'war'
      ? [`price war with ${compete.war.rival}: never more generous until ${compete.war.until}`]
      : []),
    ...(compete.feedAgeSeconds === undefined
      ? []
      : [html(`<span class="muted">feed ${escapeHtml(age(compete.feedAgeSeconds))} old</span>`)]),
  ]);
}

function rateCell(row: DirectionView, view: DashboardView): Cell {
  if (row.rate) return pair(row.rate);
  if (!row.lastPublished) return '—';
  return lines([
    '—',
    html(
      `<span class="muted">last published ${escapeHtml(pair(row.lastPublished))}, ${escapeHtml(ago(row.lastPublished.at, view.head.now))}</span>`,
    ),
  ]);
}

const quotesCell = (row: DirectionView): Cell =>
  row.quotes.length === 0
    ? '—'
    : lines(
        row.quotes.map(
          (q) =>
            `${q.pair} ${q.side} · ${q.source}${q.fed ? ' (stream)' : ''} · ${age(q.ageSeconds)} old${q.leftSeconds === undefined ? '' : q.leftSeconds < 0 ? `, maxAge passed` : `, ${age(q.leftSeconds)} left`}`,
        ),
      );

/** The reserve, where it came from, and how it was shaped (`capped at 1000000 USDTTRC20 by reserveCap`). */
const reserveCell = (row: DirectionView): Cell =>
  lines([
    html(`${escapeHtml(row.reserve ?? '—')} <span class="muted">from ${escapeHtml(row.reserveFrom)}</span>`),
    ...(row.reserveMade ?? []).map((step) => html(`<span class="muted">${escapeHtml(step)}</span>`)),
  ]);

interface Column {
  name: string;
  sort?: SortKey;
  numeric?: boolean;
  cell: (row: DirectionView, view: DashboardView) => Cell;
}

const columns: readonly Column[] = [
  {
    name: 'Direction',
    sort: 'direction',
    cell: (row) =>
      lines([
        directionName(row.from, row.to),
        ...(row.exports.length > 0 ? [html(`<span class="muted">${escapeHtml(row.exports.join(', '))}</span>`)] : []),
      ]),
  },
  { name: 'State', sort: 'state', cell: stateCell },
  { name: 'Rate (in : out)', sort: 'rate', numeric: true, cell: rateCell },
  {
    name: 'Market',
    numeric: true,
    cell: (row) => (row.reference ? lines([pair(row.market), referenceLine(row.reference)]) : pair(row.market)),
  },
  { name: 'Margin', numeric: true, cell: (row) => row.margin ?? '—' },
  { name: 'Place', sort: 'place', cell: (row) => (row.compete ? competeCell(row.compete) : '—') },
  { name: 'Quotes', sort: 'age', cell: quotesCell },
  { name: 'Reserve', sort: 'reserve', cell: reserveCell },
  // One line each (`min 0.001 · max 5.2`): a phone's card is a line shorter for it.
  { name: 'Limits', cell: (row) => `min ${row.min ?? '—'} · max ${row.max ?? '—'}` },
  {
    name: 'Terms',
    cell: (row) =>
      lines([
        ...row.fees,
        ...(row.labels.length > 0 ? [`labels ${row.labels.join(', ')}`] : []),
        ...(row.cities.length > 0 ? [`cities ${row.cities.join(', ')}`] : []),
      ]),
  },
  { name: '24 h', cell: sparkline },
];

/** The count, the pager, the table of this page's rows (no Place column without `compete:`), the pager again. */
export function directionsSection(view: DashboardView): string {
  const shown = columns.filter((column) => column.name !== 'Place' || view.competing);
  const rows = view.directions.map((row) => shown.map((column) => column.cell(row, view)));
  const attributes = view.directions.map(
    (row) => `data-state="${escapeHtml(row.state)}" data-id="${escapeHtml(row.id)}"`,
  );
  if (view.directions.length === 0) return summary(view);
  const numeric = new Set(shown.flatMap((column, i) => (column.numeric ? [i] : [])));
  const headers = shown.map((column) => (column.sort ? sortHeader(view, column.name, column.sort) : column.name));
  const sorts = shown.map((column) =>
    column.sort === view.paging.sort ? `aria-sort="${view.paging.order === 'asc' ? 'ascending' : 'descending'}"` : '',
  );
  return `${summary(view)}\n${pager(view, 'top')}\n${table(
    shown.map((column) => column.name),
    rows,
    {
      numeric,
      rowAttributes: attributes,
      caption: 'Directions',
      id: 'direction-rows',
      headers,
      headerAttributes: sorts,
    },
  )}\n${pager(view, 'bottom')}`;
}
