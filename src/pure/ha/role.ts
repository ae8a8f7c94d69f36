// Who publishes in a warm standby: given what the lock says right before a publish, this instance publishes, waits
// a period, or lets go of the lock. Pure: the lock's answers and the build's time in, the decision out.

/** What the lock's store records beside the lock: the last instance to publish, from which config, and when. */
export interface LockRecord {
  holder: string;
  configHash: string;
  /** When the holder took the lock (ms since the epoch). */
  since: number;
  /** The build time (ms) of the holder's last publish, written right before it published. */
  publishingAt: number;
}

export interface PublishAsk {
  instance: string;
  configHash: string;
  /** This build's time (ms). */
  at: number;
  periodMs: number;
  allowConfigMismatch: boolean;
}

export type PublishDecision =
  | { publish: true; takeover?: { from: string } }
  | { publish: false; release: boolean; reason: string };

/** `held`: this instance's lock session holds the lock now; `record`: what the store says, read after. */
export function decidePublish(held: boolean, record: LockRecord | undefined, ask: PublishAsk): PublishDecision {
  if (!held)
    return {
      publish: false,
      release: false,
      reason: record ? `${record.holder} holds the lock` : 'another instance holds the lock',
    };
  if (!record || record.holder === ask.instance) return { publish: true };
  // Taking over from another instance: only with the config it published from, unless told otherwise.
  if (record.configHash !== ask.configHash && !ask.allowConfigMismatch)
    return {
      publish: false,
      release: true,
      reason: `not taking over from ${record.holder}: its config (hash ${record.configHash}) differs from this one (${ask.configHash}); make them equal or set ha.allowConfigMismatch`,
    };
  // Builds run on the same cron ticks everywhere: a publish by the last holder less than half a period ago was
  // this period's (it may have lost the lock just after), so this instance publishes from the next tick on.
  if (ask.at - record.publishingAt < ask.periodMs / 2)
    return {
      publish: false,
      release: false,
      reason: `took the lock; ${record.holder} published in this period, so this instance publishes from the next`,
    };
  return { publish: true, takeover: { from: record.holder } };
}

/** How the lock session keeps alive and notices a dead link, from the schedule's period. */
export interface LockTiming {
  /** The server ends a session idle this long, so a stalled holder's lock frees within it. */
  idleTimeoutMs: number;
  /** Each instance speaks on its lock session this often (well inside the idle timeout). */
  heartbeatMs: number;
  /** A lock query (or connect) slower than this counts as a lost session. */
  queryTimeoutMs: number;
}

/**
 * Half a period of idleness ends a session (at least 1 s, MariaDB's unit; at most a minute), so a stalled holder's
 * lock is free within half a period and the next build on the standby takes it: a takeover within 1.5 periods.
 */
export function lockTiming(periodMs: number): LockTiming {
  const idleTimeoutMs = Math.min(60_000, Math.max(1_000, Math.round(periodMs / 2)));
  return {
    idleTimeoutMs,
    heartbeatMs: Math.round(idleTimeoutMs / 3),
    queryTimeoutMs: Math.max(500, Math.round(idleTimeoutMs / 2)),
  };
}

/** Seconds for people: 4.2, 3 (one decimal at most). */
const seconds = (ms: number): string => String(Math.round(ms / 100) / 10);

/**
 * Under `ha:` a build must reach its files within a period (src/io/ha/placed.ts never puts an older one in place,
 * and a long build starves the lock's heartbeat): the words when builds take longer, for the log, status and health.
 */
export function slowBuildText(buildMs: number, periodMs: number): string {
  return `builds take ${seconds(buildMs)} s, longer than the period ${seconds(periodMs)} s: nothing can be published; raise the period`;
}
