// HTML helpers for the dashboard: every text goes through escapeHtml, so nothing from a config or a source can
// become markup; markup made here is passed as `Html`, never as a string.

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Markup this module's callers built from escaped parts. */
export interface Html {
  html: string;
}
export const html = (text: string): Html => ({ html: text });
export type Cell = string | Html;
// A time in a cell's text (`fetched 2026-11-27T21:19:23Z`) stays on one line: a browser breaks it at its hyphens.
const isoTime = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z\b/g;
const cellHtml = (cell: Cell) =>
  typeof cell === 'string' ? escapeHtml(cell).replace(isoTime, '<span class="nowrap">$&</span>') : cell.html;

export interface TableOptions {
  /** Columns whose values are numbers: right-aligned, tabular figures. */
  numeric?: ReadonlySet<number>;
  /** Extra attributes per row (already escaped), e.g. `data-state="published"`. */
  rowAttributes?: readonly string[];
  caption?: string;
  id?: string;
  /** Header contents in place of the column names (a sorting link); the names still label a card's cells. */
  headers?: readonly Cell[];
  /** Extra attributes per header cell (already escaped), e.g. `aria-sort="ascending"`. */
  headerAttributes?: readonly string[];
}

/** A table that becomes one card per row on a narrow screen; each cell is labelled by its column for that. */
export function table(
  columns: readonly string[],
  rows: readonly (readonly Cell[])[],
  options: TableOptions = {},
): string {
  const numeric = options.numeric ?? new Set<number>();
  const head = columns
    .map((c, i) => {
      const extra = options.headerAttributes?.[i] ? ` ${options.headerAttributes[i]}` : '';
      const content = options.headers?.[i] === undefined ? escapeHtml(c) : cellHtml(options.headers[i]);
      return `<th scope="col"${numeric.has(i) ? ' class="num"' : ''}${extra}>${content}</th>`;
    })
    .join('');
  const body = rows
    .map((row, r) => {
      // One child per cell, so a phone's card row keeps the label on the left and the whole value on the right.
      const cells = row
        .map((cell, i) => {
          const content = cellHtml(cell);
          // A cell with nothing to say (`—`) stays in the desktop's grid; a phone's card leaves its line out.
          const classes = [...(numeric.has(i) ? ['num'] : []), ...(cell === '—' ? ['none'] : [])];
          return `<td data-label="${escapeHtml(columns[i] ?? '')}"${classes.length > 0 ? ` class="${classes.join(' ')}"` : ''}>${content === '' ? '' : `<div>${content}</div>`}</td>`;
        })
        .join('');
      return `<tr${options.rowAttributes?.[r] ? ` ${options.rowAttributes[r]}` : ''}>${cells}</tr>`;
    })
    .join('\n');
  const caption = options.caption ? `<caption class="sr">${escapeHtml(options.caption)}</caption>` : '';
  return `<div class="wide"><table class="rows"${options.id ? ` id="${escapeHtml(options.id)}"` : ''}>${caption}<thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

/** Lines inside one cell, each kept whole where it fits. */
export const lines = (items: readonly Cell[]): Html =>
  html(items.map((item) => `<span class="line">${cellHtml(item)}</span>`).join(''));

// Colours meet WCAG AA (4.5:1) on the background in both schemes. Cells wrap at spaces; a word longer than its
// cell breaks only as a last resort (break-word keeps words whole in the table's sizing, `anywhere` would not).
export const style = `
:root { color-scheme: light dark; --line: #8885; --muted: #5f6368; --bad: #b3261e; --warn: #8a5000; --good: #1e6b24; --bg: #fff; --fg: #1b1b1b; --chip: #f1f3f4; }
@media (prefers-color-scheme: dark) { :root { --muted: #b0b4b8; --bad: #ff8a80; --warn: #ffb74d; --good: #81c784; --bg: #161616; --fg: #eee; --chip: #262626; } }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto; padding: 12px; max-width: 1440px; background: var(--bg); color: var(--fg); }
h1 { font-size: 1.35rem; margin: .2rem 0 .4rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .4rem; }
p { margin: .3rem 0; }
a { color: inherit; }
code { font-size: .9em; background: var(--chip); padding: 0 .25em; border-radius: 3px; }
.muted { color: var(--muted); }
.nowrap { white-space: nowrap; }
.bad { color: var(--bad); font-weight: 600; }
.good { color: var(--good); font-weight: 600; }
.warn { color: var(--warn); font-weight: 600; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.headline { border-radius: 8px; padding: .6rem .9rem; margin: .6rem 0; color: #fff; }
.headline.ok { background: #1e6b24; } .headline.degraded { background: #8a5000; } .headline.failing { background: #b3261e; }
.headline strong { font-size: 1.25rem; letter-spacing: .02em; }
.headline ul { margin: .2rem 0 0; padding-left: 1.2rem; }
.banner { border: 2px solid var(--bad); padding: .5rem .7rem; border-radius: 6px; margin: .6rem 0; }
.contact { background: var(--bad); color: #fff; padding: .4rem .7rem; border-radius: 6px; position: sticky; top: 0; z-index: 1; }
.wide { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; padding: .3rem .45rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: break-word; word-break: normal; hyphens: manual; }
th { font-weight: 600; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.line { display: block; }
.state { font-weight: 600; }
.state-published { color: var(--good); } .state-withheld { color: var(--bad); } .state-hours, .state-paused { color: var(--warn); }
form.filters { display: flex; flex-wrap: wrap; gap: .4rem .8rem; align-items: end; margin: .8rem 0; }
form.filters label { display: flex; flex-direction: column; font-size: .85rem; }
form.filters input, form.filters select, form.filters button { font: inherit; padding: .2rem .3rem; }
svg.chart { display: block; max-width: 100%; height: auto; }
svg.chart .frame { fill: none; stroke: var(--line); }
svg.chart path { fill: none; stroke-width: 1.5; }
svg.chart .published { stroke: #1565c0; } svg.chart .market { stroke: #9e9e9e; stroke-dasharray: 3 2; }
svg.chart .duration { stroke: #6a1b9a; } svg.chart .count { stroke: #1565c0; }
svg.chart .floor { stroke: #c62828; stroke-dasharray: 1 2; } svg.chart .ceiling { stroke: #2e7d32; stroke-dasharray: 1 2; }
svg.chart .target { stroke: #ef6c00; } svg.chart .place { stroke: #1565c0; }
.k::before { content: ''; display: inline-block; width: 1em; height: 0; border-top: 3px solid; vertical-align: middle; margin-right: .2em; }
.k.published::before { border-color: #1565c0; } .k.market::before { border-color: #9e9e9e; } .k.floor::before { border-color: #c62828; } .k.ceiling::before { border-color: #2e7d32; } .k.target::before { border-color: #ef6c00; }
.listing-same { color: var(--good); } .listing-lagging { color: var(--warn); } .listing-differs, .listing-missing, .listing-unpublished { color: var(--bad); }
svg.chart .axis { font-size: 10px; fill: var(--muted); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: .8rem; }
nav.pager { align-items: baseline; gap: .3rem .7rem; }
nav.pager strong { padding: 0 .3rem; border: 1px solid var(--line); border-radius: 4px; }
th a.sort { text-decoration: none; } th a.sort:hover, th a.sort:focus { text-decoration: underline; }
nav { display: flex; flex-wrap: wrap; gap: .3rem 1rem; margin: .5rem 0; }
@media (max-width: 760px) {
  table.rows thead { display: none; }
  table.rows tr { display: block; border: 1px solid var(--line); border-radius: 6px; margin: 0 0 .6rem; padding: .25rem .5rem; }
  table.rows td { display: flex; justify-content: space-between; gap: 1rem; border: 0; padding: .15rem 0; text-align: right; min-width: 0; }
  table.rows td > * { min-width: 0; }
  table.rows td::before { content: attr(data-label); font-weight: 600; text-align: left; flex: none; }
  table.rows td:empty, table.rows td.none { display: none; }
  /* The direction is the card's title: no label, the whole width. */
  table.rows td[data-label="Direction"] { display: block; text-align: left; font-weight: 600; }
  table.rows td[data-label="Direction"]::before { content: none; }
  table.rows td[data-label="Direction"] .muted { font-weight: 400; }
}
`;
