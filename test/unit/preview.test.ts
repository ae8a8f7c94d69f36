// renderPreview: the page for each state the service can be in (no build yet, a failed build after a good one, maintenance).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type BuildReport } from '../../src/build.js';
import { loadConfig } from '../../src/config/load.js';
import type { ExportTemplate } from '../../src/model.js';
import { escapeHtml } from '../../src/preview/html.js';
import { renderPreview } from '../../src/preview/page.js';
import type { Status } from '../../src/status.js';
import { makeProject, type Project } from '../support/project.js';
import { fixedNow } from '../support/run-cli.js';

let made: Project;
let report: BuildReport;
let exports: ExportTemplate[];
beforeAll(async () => {
  made = await makeProject();
  const config = await loadConfig(made.configPath, made.dir);
  exports = config.exports;
  report = (await build(config, { now: fixedNow })).report;
});
afterAll(() => made.remove());

const failed: Status = {
  version: 1,
  lastBuild: { at: '2026-11-21T12:01:00.000Z', durationMs: 3, ok: false, error: 'config: <b>bad</b>' },
  lastSuccessAt: '2026-11-21T12:00:30.000Z',
  schedulePeriodMs: 30_000,
  maintenance: false,
  sources: [],
  exports: [],
  published: [],
  heldBack: [],
};

describe('the preview page', () => {
  it('before any build says so', () => {
    const html = renderPreview({ now: fixedNow() });
    expect(html).toContain('<p class="banner">No build has published yet.</p>');
    expect(html).not.toContain('<table');
  });

  it('after a failed build shows the failure, escaped, above the last good build', () => {
    const html = renderPreview({ latest: { report, exports }, status: failed, now: new Date('2026-11-21T12:01:05Z') });
    expect(html).toContain('<span class="bad">FAILED</span>');
    expect(html).toContain('the last good files are still published: config: &lt;b&gt;bad&lt;/b&gt;</p>');
    expect(html).toContain('Below: the build of 2026-11-21T12:00:30.000Z.');
    expect(html).toContain('<a href="/parserfile.xml">parserfile.xml</a>');
    expect(html).toContain('<td data-label="Cities">MSK, SPB</td>');
  });

  it('in maintenance shows the banner and empty exports', () => {
    const html = renderPreview({ latest: { report: { ...report, maintenance: true, priced: [] }, exports }, now: fixedNow() });
    expect(html).toContain('Maintenance is on');
    expect(html.match(/Empty: <code>&lt;rates&gt;&lt;\/rates&gt;<\/code>/g)).toHaveLength(3);
  });

  it('shows a feed source by its rows', () => {
    const feed = { name: 'bc', type: 'bestchange', ok: true, quotes: 0, rows: 202_690, rejected: [] };
    const html = renderPreview({ latest: { report: { ...report, sources: [...report.sources, feed] }, exports }, now: fixedNow() });
    expect(html).toMatch(/<td[^>]*>bc<\/td>\s*<td[^>]*>bestchange<\/td>\s*<td[^>]*>ok<\/td>\s*<td[^>]*>202690 rows<\/td>/);
  });

  it('escapes the five characters that matter in HTML', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});

describe('the preview page with paused directions and reserve sources', () => {
  it('lists paused directions under Paused (not held back) and each reserve source with its problem, escaped', async () => {
    const config = await loadConfig(made.configPath, made.dir);
    const paused = (await build(config, { now: fixedNow, guard: { state: { published: {}, pending: {} }, accepted: new Set(), maintenance: false, pauses: [{ direction: 'BTC>SBERRUB', since: '2026-11-21T12:00:00Z', reason: 'bank <blocks> cards' }] } })).report;
    const withReserves = { ...paused, reserves: [{ name: 'office', type: 'http', ok: false, entries: 0, error: 'office: GET /r: HTTP 500 <oops>' }] };
    const html = renderPreview({ latest: { report: withReserves, exports }, now: fixedNow() });
    expect(html).toContain('3 directions published, 0 held back, 1 paused.');
    expect(html).toMatch(/<h2 id="paused">Paused<\/h2>\n<table[^]*?BTC → SBERRUB<\/td><td data-label="Reason">paused: bank &lt;blocks&gt; cards \(since 2026-11-21T12:00:00Z\)<\/td>/);
    expect(html).toContain('<p class="muted">Nothing is held back.</p>');
    expect(html).toMatch(/<h2 id="reserves">Reserve sources<\/h2>[^]*?>office<\/td>[^]*?>FAILING<\/td>[^]*?office: GET \/r: HTTP 500 &lt;oops&gt;<\/td>/);
  });
});
