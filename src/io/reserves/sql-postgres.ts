// PostgreSQL for the `sql` reserve source (node-postgres): one connection per read, the query alone in a
// `BEGIN READ ONLY` transaction with `SET LOCAL statement_timeout`, sent by the extended protocol (so it is one
// statement with bound parameters, never text pasted into SQL), rolled back and closed. Every value arrives as the
// server's text (numeric, bigint: never through a JS float) except booleans and timestamps.
import { Socket } from 'node:net';
import pg from 'pg';
import { readOnce, type SqlDriver } from './sql-driver.js';

const oids = { bool: 16, float4: 700, float8: 701, timestamp: 1114, timestamptz: 1184 };
const floats: Record<number, string> = { [oids.float4]: 'real', [oids.float8]: 'double precision' };

/** Text for every type, but booleans, and timestamps as instants (one without a zone is taken as UTC). */
const types = {
  getTypeParser: ((oid: number) => {
    if (oid === oids.bool) return (text: string) => text === 't';
    if (oid === oids.timestamptz) return pg.types.getTypeParser(oids.timestamptz);
    if (oid === oids.timestamp) return (text: string) => new Date(`${text.replace(' ', 'T')}Z`);
    return (text: string) => text;
  }) as typeof pg.types.getTypeParser,
};

/** A server error's SQLSTATE in words where the server's text would need redaction or says too little. */
function known(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  if (code === '28P01') return 'cannot connect: authentication failed (wrong user name or password)';
  if (code === '57014') return 'timed out: the statement ran longer than its timeout (statement_timeout)';
  return undefined;
}

export const readPostgres: SqlDriver = async (read) => {
  const socket = new Socket();
  // `stream`: our own socket, so a deadline can destroy it whatever state the client is in.
  const client = new pg.Client({
    connectionString: read.url.href,
    stream: () => socket,
    types,
    application_name: 'ratefile',
  });
  // A socket destroyed by the deadline makes the client emit 'error' with no one waiting: not a crash.
  client.on('error', () => undefined);
  return readOnce(
    read,
    () => socket.destroy(),
    known,
    async (enter) => {
      await client.connect();
      enter('running the query');
      await client.query('BEGIN READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.round(read.timeoutMs))}`);
      const result = await client.query({
        text: read.query,
        values: [...read.params],
        rowMode: 'array',
        queryMode: 'extended',
      } as pg.QueryArrayConfig);
      enter('closing');
      await client.query('ROLLBACK');
      await client.end();
      return {
        columns: result.fields.map((field) => ({
          name: field.name,
          ...(floats[field.dataTypeID] ? { float: floats[field.dataTypeID]! } : {}),
        })),
        rows: result.rows as unknown[][],
      };
    },
  );
};
