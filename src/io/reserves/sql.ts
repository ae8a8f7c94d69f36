// The `sql` reserve source: a read-only query against PostgreSQL or MySQL/MariaDB (dialect from the URL's scheme),
// its URL from an environment variable, returning rows of `code`, `reserve` and optionally `min`, `max`, `enabled`
// and a time column (or, for `switchesFrom`, rows of a direction id as `code` with `enabled` and/or `labels`). The drivers (sql-postgres.ts, sql-mysql.ts) are loaded only when such a source is read.
import { z } from 'zod';
import { describeValue } from '../../base/config/fields.js';
import { RatefileError } from '../../base/errors.js';
import { commonOptions, defaultTimeoutMs, httpOptions } from '../../pure/sources/options.js';
import { shown } from '../../pure/sources/values.js';
import { EntryProblem } from '../../pure/reserves/entry.js';
import { documentTime } from './file.js';
import { defineReserveSource, type ReserveReading } from '../../model/reserve-source.js';
import { SqlProblem, type SqlDriver, type SqlRows } from './sql-driver.js';
import {
  holdsPassword,
  maskedUrl,
  parseSqlUrl,
  redactCredentials,
  sqlTarget,
  urlExample,
  type SqlDialect,
} from './sql-target.js';

const { priority: _priority, ...timing } = commonOptions;
const expected = (what: string) => (issue: { input?: unknown }) =>
  `expected ${what}, got ${describeValue(issue.input)}`;

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, { error: expected('an environment variable name like "RESERVES_DB_URL"') });
const urlExpected = `the database URL from an environment variable like { env: RESERVES_DB_URL }, or a URL without a password like ${urlExample.replace(/:password/g, '')}`;

const urlOption = z
  .union([z.strictObject({ env: envName }), z.string()], { error: expected(urlExpected) })
  .superRefine((value, context) => {
    if (typeof value !== 'string') return;
    const parsed = parseSqlUrl(value);
    // Neither message quotes a URL that may hold a password; the second shows it masked.
    if (typeof parsed === 'string')
      context.addIssue({ code: 'custom', message: `${parsed}, or { env: RESERVES_DB_URL }` });
    else if (holdsPassword(parsed.url)) {
      context.addIssue({
        code: 'custom',
        message: `expected the URL in an environment variable ({ env: RESERVES_DB_URL }): a password in the config file is readable by anyone who reads the file, got ${maskedUrl(parsed.url)}`,
      });
    }
  });

const column = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, { error: expected('a column name like "updated_at"') });
const param = z.union([z.string().max(1000), z.int(), z.boolean()], {
  error: expected('a text, an integer or true/false'),
});

/** The columns a query may return besides the optional time column (`labels`: for `switchesFrom`). */
const knownColumns = ['code', 'reserve', 'min', 'max', 'enabled', 'labels'];
const amountColumns = ['reserve', 'min', 'max'];

/**
 * A cell as entry.ts reads it: integers as decimal text; bytes (MySQL BIT(1), VARBINARY) as 0/1 or text; text,
 * booleans, dates and null as they are.
 */
function cell(value: unknown): unknown {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'bigint') return String(value);
  if (Buffer.isBuffer(value)) return value.length === 1 && value[0]! <= 1 ? String(value[0]) : value.toString('utf8');
  return value;
}

function timeOf(value: unknown, now: Date, where: string): Date {
  if (value === null || value === undefined) throw new SqlProblem(`${where} is null`);
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new SqlProblem(`${where} is not a valid time`);
    return value < now ? value : now;
  }
  return documentTime(value, now, where);
}

/**
 * The rows as a reading: entries by code (two rows for one code: that code is unusable), dated by the oldest time
 * in the time column (every row must be that fresh) or else `now`. Wrong columns fail the whole reading.
 */
