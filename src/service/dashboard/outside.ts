// The dashboard's "Outside view" section: each watched export's public copy as a monitor gets it (the watch from
// outside, src/service/start/outside-watch.ts): the same bytes as the latest build, an older build's, a challenge
// page, an error or too slow, since when, and how old the copy is.
import { age, ago } from '../../base/words.js';
import { escapeHtml, html, table, type Cell } from './html.js';
import type { OutsideView } from '../start/outside-watch.js';

const states: Record<string, string> = {
  same: '<span class="good">same</span>',
  older: '<span class="bad">OLDER</span>',
  challenge: '<span class="bad">CHALLENGE</span>',
  error: '<span class="bad">ERROR</span>',
  slow: '<span class="bad">SLOW</span>',
};

export function outsideSection(view: OutsideView, now: string): string {
  const rows = view.copies.map((copy): Cell[] => [
    copy.file,
    copy.url,
    copy.state
      ? html(states[copy.state] ?? escapeHtml(copy.state))
      : html('<span class="muted">not fetched yet</span>'),
    copy.detail ?? '',
    copy.since ? ago(copy.since, now) : '',
    copy.ageSeconds === undefined ? '—' : age(copy.ageSeconds),
    copy.ms === undefined ? '' : `${copy.ms} ms${copy.status === undefined ? '' : `, HTTP ${copy.status}`}`,
    copy.at ? ago(copy.at, now) : 'never',
  ]);
  return [
    '<h2 id="outside">Outside view</h2>',
    `<p class="muted">Each public copy fetched as a monitor would, every ${escapeHtml(age(view.everyMs / 1000))}, as ${escapeHtml(JSON.stringify(view.userAgent))}; slower than ${escapeHtml(`${view.slowAfterMs / 1000} s`)} is slow.</p>`,
    table(['Export', 'Public URL', 'State', 'What came', 'Since', 'Copy age', 'Fetch', 'Checked'], rows, {
      caption: 'Public copies of the exports',
      id: 'outside-rows',
    }),
  ].join('\n');
}
