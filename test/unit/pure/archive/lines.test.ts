// `ratefile status`'s archive lines: its size against the budget, the window kept, and a warning when, at the rate the
// archive grows, the budget cannot keep the window (the default 4 GiB keeps hours of 10,000 directions at 1 s).
import { describe, expect, it } from 'vitest';
import { archiveLines, budgetReach, bytesText } from '../../../../src/pure/archive/lines.js';
import type { ArchiveStatus } from '../../../../src/model/archive.js';

const DAY = 86_400_000;
const now = new Date('2026-12-02T12:00:00Z');
const status = (bytes: number, oldestAgoMs: number): ArchiveStatus => ({
  store: 'files',
  windowMs: 30 * DAY,
  budgetBytes: 4 * 2 ** 30,
  bytes,
  oldest: new Date(now.getTime() - oldestAgoMs).toISOString(),
  signed: false,
});

describe("the archive's status lines", () => {
  it('say the size, the budget and the window kept', () => {
    expect(archiveLines(status(300 * 2 ** 20, 2 * DAY), now)).toMatch(
      /^archive \(files\): 300 MiB of 4\.0 GiB; kept since 2026-11-30T12:00:00\.000Z \(2 days ago\); window 30 days/,
    );
  });

  it('warn when at the rate it grows the budget keeps less than the window, with the budget the window needs', () => {
    // 3 GB in 12 hours, 6 GB a day: the 4 GiB budget keeps about 17 hours; 30 days need about 168 GiB.
    const fast = status(3e9, DAY / 2);
    const reach = budgetReach(fast, now)!;
    expect(reach.keepsMs / 3_600_000).toBeCloseTo((4 * 2 ** 30 * 24) / 6e9, 6);
    expect(bytesText(reach.windowBytes)).toBe('168 GiB');
    expect(archiveLines(fast, now)).toContain(
      'at the rate it grows the budget keeps about 17 h 11 min of records, less than the window (30 days): raise archive.budget to about 168 GiB or shorten archive.window',
    );
  });

  it('say nothing of the budget when it keeps the window, or before an hour of records', () => {
    expect(archiveLines(status(100 * 2 ** 20, DAY), now)).not.toMatch(/budget keeps/);
    expect(budgetReach(status(4e9, 10 * 60_000), now)).toBeUndefined();
    expect(archiveLines(status(4e9, 10 * 60_000), now)).not.toMatch(/budget keeps/);
  });
});
