// The contract of a lock driver (postgres.ts, mysql.ts): one session on a dedicated connection, and the deadline
// every one of its queries runs under.
import type { SqlTarget } from '../reserves/sql-target.js';
import type { LockRecord, LockTiming } from './role.js';

export interface LockSession {
  /** Take the lock when it is free; true when this session holds it (newly or already). */
  take(): Promise<boolean>;
  /** Whether this session holds the lock now: a cheap query on the lock connection. */
  holds(): Promise<boolean>;
  read(): Promise<{ record?: LockRecord; guard?: string }>;
  /** Record this instance as publishing now (only the holder calls it, right before it publishes). */
  claim(record: LockRecord): Promise<void>;
  /** The guard state after a publish, for whichever instance publishes next. */
  saveGuard(holder: string, guard: string): Promise<void>;
  /** Speak on the session so the server's idle timeout does not end it. */
  ping(): Promise<void>;
  /** End the session, which lets go of the lock (the server drops it with the connection); never throws. */
  close(): void;
}

export type LockDriver = (target: SqlTarget, name: string, timing: LockTiming) => Promise<LockSession>;

/** A failure of the lock's store, with the credentials cut out of the driver's words. */
export class LockProblem extends Error {}

/** The promise, or a LockProblem once `ms` pass (then `abandon` ends the connection: its answer comes too late). */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what: string, abandon: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abandon();
      reject(new LockProblem(`${what} took longer than ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
