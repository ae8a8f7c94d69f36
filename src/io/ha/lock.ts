// The lock of a warm standby, one session per instance on a dedicated connection (never pooled: a session lock
// lives as long as its connection, so "the connection is alive" is "the lock is held"). Drivers: postgres.ts
// (pg_try_advisory_lock), mysql.ts (GET_LOCK); each also keeps the lock's record and the shared guard state in a
// table `ratefile_ha` of the same database. Every query has a deadline: one that passes ends the session.
import { RatefileError } from '../../base/errors.js';
import { redact } from '../../base/secrets.js';
import { parseSqlUrl, sqlTarget, type SqlTarget } from '../reserves/sql-target.js';
import type { LockTiming } from '../../pure/ha/role.js';
import type { HaConfig } from '../../model/ha.js';
import { leaseWhere } from './s3.js';
import type { LockDriver, LockSession } from './session.js';

export type { LockSession } from './session.js';

const drivers: Record<SqlTarget['dialect'], () => Promise<LockDriver>> = {
  postgres: async () => (await import('./postgres.js')).openPostgresLock,
  mysql: async () => (await import('./mysql.js')).openMysqlLock,
};

export interface LockStore {
  /** `postgres db.internal:5432/ratefile`: what messages name. */
  where: string;
  open(): Promise<LockSession>;
  /** A driver's error in words without the password (the user name stays: it names what is wrong). */
  describe(error: unknown): string;
}

/** The store named by `ha.lock`: the URL read from the environment variable now, its password registered as a secret. */
export function lockStore(
  envName: string,
  env: Record<string, string | undefined>,
  name: string,
  timing: LockTiming,
): LockStore {
  const text = env[envName];
  if (!text)
    throw new RatefileError('E_CONFIG', `ha.lock: environment variable ${envName} (the lock database URL) is not set`);
  // A malformed URL is a config error (exit 2), like an unset variable, not a failing source.
  const parsed = parseSqlUrl(text);
  if (typeof parsed === 'string')
    throw new RatefileError('E_CONFIG', `ha.lock: environment variable ${envName}: ${parsed}`);
  const target = sqlTarget(text, `ha.lock: environment variable ${envName}`);
  return {
    where: target.where,
    open: async () => (await drivers[target.dialect]())(target, name, timing),
    // Only the password is cut out: a user name is no secret, and `role "***" does not exist` hides the fault.
    describe: (error) => redact(error instanceof Error ? error.message : String(error), ...target.secrets.password),
  };
}

/** The store `ha.lock` names: a database (`env`) or a lease object in an S3 bucket (`s3`, src/io/ha/s3.ts). */
export function haLockStore(
  lock: HaConfig['lock'],
  env: Record<string, string | undefined>,
  name: string,
  timing: LockTiming,
  lease: { instance: string; now: () => Date },
): LockStore {
  const target = lock.s3;
  if (target === undefined) return lockStore(lock.env ?? '', env, name, timing);
  return {
    where: leaseWhere(target),
    open: async () => (await import('./s3.js')).openLease(target, name, timing, lease),
    // The SDK's words: its errors name the bucket and the status, never the credentials.
    describe: (error) => {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      const text =
        error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
      return status === undefined ? text : `${text} (HTTP ${status})`;
    },
  };
}
