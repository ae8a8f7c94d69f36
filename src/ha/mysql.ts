// The warm standby's lock in MariaDB or MySQL: GET_LOCK on one dedicated connection, which the server ends after
// `wait_timeout` seconds of silence, so a holder whose link stalls loses the lock within that time.
import mysql from 'mysql2';
import { connectionOptions } from '../reserves/sql-mysql.js';
import type { LockRecord } from './role.js';
import { LockProblem, withDeadline, type LockDriver } from './session.js';

const table =
  'CREATE TABLE IF NOT EXISTS ratefile_ha (name VARCHAR(48) PRIMARY KEY, holder VARCHAR(64) NOT NULL, config_hash VARCHAR(64) NOT NULL, since BIGINT NOT NULL, publishing_at BIGINT NOT NULL, guard LONGTEXT)';

export const openMysqlLock: LockDriver = async (target, name, timing) => {
  // GET_LOCK names are server-wide (at most 64 characters): prefixed so no other application's lock is taken.
  const lockName = `ratefile/${name}`;
  const connection = mysql.createConnection({
    ...connectionOptions(target.url, Math.max(2_000, timing.idleTimeoutMs)),
    enableKeepAlive: true,
    keepAliveInitialDelay: timing.heartbeatMs,
  });
  let failure: string | undefined;
  const end = () => connection.destroy();
  connection.on('error', (error: Error) => (failure ??= error.message));
  const session = connection.promise();
  const query = async (sql: string, values: unknown[] = [], what = 'a lock query') => {
    if (failure !== undefined) throw new LockProblem(`the lock connection failed: ${failure}`);
    const [rows] = await withDeadline(session.query(sql, values), timing.queryTimeoutMs, what, end);
    return rows as Record<string, unknown>[];
  };
  try {
    await withDeadline(session.connect(), Math.max(2_000, timing.idleTimeoutMs), 'connecting', end);
    await query(`SET SESSION wait_timeout = ${Math.max(1, Math.ceil(timing.idleTimeoutMs / 1000))}`);
    await query(table);
  } catch (error) {
    end();
    throw error;
  }
  const holds = async () =>
    Number((await query('SELECT IS_USED_LOCK(?) = CONNECTION_ID() AS held', [lockName], 'the lock check'))[0]?.held) ===
    1;
  return {
    holds,
    take: async () => {
      // GET_LOCK twice in one session stacks a second hold (MariaDB 10.0.2+): only when not held yet.
      if (await holds()) return true;
      return Number((await query('SELECT GET_LOCK(?, 0) AS taken', [lockName]))[0]?.taken) === 1;
    },
    read: async () => {
      const row = (
        await query('SELECT holder, config_hash, since, publishing_at, guard FROM ratefile_ha WHERE name = ?', [name])
      )[0];
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
      await query(
        'INSERT INTO ratefile_ha (name, holder, config_hash, since, publishing_at) VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE holder = VALUES(holder), config_hash = VALUES(config_hash), since = VALUES(since), publishing_at = VALUES(publishing_at)',
        [name, record.holder, record.configHash, record.since, record.publishingAt],
        'recording the publish',
      );
    },
    saveGuard: async (holder, guard) => {
      await query('UPDATE ratefile_ha SET guard = ? WHERE name = ? AND holder = ?', [guard, name, holder]);
    },
    ping: async () => {
      await query('SELECT 1', [], 'the keepalive query');
    },
    close: () => {
      failure ??= 'closed';
      end();
    },
  };
};
