// When a stream connects again: exponential backoff with full jitter after each failure, and never more attempts than
// the venue allows per address in its window (a reconnect storm is bounded whatever the server does). Pure: the
// caller gives the random number and the clock.

export interface BackoffPolicy {
  /** The first delay's ceiling; each failure in a row doubles it… */
  baseMs: number;
  /** …up to this. */
  capMs: number;
  /** A connection that stayed up this long resets the count of failures. */
  resetAfterMs: number;
}

export const defaultBackoff: Readonly<BackoffPolicy> = { baseMs: 500, capMs: 60_000, resetAfterMs: 60_000 };

/** The delay before attempt number `failures` + 1: uniform in [0, min(cap, base × 2^failures)) ("full jitter"). */
export function backoffDelay(
  failures: number,
  random: number,
  policy: Readonly<BackoffPolicy> = defaultBackoff,
): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(failures, 30));
  return Math.floor(Math.max(0, Math.min(random, 0.999_999)) * ceiling);
}

/**
 * The earliest an attempt may start, given the times of earlier attempts (oldest first): with `attempts` already
 * made within `windowMs`, not before the oldest of them leaves the window.
 */
export function connectAllowedAt(
  earlier: readonly number[],
  now: number,
  limit: { attempts: number; windowMs: number },
): number {
  const recent = earlier.filter((at) => at > now - limit.windowMs);
  if (recent.length < limit.attempts) return now;
  return (recent[recent.length - limit.attempts] ?? now) + limit.windowMs;
}
