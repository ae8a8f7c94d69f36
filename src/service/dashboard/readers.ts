// The dashboard's "Readers" section: each expected monitor's state, and per monitor and export the fetches seen, the
// last one, the share answered 304 and the answers that were no rate file (readers/tracker.ts makes the view).
import { escapeHtml, html, table, type Cell } from './html.js';
import type { ReadersView } from '../readers/tracker.js';
import { ago, age } from '../../base/words.js';

const states = {
  ok: '<span class="good">ok</span>',
  waiting: '<span class="muted">not seen yet</span>',
  silent: '<span class="bad">SILENT</span>',
  failing: '<span class="bad">NOT GETTING THE FILE</span>',
} as const;

export function readersSection(view: ReadersView, now: string): string {
  const when = (at: string | undefined) => (at ? ago(at, now) : 'never');
  const monitors = view.monitors.map((m): Cell[] => [
    m.name,
    m.export ?? 'any export',
    html(states[m.state]),
    when(m.lastAt),
    age(m.windowSeconds),
    m.failure ? `${m.failure.why} for ${m.failure.export}, ${ago(m.failure.at, now)}` : '',
  ]);
  const fetches = view.fetches.map((f): Cell[] => [
    f.monitor ?? html('<span class="muted">other clients</span>'),
    f.export,
    when(f.lastAt),
    String(f.fetches),
    f.notModifiedShare === null ? '—' : `${Math.round(f.notModifiedShare * 100)}%`,
    f.failed === 0
      ? ''
      : html(
          `<span class="bad">${f.failed}</span>${f.lastFailure ? escapeHtml(`, last ${f.lastFailure.why} ${ago(f.lastFailure.at, now)} (${f.lastFailure.at})`) : ''}`,
        ),
    f.agent ?? '',
  ]);
  const seen =
    view.sources.length === 0
      ? 'nowhere'
      : view.sources.map((s) => (s === 'nginx' ? "nginx's access log" : 'this server')).join(' and ');
  const parts = [
    '<h2 id="readers">Readers</h2>',
    `<p class="muted">Fetches seen through ${escapeHtml(seen)}; watching since ${escapeHtml(view.since)}.</p>`,
    ...(view.logProblem ? [`<p class="banner">The access log cannot be read: ${escapeHtml(view.logProblem)}</p>`] : []),
    monitors.length === 0
      ? '<p class="muted">No monitor is expected (<code>monitors:</code> in the config).</p>'
      : table(['Monitor', 'Reads', 'State', 'Last fetch', 'Window', 'Answer'], monitors, {
          caption: 'Expected monitors',
        }),
    fetches.length === 0
      ? '<p class="muted">No fetch of an export seen yet.</p>'
      : table(['Monitor', 'Export', 'Last fetch', 'Fetches', '304s', 'Not a rate file', 'User agent'], fetches, {
          numeric: new Set([3, 4]),
          caption: 'Fetches per monitor and export',
          id: 'reader-rows',
        }),
  ];
  return parts.join('\n');
}
