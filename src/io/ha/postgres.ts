// The warm standby's lock in PostgreSQL: a session advisory lock (pg_try_advisory_lock on two keys derived from
// the lock's name) on one dedicated connection, which the server ends after `idle_session_timeout` of silence
// (PostgreSQL 14 or later), so a holder whose link stalls loses the lock within that time.
import { createHash } from 'node:crypto';
import { Socket } from 'node:net';
import pg from 'pg';
import type { LockTiming } from '../../pure/ha/role.js';
import {
  LockLink,
  LockProblem,
  lockSession,
  withDeadline,
  type LockDriver,
  type LockQuery,
  type LockSql,
} from './session.js';

/** Two non-negative int4 keys (the advisory lock's two-key form, which pg_locks shows as classid, objid). */
export function lockKeys(name: string): [number, number] {
  const digest = createHash('sha256').update(`ratefile:${name}`).digest();
  return [digest.readUInt32BE(0) & 0x7fffffff, digest.readUInt32BE(4) & 0x7fffffff];
}

const table =
  'CREATE TABLE IF NOT EXISTS ratefile_ha (name text PRIMARY KEY, holder text NOT NULL, config_hash text NOT NULL, since bigint NOT NULL, publishing_at bigint NOT NULL, guard text)';
// Two instances creating the table at once: one of them gets a duplicate error, and the table is there.
const raced = new Set(['23505', '42P07']);

export const openPostgresLock: LockDriver = async (target, name, timing) => {
  const socket = new Socket();
  const client = new pg.Client({
    connectionString: target.url.href,
    stream: () => socket,
    application_name: 'ratefile-ha',
    keepAlive: true,
    keepAliveInitialDelayMillis: timing.heartbeatMs,
  });
  const link = new LockLink(() => socket.destroy());
  client.on('error', link.failed);
  // One query at a time on the connection (pg deprecates overlapping ones): the heartbeat and a publish's lock
  // check per file may ask together; each waits its turn, and its deadline runs from when it is sent.
  let queue: Promise<unknown> = Promise.resolve();
  const query: LockQuery = async (text, values = [], what = 'a lock query') => {
    const turn = queue.then(() => {
      link.check();
      return withDeadline(client.query(text, values), timing.queryTimeoutMs, what, link.end);
    });
    queue = turn.catch(() => undefined);
    return (await turn).rows as Record<string, unknown>[];
  };
  await link.open(async () => {
    await withDeadline(client.connect(), Math.max(2_000, timing.idleTimeoutMs), 'connecting', link.end);
    await setUp(query, timing);
  });
  return lockSession(name, postgresSql(name), query, link);
};

/** SQLSTATE 42704 (undefined_object): the server does not know the setting (PostgreSQL 13 and older). */
const unknownSetting = '42704';

/** The session's timeouts and keepalives, and the record's table. */
async function setUp(query: LockQuery, timing: LockTiming): Promise<void> {
  const setting = 'setting idle_session_timeout';
  try {
    await query(`SET idle_session_timeout = ${timing.idleTimeoutMs}`, [], setting);
  } catch (error) {
    // Only the server's own "unknown setting" is a version problem: a missed deadline or any other answer is said
    // as it is (a loaded PostgreSQL 15 that answers late is not too old).
    if ((error as { code?: string }).code !== unknownSetting) throw error;
    throw new LockProblem(
      `PostgreSQL 14 or later is needed (idle_session_timeout); the server answered: ${(error as Error).message}`,
    );
  }
  await query(`SET statement_timeout = ${timing.queryTimeoutMs}`, [], 'setting statement_timeout');
  // The server's side of the keepalive (the client's is keepAlive above): a dead peer is noticed in seconds.
  const keepalives = 'setting the TCP keepalives';
  await query(`SET tcp_keepalives_idle = ${Math.max(1, Math.ceil(timing.heartbeatMs / 1000))}`, [], keepalives);
  await query('SET tcp_keepalives_interval = 1', [], keepalives);
  await query('SET tcp_keepalives_count = 3', [], keepalives);
  await query(table, [], 'creating the table ratefile_ha').catch((error: unknown) => {
    if (!raced.has((error as { code?: string }).code ?? '')) throw error;
  });
}

const postgresSql = (name: string): LockSql => ({
  holds:
    "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted AND classid = $1::int4::oid AND objid = $2::int4::oid AND objsubid = 2) AS held",
  take: 'SELECT pg_try_advisory_lock($1, $2) AS taken',
  lockValues: lockKeys(name),
  read: 'SELECT holder, config_hash, since, publishing_at, guard FROM ratefile_ha WHERE name = $1',
  claim:
    'INSERT INTO ratefile_ha (name, holder, config_hash, since, publishing_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, config_hash = EXCLUDED.config_hash, since = EXCLUDED.since, publishing_at = EXCLUDED.publishing_at',
  saveGuard: 'UPDATE ratefile_ha SET guard = $1 WHERE name = $2 AND holder = $3',
});
