// The dashboard history's memory bounds, measured by building days of history (a heavy test: out of the quick loop).
import { describe, expect, it } from 'vitest';
import { History, HISTORY_BOUND, HISTORY_MS, type RatePair } from '../../../../src/service/dashboard/history.js';
import { openHistory } from '../../../../src/service/dashboard/store.js';
import { at, figures, quietLog, tempFolders, rates } from './history-fixtures.js';

const folder = tempFolders();

describe('History', () => {
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
});

describe('the history file', () => {
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
});
