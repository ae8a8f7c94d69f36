// The dashboard's history (change-only lines, trim by age, thinning, the file read back), its SVG charts and redaction.
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lineChart } from '../../../../src/service/dashboard/chart.js';
import {
  History,
  HISTORY_BOUND,
  HISTORY_MS,
  parseLine,
  type RatePair,
} from '../../../../src/service/dashboard/history.js';
import { publicText, publicValue, secretValues } from '../../../../src/service/dashboard/redact.js';
import { historyFile, openHistory } from '../../../../src/service/dashboard/store.js';

const t0 = Date.parse('2026-11-21T00:00:00Z');
const at = (ms: number) => new Date(t0 + ms);
const figures = { durationMs: 12, published: 2, withheld: 0 };
const rates = (entries: Record<string, RatePair>) => new Map(Object.entries(entries));

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
const folder = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-history-'));
  folders.push(dir);
  return dir;
};
const quietLog = () => {
  const lines: string[] = [];
  return { lines, warn: (message: string) => void lines.push(message) };
};

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

  it('stays small: at most 6 KB a direction for a day in which every rate changes on every 30-second build (≤ 60 MB at 10,000)', () => {
    const history = new History();
    const directions = 100;
    const now = at(HISTORY_MS);
    for (let i = 0; i <= 2880; i++) {
      const day = new Map<string, RatePair>();
      for (let d = 0; d < directions; d++) day.set(`USDTTRC20>CUR${d}`, ['1:1', `1:${92.1234 + i / 10000 + d}`]);
      history.apply(history.lineFor(at(i * 30_000), { durationMs: 123, published: directions, withheld: 0 }, day));
      // The store compacts every ten minutes.
      if (i % 20 === 0) history.compact(at(i * 30_000));
    }
    history.compact(now);
    const bytes = history.lines().reduce((sum, line) => sum + JSON.stringify(line).length + 1, 0);
    expect(bytes / directions).toBeLessThan(6 * 1024);
  });

  it('holds at most HISTORY_BOUND whatever the schedule: 26 hours of builds every second, every rate moving', () => {
    const history = new History();
    let most = { builds: 0, points: 0 };
    for (let i = 0; i < 26 * 3600; i++) {
      const moving = rates({ 'A>B': ['1:1', `1:${1000 + i}`], 'B>A': [`${1000 + i}:1`, '1:1'] });
      history.add(history.lineFor(at(i * 1000), { durationMs: i % 97, published: 2, withheld: 0 }, moving));
      const points = Math.max(...[...history.series.values()].map((series) => series.length));
      most = { builds: Math.max(most.builds, history.builds.length), points: Math.max(most.points, points) };
    }
    expect(most.builds).toBeLessThanOrEqual(HISTORY_BOUND.builds);
    expect(most.points).toBeLessThanOrEqual(HISTORY_BOUND.pointsPerDirection);
    // The bound is a day at one point per 30 s plus the recent ten minutes, not 93,600 builds.
    expect(HISTORY_BOUND.builds).toBeLessThan(4000);
    expect(HISTORY_BOUND.pointsPerDirection).toBeLessThan(250);
    // The latest value is always there, and the slowest build of an old 30-second bucket is the one kept.
    expect(history.series.get('A>B')!.at(-1)!.value).toEqual(['1:1', `1:${1000 + 26 * 3600 - 1}`]);
    expect(history.builds[0]!.durationMs).toBeGreaterThan(60);
  });

  it('reads back what it wrote, skipping a broken line', () => {
    const history = new History();
    history.apply(history.lineFor(at(0), figures, rates({ 'A>B': ['1:10', '1:11'] })));
    const again = new History();
    for (const line of history.lines()) {
      const parsed = parseLine(JSON.stringify(line));
      if ('problem' in parsed) throw new Error(parsed.problem);
      again.apply(parsed);
    }
    expect(again.series).toEqual(history.series);
    expect(again.builds).toEqual(history.builds);
    expect(parseLine('{"t":"2026')).toEqual({ problem: 'expected a JSON object, got text that is not JSON' });
    expect(parseLine('[]')).toEqual({ problem: 'expected a JSON object' });
    expect(parseLine('{"t":"x"}')).toEqual({ problem: 't: expected an ISO time like "2026-11-21T12:00:00.000Z"' });
    expect(parseLine('{"t":"2026-11-21T00:00:00Z","ms":"1"}')).toEqual({ problem: 'ms: expected a number' });
    expect(parseLine('{"t":"2026-11-21T00:00:00Z","r":{"A>B":[1,2]}}')).toEqual({
      problem: 'r.A>B: expected ["published in:out", "market in:out"] or null',
    });
  });
});

describe('the history file', () => {
  it('survives a restart: lines appended after each build are read back, an unreadable line is skipped with a warning', async () => {
    const state = await folder();
    const log = quietLog();
    const store = await openHistory(state, log, at(0));
    for (let i = 0; i < 3; i++) store.record(at(i * 1000), figures, rates({ 'A>B': ['1:1', `1:${10 + i}`] }));
    await store.idle();
    await writeFile(historyFile(state), `${await readFile(historyFile(state), 'utf8')}{"t":"2026-11-21T00:00:0`);
    const reopened = await openHistory(state, log, at(5000));
    expect(reopened.history.builds.map((b) => b.at - t0)).toEqual([0, 1000, 2000]);
    expect(reopened.history.series.get('A>B')!.at(-1)!.value).toEqual(['1:1', '1:12']);
    expect(log.lines).toEqual([
      `history: ${historyFile(state)}, line 4: expected a JSON object, got text that is not JSON; skipped`,
    ]);
  });

  it('is bounded in memory at a one-second schedule between the file’s ten-minute rewrites', async () => {
    const state = await folder();
    const store = await openHistory(state, quietLog(), at(0));
    let most = { builds: 0, points: 0 };
    // Three hours of builds every second, each moving every rate.
    for (let i = 0; i < 3 * 3600; i++) {
      store.record(at(i * 1000), figures, rates({ 'A>B': ['1:1', `1:${10 + i}`], 'C>D': [`${5 + i}:1`, '1:1'] }));
      const points = Math.max(...[...store.history.series.values()].map((series) => series.length));
      most = { builds: Math.max(most.builds, store.history.builds.length), points: Math.max(most.points, points) };
    }
    await store.idle();
    expect(most.builds).toBeLessThanOrEqual(HISTORY_BOUND.builds);
    expect(most.points).toBeLessThanOrEqual(HISTORY_BOUND.pointsPerDirection);
    // What the file holds reads back to the same day.
    const reopened = await openHistory(state, quietLog(), at(3 * 3600 * 1000));
    expect(reopened.history.series.get('A>B')!.at(-1)!.value).toEqual(['1:1', `1:${10 + 3 * 3600 - 1}`]);
  });

  it('never throws when the file cannot be written: one warning while it lasts, the history goes on in memory', async () => {
    const state = await folder();
    await mkdir(state, { recursive: true });
    // A file where the history folder should be.
    await writeFile(join(state, 'history'), 'not a folder');
    const log = quietLog();
    const store = await openHistory(state, log, at(0));
    store.record(at(0), figures, rates({}));
    store.record(at(1000), figures, rates({}));
    await store.idle();
    expect(log.lines.filter((line) => line.startsWith('history: cannot write the history file'))).toHaveLength(1);
    expect(store.history.builds).toHaveLength(2);
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
