// The archive in PostgreSQL (`archive.store: postgres`), for an operator who runs it already for `ha:`: one row per
// record in `ratefile_archive` (its header as text, its blobs as one bytea), appended in a transaction under an
// advisory lock, so whichever instance leads continues the one chain. A row is whole or absent: no torn ends.
import pg from 'pg';
import { createHash } from 'node:crypto';
import { RatefileError } from '../../base/errors.js';
import type { RecordHeader } from '../../pure/archive/record.js';
import { sqlTarget } from '../reserves/sql-target.js';
import { compareSegments, type ArchiveStore, type SegmentInfo, type StoredRecord } from './store.js';

const TABLE = `CREATE TABLE IF NOT EXISTS ratefile_archive (
  archive text NOT NULL, seq bigint NOT NULL, segment text NOT NULL, published timestamptz NOT NULL,
  header text NOT NULL, body bytea NOT NULL, PRIMARY KEY (archive, seq))`;
const INDEX = 'CREATE INDEX IF NOT EXISTS ratefile_archive_segment ON ratefile_archive (archive, segment, seq)';
// Two instances creating the table at once: one of them gets a duplicate error, and the table is there.
const RACED = new Set(['23505', '42P07']);

/** The advisory lock of appends to one archive (a transaction's: it goes with the commit). */
const lockKey = (name: string) => createHash('sha256').update(`ratefile-archive:${name}`).digest().readInt32BE(0);

type Row = { header: string; seq: string; body_bytes: number; segment: string };
const COLUMNS = 'seq, segment, header, octet_length(body) AS body_bytes';

const recordOf = (row: Row): StoredRecord => {
  const header = JSON.parse(row.header) as RecordHeader;
  const headerBytes = Buffer.byteLength(row.header) + 1;
  return { header, segment: row.segment, offset: Number(row.seq), size: headerBytes + row.body_bytes + 1, headerBytes };
};

export function postgresStore(
  envName: string,
  env: Readonly<Record<string, string | undefined>>,
  name = 'ratefile',
): ArchiveStore {
  const text = env[envName];
  if (!text)
    throw new RatefileError('E_CONFIG', `archive: environment variable ${envName} (the PostgreSQL URL) is not set`);
  const target = sqlTarget(text, `archive: environment variable ${envName}`);
  if (target.dialect !== 'postgres')
    throw new RatefileError(
      'E_CONFIG',
      `archive: environment variable ${envName}: expected a postgres:// URL (store: postgres)`,
    );
  return new PostgresStore(target.url.href, `ratefile_archive on ${target.where}`, name);
}

class PostgresStore implements ArchiveStore {
  readonly kind = 'postgres';
  private readonly pool: pg.Pool;
  private ready: Promise<void> | undefined;

  constructor(
    url: string,
    readonly where: string,
    private readonly name: string,
  ) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: 2,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 5_000,
      statement_timeout: 30_000,
      application_name: 'ratefile-archive',
    });
    // A connection the server drops while idle is the pool's to replace, never an uncaught error.
    this.pool.on('error', () => undefined);
  }

  private setUp(): Promise<void> {
    this.ready ??= (async () => {
      for (const statement of [TABLE, INDEX])
        await this.pool.query(statement).catch((error: { code?: string }) => {
          if (!RACED.has(error.code ?? '')) throw error;
        });
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private async query<T extends Record<string, unknown>>(sql: string, values: unknown[] = []): Promise<T[]> {
    await this.setUp();
    return (await this.pool.query(sql, values)).rows as T[];
  }

  async segments(): Promise<SegmentInfo[]> {
    const rows = await this.query<{ segment: string; bytes: string; first: string }>(
      `SELECT segment, sum(octet_length(header) + octet_length(body) + 2) AS bytes,
         (array_agg(header ORDER BY seq))[1] AS first
       FROM ratefile_archive WHERE archive = $1 GROUP BY segment`,
      [this.name],
    );
    return rows
      .map(
        (row): SegmentInfo => ({
          name: row.segment,
          bytes: Number(row.bytes),
          first: JSON.parse(row.first) as RecordHeader,
        }),
      )
      .sort((a, b) => compareSegments(a.name, b.name));
  }

  async records(segment: string, limit?: number) {
    const cap = limit === undefined || limit === Infinity ? '' : ` LIMIT ${Math.floor(limit)}`;
    const rows = await this.query<Row>(
      `SELECT ${COLUMNS} FROM ratefile_archive WHERE archive = $1 AND segment = $2 ORDER BY seq${cap}`,
      [this.name, segment],
    );
    return { records: rows.map(recordOf) };
  }

  async blobs(record: StoredRecord): Promise<Buffer[]> {
    const [row] = await this.query<{ body: Buffer }>(
      'SELECT body FROM ratefile_archive WHERE archive = $1 AND seq = $2',
      [this.name, record.header.seq],
    );
    if (!row) throw new Error(`record ${record.header.seq} is not in the table`);
    let offset = 0;
    return record.header.blobs.map(([size]) => row.body.subarray(offset, (offset += size)));
  }

  async append(make: Parameters<ArchiveStore['append']>[0]): Promise<StoredRecord | undefined> {
    await this.setUp();
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [lockKey(this.name)]);
      const { rows } = await client.query<Row>(
        `SELECT ${COLUMNS} FROM ratefile_archive WHERE archive = $1 ORDER BY seq DESC LIMIT 1`,
        [this.name],
      );
      const made = await make(rows[0] ? recordOf(rows[0]) : undefined);
      if (!made) {
        await client.query('ROLLBACK');
        return undefined;
      }
      const headerText = made.bytes.subarray(0, made.bytes.indexOf(10)).toString('utf8');
      const body = made.bytes.subarray(made.bytes.indexOf(10) + 1, made.bytes.length - 1);
      await client.query(
        'INSERT INTO ratefile_archive (archive, seq, segment, published, header, body) VALUES ($1, $2, $3, $4, $5, $6)',
        [this.name, made.header.seq, made.header.segment, made.header.published, headerText, body],
      );
      await client.query('COMMIT');
      return recordOf({
        header: headerText,
        seq: String(made.header.seq),
        body_bytes: body.length,
        segment: made.header.segment,
      });
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async repair(): Promise<string> {
    throw new Error('a PostgreSQL archive has no torn ends');
  }

  async drop(segments: readonly string[]): Promise<void> {
    await this.query('DELETE FROM ratefile_archive WHERE archive = $1 AND segment = ANY($2)', [
      this.name,
      [...segments],
    ]);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
