import { describe, expect, it } from 'vitest';
import { backoffDelay, connectAllowedAt, defaultBackoff } from '../../../../../src/pure/sources/streams/backoff.js';

describe('backoffDelay', () => {
  it('doubles its ceiling with each failure in a row, up to the cap, and jitters below it', () => {
    expect(backoffDelay(0, 0.999)).toBeLessThan(defaultBackoff.baseMs);
    expect(backoffDelay(3, 0.5)).toBe(Math.floor(0.5 * defaultBackoff.baseMs * 8));
    expect(backoffDelay(40, 0.999)).toBeLessThan(defaultBackoff.capMs);
    expect(backoffDelay(40, 0)).toBe(0);
  });
});

describe('connectAllowedAt', () => {
  it('lets attempts through until the window holds its limit, then waits for the oldest to leave it', () => {
    const limit = { attempts: 3, windowMs: 1_000 };
    expect(connectAllowedAt([], 5_000, limit)).toBe(5_000);
    expect(connectAllowedAt([4_100, 4_500], 5_000, limit)).toBe(5_000);
    expect(connectAllowedAt([4_100, 4_500, 4_900], 5_000, limit)).toBe(5_100);
    // Attempts outside the window do not count.
    expect(connectAllowedAt([1_000, 2_000, 4_900], 5_000, limit)).toBe(5_000);
  });
});
