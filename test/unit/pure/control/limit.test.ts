// The rate limit: `commands` per `per` for each key, refilled steadily; over it, refused, and only the first
// refusal of a run is to be said.
import { describe, expect, it } from 'vitest';
import { RateLimit } from '../../../../src/pure/control/limit.js';

describe('RateLimit', () => {
  it('allows `commands` at once, says the first refusal only, and refills with time', () => {
    const limit = new RateLimit(3, 60_000);
    const taken = Array.from({ length: 100 }, () => limit.take('anna', 0));
    expect(taken.slice(0, 4)).toEqual(['ok', 'ok', 'ok', 'over, say so']);
    expect(new Set(taken.slice(4))).toEqual(new Set(['over']));
    expect(limit.waitMs('anna')).toBe(20_000);
    expect(limit.take('anna', 19_999)).toBe('over');
    expect(limit.take('anna', 20_000)).toBe('ok');
    // A new run of refusals is said again.
    expect(limit.take('anna', 20_001)).toBe('over, say so');
  });

  it('keeps each key apart', () => {
    const limit = new RateLimit(1, 60_000);
    expect(limit.take('strangers', 0)).toBe('ok');
    expect(limit.take('strangers', 0)).toBe('over, say so');
    expect(limit.take('person:1', 0)).toBe('ok');
  });
});