export function readingOf(result: SqlRows, timeColumn: string | undefined, now: Date): ReserveReading {
  const names = result.columns.map((c) => c.name.toLowerCase());
  const time = timeColumn?.toLowerCase();
  const allowed = [...knownColumns, ...(time ? [time] : [])];
  names.forEach((name, index) => {
    if (names.indexOf(name) !== index) throw new SqlProblem(`the query returns column ${JSON.stringify(name)} twice`);
    if (!allowed.includes(name))
      throw new SqlProblem(`column ${shown(name)} is not one of ${allowed.join(', ')}: name the columns with AS`);
    const float = result.columns[index]?.float;
    if (float && amountColumns.includes(name)) {
      throw new SqlProblem(
        `column ${name} is ${float}, a binary floating-point type that cannot hold exact amounts: CAST it to NUMERIC or DECIMAL in the query`,
      );
    }
  });
  // A query for `switchesFrom` (code: a direction id) returns enabled or labels instead of a reserve.
  const switches = names.includes('enabled') || names.includes('labels');
  for (const required of ['code', ...(switches ? [] : ['reserve']), ...(time ? [time] : [])]) {
    if (!names.includes(required))
      throw new SqlProblem(`the query returns no ${required} column (it returns ${names.join(', ') || 'no columns'})`);
  }
  const entries = new Map<string, unknown>();
  const rowsPerCode = new Map<string, number>();
  let dated = now;
  result.rows.forEach((row, index) => {
    const cells: Record<string, unknown> = Object.fromEntries(names.map((name, at) => [name, cell(row[at])]));
    const { code: rawCode, ...fields } = cells;
    if (typeof rawCode !== 'string' || rawCode.trim() === '')
      throw new SqlProblem(`row ${index + 1}: code ${shown(rawCode)} is not a currency code`);
    // CHAR(n) columns come padded with spaces.
    const code = rawCode.trim();
    if (time) {
      const at = timeOf(fields[time], now, `row ${index + 1} (${code}): ${time}`);
      if (at < dated) dated = at;
      delete fields[time];
    }
    const rows = (rowsPerCode.get(code) ?? 0) + 1;
    rowsPerCode.set(code, rows);
    entries.set(code, rows === 1 ? fields : new EntryProblem(`${rows} rows for one code (expected one)`));
  });
  return { entries, time: dated };
}

/** Placeholders of the other dialect in a failed query with parameters: the likeliest mistake, named. */
function placeholderHint(dialect: SqlDialect, query: string, params: readonly unknown[] | undefined): string {
  if (!params?.length) return '';
  if (dialect === 'postgres' && /\?/.test(query) && !/\$\d/.test(query))
    return ' (PostgreSQL placeholders are $1, $2, …, not ?)';
  if (dialect === 'mysql' && /\$\d/.test(query) && !/\?/.test(query)) return ' (MySQL placeholders are ?, not $1)';
  return '';
}

const drivers: Record<SqlDialect, () => Promise<SqlDriver>> = {
  postgres: async () => (await import('./sql-postgres.js')).readPostgres,
  mysql: async () => (await import('./sql-mysql.js')).readMysql,
};

export const sqlReserves = defineReserveSource({
  type: 'sql',
  options: z.strictObject({
    type: z.literal('sql'),
    url: urlOption.describe(
      'Database URL: { env: NAME } (postgres://, postgresql://, mysql:// or mariadb://; the scheme picks the driver); a literal URL must not hold a password.',
    ),
    query: z
      .string({ error: expected('an SQL query returning code, reserve (and optionally min, max, enabled)') })
      .trim()
      .min(1, { error: 'expected an SQL query returning code, reserve (and optionally min, max, enabled)' })
      .max(20_000, { error: 'expected a query of at most 20000 characters' })
      .describe(
        'One SELECT returning rows of code, reserve and optionally min, max, enabled (for `switchesFrom`: a direction id as code, enabled and/or labels); placeholders $1, $2 (PostgreSQL) or ? (MySQL) take `params`.',
      ),
    params: z
      .array(param)
      .max(100, { error: 'expected at most 100 parameters' })
      .optional()
      .describe("Values bound to the query's placeholders, in order (never pasted into the SQL)."),
    time: column
      .optional()
      .describe(
        'Column holding when each row was valid; the reading is as old as its oldest row (default: when it was read).',
      ),
    ...timing,
    timeout: httpOptions.timeout.describe(
      'The whole read: connect, query and close (default 10s); also the statement timeout on the server.',
    ),
  }),
  async fetchReserves(options, context) {
    const fromEnv = typeof options.url === 'string' ? undefined : options.url.env;
    const text = fromEnv === undefined ? (options.url as string) : context.env[fromEnv];
    if (fromEnv !== undefined && !text)
      throw new RatefileError(
        'E_SOURCE',
        `${context.name}: environment variable ${fromEnv} (the database URL) is not set`,
      );
    const target = sqlTarget(
      text!,
      `${context.name}: ${fromEnv === undefined ? 'url' : `environment variable ${fromEnv}`}`,
    );
    const fail = (text: string) => new RatefileError('E_SOURCE', `${context.name}: ${target.where}: ${text}`);
    let rows: SqlRows;
    try {
      const read = await drivers[target.dialect]();
      // A pasted query often ends in `;`: one statement all the same.
      const query = options.query.replace(/;\s*$/, '');
      rows = await read({
        url: target.url,
        query,
        params: options.params ?? [],
        timeoutMs: options.timeout ?? defaultTimeoutMs,
        signal: context.signal,
      });
    } catch (error) {
      const text = redactCredentials(
        error instanceof SqlProblem ? error.message : `failed: ${String(error)}`,
        target.secrets,
      );
      throw fail(
        text.startsWith('query failed:') ? text + placeholderHint(target.dialect, options.query, options.params) : text,
      );
    }
    try {
      return readingOf(rows, options.time, context.now());
    } catch (error) {
      if (error instanceof SqlProblem || error instanceof RatefileError) throw fail(error.message);
      throw error;
    }
  },
});
