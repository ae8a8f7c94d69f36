// The dashboard's history (change-only lines, trim by age, thinning, read back from the archive), its SVG charts and
// redaction; its memory bounds, which build days of history, are in dashboard-history.heavy.test.ts.
import { lineChart } from '../../../../src/service/dashboard/chart.js';
import { History, HISTORY_MS } from '../../../../src/service/dashboard/history.js';
import { publicText, publicValue, secretValues } from '../../../../src/service/dashboard/redact.js';
import { historyFromArchive } from '../../../../src/service/dashboard/archive-history.js';

import { describe, expect, it } from 'vitest';
import { fileStore } from '../../../../src/io/archive/files.js';
import { archiveBuild, at, recorderIn, figures, tempFolders, rates, t0 } from './history-fixtures.js';

const folder = tempFolders();

describe('History', () => {
  it('writes only the directions whose published or market rate changed, and null for one no longer published', () => {
    const history = new History();
    const first = history.lineFor(at(0), figures, rates({ 'A>B': ['1:10', '1:11'], 'B>A': ['2:1', '1.9:1'] }));
    expect(first.r).toEqual({ 'A>B': ['1:10', '1:11'], 'B>A': ['2:1', '1.9:1'] });
    history.apply(first);
    const same = history.lineFor(at(30_000), figures, rates({ 'A>B': ['1:10', '1:11'], 'B>A': ['2:1', '1.9:1'] }));
    expect(same).toEqual({ t: at(30_000).toISOString(), ms: 12, n: 2, w: 0 });
    history.apply(same);
    const moved = history.lineFor(at(60_000), figures, rates({ 'A>B': ['1:10', '1:11.5'] }));
    expect(moved.r).toEqual({ 'A>B': ['1:10', '1:11.5'], 'B>A': null });
    history.apply(moved);
    expect(history.builds.map((b) => b.at - t0)).toEqual([0, 30_000, 60_000]);
    expect(history.series.get('B>A')?.map((p) => p.value)).toEqual([['2:1', '1.9:1'], null]);
  });

  it('forgets what is older than 24 hours, keeping each direction’s value at the cut, and thins old points to one per 15 minutes', () => {
    const history = new History();
    // A build every 30 s for 25 hours, the rate changing every build.
    for (let i = 0; i <= 3000; i++)
      history.apply(history.lineFor(at(i * 30_000), figures, rates({ 'A>B': ['1:1', `1:${1000 + i}`] })));
    const now = at(3000 * 30_000);
    history.compact(now);
    expect(history.builds[0]!.at).toBeGreaterThanOrEqual(now.getTime() - HISTORY_MS);
    expect(history.builds).toHaveLength(2881);
    const points = history.series.get('A>B')!;
    expect(points[0]!.at).toBe(now.getTime() - HISTORY_MS);
    // 96 quarter hours of the day, one point a minute in the last ten minutes, and the cut.
    expect(points.length).toBeLessThanOrEqual(96 + 11 + 1);
    expect(points.at(-1)!.value).toEqual(['1:1', '1:4000']);
    // The value at the cut is the last one before it: 1 hour of builds (120) after the first.
    expect(points[0]!.value).toEqual(['1:1', `1:${1000 + 120}`]);
  });
});

describe('the history read back from the archive', () => {
  it('has each recorded build and each direction’s rates, a withheld one not charted', async () => {
    const dir = await folder();
    const recorder = await recorderIn(dir);
    for (let i = 0; i < 5; i++) await recorder.record(archiveBuild(i));
    const history = new History();
    for (const line of await historyFromArchive(fileStore(dir), at(10_000))) history.apply(line);
    expect(history.builds.map((b) => b.at - t0)).toEqual([100, 1100, 2100, 3100, 4100]);
    expect(history.series.get('A>B')!.map((p) => p.value?.[1])).toEqual(['1:10', '1:11', '1:12', '1:13', '1:14']);
    expect(history.series.has('C>D')).toBe(false);
  });
});

describe('lineChart', () => {
  const spec = { id: 'c', title: 'A → B <24 h>', desc: 'published & market', from: 0, to: 100, width: 100, height: 20 };

  it('is an SVG image titled and described for screen readers, counting its points', () => {
    const svg = lineChart({
      ...spec,
      series: [
        {
          className: 'published',
          points: [
            { at: 0, value: 1 },
            { at: 50, value: 2 },
            { at: 75, value: 3 },
          ],
        },
      ],
    });
    expect(svg).toMatch(
      /^<svg class="chart" role="img" aria-labelledby="c-t c-d" viewBox="0 0 100 20" width="100" height="20" data-points="3">/,
    );
    expect(svg).toContain('<title id="c-t">A → B &lt;24 h&gt;</title><desc id="c-d">published &amp; market</desc>');
    expect(svg).toContain('<path class="published" d="M0 16.9L50 10L75 3.1"/>');
  });

  it('draws steps that hold each value until the next point and to the end, broken where a value is missing', () => {
    const svg = lineChart({
      ...spec,
      step: true,
      series: [
        {
          className: 'p',
          points: [
            { at: 0, value: 1 },
            { at: 40, value: null },
            { at: 60, value: 2 },
          ],
        },
      ],
    });
    expect(svg).toContain('<path class="p" d="M0 16.9H40M60 3.1H100"/>');
    expect(lineChart({ ...spec, series: [] })).toContain('data-points="0"');
  });
});

describe('publicText', () => {
  const redaction = { roots: ['/srv/ratefile'], secrets: ['tok-123456'] };

  it('shows paths relative to the config folder, other absolute paths by their last part, URLs by their host, secrets as ***', () => {
    expect(publicText('backoffice: /srv/ratefile/quotes.json: not JSON', redaction)).toBe(
      'backoffice: quotes.json: not JSON',
    );
    expect(publicText('read /var/lib/office/reserves.json (ENOENT)', redaction)).toBe('read …/reserves.json (ENOENT)');
    expect(publicText('GET https://bob:pw@api.example.com:8443/v1?key=k failed', redaction)).toBe(
      'GET https://api.example.com:8443/… failed',
    );
    expect(publicText('header tok-123456 refused', redaction)).toBe('header *** refused');
    // Pairs, ratios and times are not paths.
    expect(publicText('BTC/USDT bid 1/in at 2026-11-21T12:00:00Z', redaction)).toBe(
      'BTC/USDT bid 1/in at 2026-11-21T12:00:00Z',
    );
  });

  it('goes through every string of a status, and takes secrets from variables named like secrets', () => {
    expect(publicValue({ a: ['/srv/ratefile/x.json'], b: { c: 'tok-123456' }, n: 1 }, redaction)).toEqual({
      a: ['x.json'],
      b: { c: '***' },
      n: 1,
    });
    expect(
      secretValues({ API_KEY: 'abcdef1', HOME: '/root', OFFICE: 'zzzzzzzz', SHORT_TOKEN: 'abc' }, ['OFFICE']),
    ).toEqual(['abcdef1', 'zzzzzzzz']);
  });
});
