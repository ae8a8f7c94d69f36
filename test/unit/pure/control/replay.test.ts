// Replays: an update id seen before (in this batch, or saved from an earlier run) is not fresh; the list keeps ids
// for `keepMs` and at most MAX_SEEN of them, and a saved list of another shape is read as what it holds.
import { describe, expect, it } from 'vitest';
import { MAX_SEEN, noteUpdates, seenOf } from '../../../../src/pure/control/replay.js';

describe('noteUpdates', () => {
  it('tells fresh ids from seen ones, and keeps the seen for keepMs', () => {
    const first = noteUpdates([], [5, 6, 6], 1000, 10_000);
    expect([...first.fresh]).toEqual([5, 6]);
    expect(first.seen).toEqual([
      [5, 1000],
      [6, 1000],
    ]);
    const second = noteUpdates(first.seen, [6, 7], 2000, 10_000);
    expect([...second.fresh]).toEqual([7]);
    expect(noteUpdates(second.seen, [8], 11_500, 10_000).seen).toEqual([
      [7, 2000],
      [8, 11_500],
    ]);
  });

  it('keeps at most MAX_SEEN ids, the newest', () => {
    const many = noteUpdates(
      [],
      Array.from({ length: MAX_SEEN + 10 }, (_, i) => i),
      0,
      10_000,
    ).seen;
    expect(many).toHaveLength(MAX_SEEN);
    expect(many[0]).toEqual([10, 0]);
  });

  it('reads a saved list, leaving out entries of another shape', () => {
    expect(seenOf([[1, 2], ['x', 1], [3], null, [4, 5]])).toEqual([
      [1, 2],
      [4, 5],
    ]);
    expect(seenOf({})).toEqual([]);
  });
});
