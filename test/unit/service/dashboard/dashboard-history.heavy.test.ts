// The dashboard history's memory bounds, measured by building days of history (a heavy test: out of the quick loop).
import { describe, expect, it } from 'vitest';
import { History, HISTORY_BOUND, HISTORY_MS, type RatePair } from '../../../../src/service/dashboard/history.js';
import { historyFromArchive } from '../../../../src/service/dashboard/archive-history.js';
import { fileStore } from '../../../../src/io/archive/files.js';
import { archiveBuild, at, recorderIn, tempFolders, rates } from './history-fixtures.js';

const folder = tempFolders();

describe('History', () => {
  it('stays small: at most 108 points a direction for a day in which every rate changes on every 30-second build', () => {
    const history = new History();
    const directions = 100;
    const now = at(HISTORY_MS);
    for (let i = 0; i <= 2880; i++) {
      const day = new Map<string, RatePair>();
      for (let d = 0; d < directions; d++) day.set(`USDTTRC20>CUR${d}`, ['1:1', `1:${92.1234 + i / 10000 + d}`]);
      history.add(history.lineFor(at(i * 30_000), { durationMs: 123, published: directions, withheld: 0 }, day));
    }
    history.compact(now);
    for (const points of history.series.values()) expect(points.length).toBeLessThanOrEqual(96 + 11 + 1);
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

describe('the history read back from the archive', () => {
  it('after 20 minutes of builds every second: one point a second for the last ten minutes, fewer before, the latest value last', async () => {
    const dir = await folder();
    const recorder = await recorderIn(dir);
    const count = 1200;
    for (let i = 0; i < count; i++) await recorder.record(archiveBuild(i));
    const history = new History();
    for (const line of await historyFromArchive(fileStore(dir), at(count * 1000))) history.apply(line);
    history.compact(at(count * 1000));
    // Builds: one per second for the last ten minutes, one per 30 s before; rates: one a minute, one per 15 minutes.
    expect(history.builds.length).toBeGreaterThan(600);
    expect(history.builds.length).toBeLessThan(625);
    expect(history.series.get('A>B')!.length).toBeLessThan(15);
    expect(history.series.get('A>B')!.at(-1)!.value).toEqual(['1:1', `1:${10 + count - 1}`]);
  });
});
