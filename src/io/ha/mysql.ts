// The warm standby's lock in MariaDB or MySQL: GET_LOCK on one dedicated connection, which the server ends after
// `wait_timeout` seconds of silence, so a holder whose link stalls loses the lock within that time.
import mysql from 'mysql2';
import { connectionOptions } from '../reserves/sql-mysql.js';
import { LockLink, lockSession, withDeadline, type LockDriver, type LockQuery, type LockSql } from './session.js';

const table =
  'CREATE TABLE IF NOT EXISTS ratefile_ha (name VARCHAR(48) PRIMARY KEY, holder VARCHAR(64) NOT NULL, config_hash VARCHAR(64) NOT NULL, since BIGINT NOT NULL, publishing_at BIGINT NOT NULL, guard LONGTEXT)';

export const openMysqlLock: LockDriver = async (target, name, timing) => {
  const connection = mysql.createConnection({
    ...connectionOptions(target.url, Math.max(2_000, timing.idleTimeoutMs)),
    enableKeepAlive: true,
    keepAliveInitialDelay: timing.heartbeatMs,
  });
  const link = new LockLink(() => connection.destroy());
  connection.on('error', link.failed);
  const session = connection.promise();
  const query: LockQuery = async (sql, values = [], what = 'a lock query') => {
    link.check();
    const [rows] = await withDeadline(session.query(sql, values), timing.queryTimeoutMs, what, link.end);
    return rows as Record<string, unknown>[];
  };
  await link.open(async () => {
    await withDeadline(session.connect(), Math.max(2_000, timing.idleTimeoutMs), 'connecting', link.end);
    await query(
      `SET SESSION wait_timeout = ${Math.max(1, Math.ceil(timing.idleTimeoutMs / 1000))}`,
      [],
      'setting wait_timeout',
    );
    await query(table, [], 'creating the table ratefile_ha');
  });
  return lockSession(name, mysqlSql(name), query, link);
};

const mysqlSql = (name: string): LockSql => ({
  holds: 'SELECT IS_USED_LOCK(?) = CONNECTION_ID() AS held',
  take: 'SELECT GET_LOCK(?, 0) AS taken',
  // GET_LOCK names are server-wide (at most 64 characters): prefixed so no other application's lock is taken.
  lockValues: [`ratefile/${name}`],
  read: 'SELECT holder, config_hash, since, publishing_at, guard FROM ratefile_ha WHERE name = ?',
  claim:
    'INSERT INTO ratefile_ha (name, holder, config_hash, since, publishing_at) VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE holder = VALUES(holder), config_hash = VALUES(config_hash), since = VALUES(since), publishing_at = VALUES(publishing_at)',
  saveGuard: 'UPDATE ratefile_ha SET guard = ? WHERE name = ? AND holder = ?',
});
