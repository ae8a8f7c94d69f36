// decidePublish (src/pure/ha/role.ts) in the case a realistic slip gets wrong: this instance's lock session no longer
// holds the lock (it ended: an idle timeout, a dropped connection, a pause) while the record still names this
// instance as the last publisher. The record is what this instance wrote; the lock is what fences: no publish.
import { describe, expect, it } from 'vitest';
import { decidePublish, type LockRecord, type PublishAsk } from '../../../../src/pure/ha/role.js';

const PERIOD = 30_000;
const ask: PublishAsk = {
  instance: 'rates-1',
  configHash: 'c0ffee',
  at: Date.parse('2026-11-26T12:00:00Z'),
  periodMs: PERIOD,
  allowConfigMismatch: false,
};
const ours = (publishedAgo: number): LockRecord => ({
  holder: 'rates-1',
  configHash: 'c0ffee',
  since: ask.at - 10 * PERIOD,
  publishingAt: ask.at - publishedAgo,
});

describe('decidePublish without the lock', () => {
  it.each([
    ['published a moment ago', 1_000],
    ['published a period ago', PERIOD],
    ['published long ago', 100 * PERIOD],
  ])('does not publish, nor let go of a lock it lacks, when the record still names it (%s)', (_name, ago) => {
    expect(decidePublish(false, ours(ago), ask)).toMatchObject({ publish: false, release: false });
  });

  it('publishes once its session holds the lock again', () => {
    expect(decidePublish(true, ours(PERIOD), ask)).toEqual({ publish: true });
  });
});
