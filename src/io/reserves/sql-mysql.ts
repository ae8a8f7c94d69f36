// MySQL and MariaDB for the `sql` reserve source (mysql2): one connection per read, a read-only session with a
// server-side statement limit (MariaDB's max_statement_time, else MySQL's max_execution_time), the query as a
// server-side prepared statement (`execute`: parameters bound, never interpolated), in a read-only transaction,
// rolled back and closed. DECIMAL and BIGINT arrive as text (never through a JS float); times in UTC.
import mysql from 'mysql2';
import { readOnce, SqlProblem, type SqlDriver } from './sql-driver.js';
import { decode } from './sql-target.js';

// mysql2's column type codes of binary floating-point columns.
const floats: Record<number, string> = { 4: 'FLOAT', 5: 'DOUBLE' };
const errors = { accessDenied: 1045, unknownVariable: 1193, mariadbTimeout: 1969, mysqlTimeout: 3024 };

function known(error: unknown): string | undefined {
  const errno = (error as { errno?: unknown }).errno;
  if (errno === errors.accessDenied) return 'cannot connect: authentication failed (wrong user name or password)';
  if (errno === errors.mariadbTimeout || errno === errors.mysqlTimeout)
    return 'timed out: the statement ran longer than its timeout (max_statement_time)';
  return undefined;
}

/** Connection options from the URL by hand: mysql2's own `uri` lets URL parameters override ours. */
export function connectionOptions(url: URL, timeoutMs: number): mysql.ConnectionOptions {
  for (const [key, value] of url.searchParams) {
    if (!(key === 'ssl' && value === 'true'))
      throw new SqlProblem(
        `cannot connect: URL parameter ${JSON.stringify(key.slice(0, 40))} is not supported (only ssl=true)`,
      );
  }
  return {
    host: url.hostname || 'localhost',
    port: Number(url.port || 3306),
    user: decode(url.username),
    password: decode(url.password),
    ...(url.pathname.length > 1 ? { database: decode(url.pathname.slice(1)) } : {}),
    ...(url.searchParams.get('ssl') === 'true' ? { ssl: { rejectUnauthorized: true } } : {}),
    // Later than the read's own deadline, which then names the phase.
    connectTimeout: timeoutMs + 1000,
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    dateStrings: false,
    timezone: 'Z',
    multipleStatements: false,
  };
}

export const readMysql: SqlDriver = async (read) => {
  const connection = mysql.createConnection(connectionOptions(read.url, read.timeoutMs));
  // A connection destroyed by the deadline emits 'error' with no one waiting: not a crash.
  connection.on('error', () => undefined);
  const session = connection.promise();
  return readOnce(
    read,
    () => connection.destroy(),
    known,
    async (enter) => {
      await session.connect();
      enter('running the query');
      await session.query('SET SESSION TRANSACTION READ ONLY');
      await session.query("SET SESSION time_zone = '+00:00'");
      const seconds = Math.max(0.001, read.timeoutMs / 1000).toFixed(3);
      try {
        await session.query(`SET SESSION max_statement_time = ${seconds}`);
      } catch (error) {
        if ((error as { errno?: unknown }).errno !== errors.unknownVariable) throw error;
        await session.query(`SET SESSION max_execution_time = ${Math.max(1, Math.round(read.timeoutMs))}`);
      }
      await session.query('START TRANSACTION READ ONLY');
      const [rows, fields] = await session.execute({ sql: read.query, rowsAsArray: true }, [...read.params]);
      enter('closing');
      await session.query('ROLLBACK');
      await session.end();
      if (!Array.isArray(rows) || !Array.isArray(fields))
        throw new SqlProblem('query failed: it returned no result set (expected a SELECT)');
      return {
        columns: fields.map((field) => ({
          name: field.name,
          ...(field.columnType !== undefined && floats[field.columnType] ? { float: floats[field.columnType]! } : {}),
        })),
        rows: rows as unknown as unknown[][],
      };
    },
  );
};
