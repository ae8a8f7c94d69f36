// The contract of a lock driver (postgres.ts, mysql.ts): one session on a dedicated connection, the deadline every
// one of its queries runs under, and the session's steps, which every driver shares (each gives its SQL).
import type { SqlTarget } from '../reserves/sql-target.js';
import type { LockRecord, LockTiming } from '../../pure/ha/role.js';

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

/** A query on the lock's connection: its rows, under the query deadline (`what` names it in a timeout). */
export type LockQuery = (sql: string, values?: unknown[], what?: string) => Promise<Record<string, unknown>[]>;

/**
 * A driver's SQL for each step of a session, the one thing the drivers do differently. Values: `holds` and `take`
 * get `lockValues`; `read` [name]; `claim` [name, holder, configHash, since, publishingAt]; `saveGuard` [guard, name,
 * holder]. `holds` answers `held`, `take` answers `taken`: true or 1.
 */
export interface LockSql {
  holds: string;
  take: string;
  lockValues: readonly unknown[];
  read: string;
  claim: string;
  saveGuard: string;
}

/** The dedicated connection: its first failure (no query is sent after it), and how to end it. */
export class LockLink {
  failure: string | undefined;
  constructor(readonly end: () => void) {}
  readonly failed = (error: Error): void => {
    this.failure ??= error.message;
  };
  /** Throws once the connection failed: a query on it would wait for nothing. */
  check(): void {
    if (this.failure !== undefined) throw new LockProblem(`the lock connection failed: ${this.failure}`);
  }
  /** Connects and sets the session up; a failure on the way ends the connection. */
  async open(setup: () => Promise<void>): Promise<void> {
    try {
      await setup();
    } catch (error) {
      this.end();
      throw error;
    }
  }
  close(): void {
    this.failure ??= 'closed';
    this.end();
  }
}

/** A session on the lock's connection: the same steps for every driver, each in the driver's SQL. */
export function lockSession(name: string, sql: LockSql, query: LockQuery, link: LockLink): LockSession {
  // `true` (PostgreSQL) or 1 (MariaDB, MySQL).
  const yes = (value: unknown) => Number(value) === 1;
  const holds = async () => yes((await query(sql.holds, [...sql.lockValues], 'the lock check'))[0]?.held);
  return {
    holds,
    take: async () => {
      // Taking it twice would stack a second hold on the session: only when this session does not hold it yet.
      if (await holds()) return true;
      return yes((await query(sql.take, [...sql.lockValues], 'taking the lock'))[0]?.taken);
    },
    read: async () => {
      const row = (await query(sql.read, [name], 'reading the lock record'))[0];
      if (!row) return {};
      const record: LockRecord = {
        holder: String(row.holder),
        configHash: String(row.config_hash),
        since: Number(row.since),
        publishingAt: Number(row.publishing_at),
      };
      return { record, ...(row.guard === null || row.guard === undefined ? {} : { guard: String(row.guard) }) };
    },
    claim: async (record) => {
      const values = [name, record.holder, record.configHash, record.since, record.publishingAt];
      await query(sql.claim, values, 'recording the publish');
    },
    saveGuard: async (holder, guard) => {
      await query(sql.saveGuard, [guard, name, holder], 'recording the guard state');
    },
    ping: async () => {
      await query('SELECT 1', [], 'the keepalive query');
    },
    close: () => link.close(),
  };
}
