// HTML text helpers for the preview page: every text goes through escapeHtml, so nothing from a config or a source can become markup.

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A table that becomes one card per row on a narrow screen; each cell is labelled by its column for that. */
export function table(columns: readonly string[], rows: readonly (readonly string[])[], numeric: ReadonlySet<number> = new Set()): string {
  const head = columns.map((c, i) => `<th${numeric.has(i) ? ' class="num"' : ''}>${escapeHtml(c)}</th>`).join('');
  const body = rows
    .map((row) => `<tr>${row.map((cell, i) => `<td data-label="${escapeHtml(columns[i] ?? '')}"${numeric.has(i) ? ' class="num"' : ''}>${escapeHtml(cell)}</td>`).join('')}</tr>`)
    .join('\n');
  return `<table class="rows"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

export const style = `
:root { color-scheme: light dark; --line: #8884; --muted: #777; --bad: #c0392b; --warn: #b26a00; --good: #2e7d32; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto; padding: 12px; max-width: 1100px; }
h1 { font-size: 1.35rem; margin: .2rem 0 .4rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .4rem; }
p { margin: .3rem 0; }
.muted { color: var(--muted); }
.bad { color: var(--bad); font-weight: 600; }
.good { color: var(--good); font-weight: 600; }
.warn { color: var(--warn); font-weight: 600; }
.banner { border: 2px solid var(--bad); padding: .5rem .7rem; border-radius: 6px; margin: .6rem 0; }
table { border-collapse: collapse; width: 100%; font-size: .92rem; }
th, td { text-align: left; padding: .3rem .45rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
th { font-weight: 600; white-space: nowrap; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
@media (max-width: 700px) {
  table.rows thead { display: none; }
  table.rows tr { display: block; border: 1px solid var(--line); border-radius: 6px; margin: 0 0 .6rem; padding: .25rem .5rem; }
  table.rows td { display: flex; justify-content: space-between; gap: 1rem; border: 0; padding: .15rem 0; text-align: right; }
  table.rows td::before { content: attr(data-label); font-weight: 600; text-align: left; flex: none; }
  table.rows td:empty { display: none; }
}
nav { display: flex; flex-wrap: wrap; gap: .3rem 1rem; margin: .5rem 0; }
`;
