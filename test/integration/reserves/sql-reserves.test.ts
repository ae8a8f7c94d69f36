// The `sql` reserve source without a database (the real servers are `npm run test:sql`, test/sql/): its config as
// `ratefile validate` checks it, rows turned into entries, credentials cut out of messages, and a server that
// accepts and never answers, which must cost no more than the timeout and leave no socket open.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readingOf, sqlReserves } from '../../../src/io/reserves/sql.js';
import { redactCredentials, sqlTarget } from '../../../src/io/reserves/sql-target.js';
import { projectsPerTest } from '../../support/project.js';
import { withReserves } from '../../support/reserves.js';
import { runRatefile } from '../../support/run-cli.js';

const project = projectsPerTest();
const query = '"SELECT code, amount AS reserve FROM reserves"';

describe('an sql reserve source in the config', () => {
  it('validates without connecting or reading the variable', async () => {
    const made = await project({
      'ratefile.config.yaml': withReserves(
        `{ type: sql, url: { env: RESERVES_DB_URL }, query: ${query}, params: [main, 3, true], time: updated_at, timeout: 2s, refresh: 10s, maxAge: 1m }`,
      ),
    });
    const result = await runRatefile(['validate'], made.dir);
    expect(result.code, result.stderr).toBe(0);
  });

  it('refuses a password written in the config, naming the path and never showing the password', async () => {
    const made = await project({
      'ratefile.config.yaml': withReserves(
        `{ type: sql, url: "postgres://reader:hunter2-secret@db.internal:5432/backoffice", query: ${query} }`,
      ),
    });
    const result = await runRatefile(['validate'], made.dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'reserves.office.url: expected the URL in an environment variable ({ env: RESERVES_DB_URL }): a password in the config file is readable by anyone who reads the file, got postgres://reader:***@db.internal:5432/backoffice',
    );
    expect(result.stderr).not.toContain('hunter2-secret');
  });

  it.each([
    [
      'postgres://reader@db.internal:5432/backoffice?password=hunter2-secret',
      'postgres://reader@db.internal:5432/backoffice?password=***',
    ],
    [
      'mysql://reader@db.internal/backoffice?ssl=true&PASSWORD=hunter2-secret',
      'mysql://reader@db.internal/backoffice?ssl=true&PASSWORD=***',
    ],
  ])(
    'refuses a password in the query of a literal URL too (%s), naming the path and never showing it',
    async (url, masked) => {
      const made = await project({
        'ratefile.config.yaml': withReserves(`{ type: sql, url: "${url}", query: ${query} }`),
      });
      const result = await runRatefile(['validate'], made.dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `reserves.office.url: expected the URL in an environment variable ({ env: RESERVES_DB_URL }): a password in the config file is readable by anyone who reads the file, got ${masked}`,
      );
      expect(result.stderr).not.toContain('hunter2');
    },
  );

  it.each([
    [
      'an unknown scheme',
      'url: "redis://db.internal/0"',
      'reserves.office.url: expected a URL starting postgres://, postgresql://, mysql:// or mariadb://, got scheme "redis:", or { env: RESERVES_DB_URL }',
    ],
    [
      'a bad variable name',
      'url: { env: "RESERVES DB" }',
      'reserves.office.url.env: expected an environment variable name like "RESERVES_DB_URL", got "RESERVES DB"',
    ],
    [
      'a number for the URL',
      'url: 5432',
      'reserves.office.url: expected the database URL from an environment variable like { env: RESERVES_DB_URL }',
    ],
    [
      'an empty query',
      'url: { env: RESERVES_DB_URL }, query: "  "',
      'reserves.office.query: expected an SQL query returning code, reserve',
    ],
    [
      'a parameter that is a list',
      `url: { env: RESERVES_DB_URL }, query: ${query}, params: [[1]]`,
      'reserves.office.params[0]: expected a text, an integer or true/false, got a list',
    ],
    [
      'a bad time column',
      `url: { env: RESERVES_DB_URL }, query: ${query}, time: "updated at"`,
      'reserves.office.time: expected a column name like "updated_at", got "updated at"',
    ],
  ])('refuses %s', async (_name, options, message) => {
    const made = await project({
      'ratefile.config.yaml': withReserves(
        `{ type: sql, ${options.includes('query:') ? options : `${options}, query: ${query}`} }`,
      ),
    });
    const result = await runRatefile(['validate'], made.dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('accepts a literal URL without a password (peer auth or .pgpass)', async () => {
    const made = await project({
      'ratefile.config.yaml': withReserves(
        `{ type: sql, url: "postgresql://reader@db.internal/backoffice", query: ${query} }`,
      ),
    });
    expect((await runRatefile(['validate'], made.dir)).code).toBe(0);
  });
});

describe('readingOf', () => {
  const now = new Date('2026-11-21T12:00:30Z');
  const columns = (...names: string[]) => names.map((name) => ({ name }));

  it('keys entries by the trimmed code, integers as text, null limits left out later, and dates by the oldest row', () => {
    const reading = readingOf(
      {
        columns: columns('CODE', 'Reserve', 'min', 'max', 'enabled', 'updated_at'),
        rows: [
          ['SBERRUB   ', '1234567.899', null, '1000000', true, new Date('2026-11-21T12:00:20Z')],
          ['BTC', 2, '0.01', null, 1, '2026-11-21T12:00:10Z'],
        ],
      },
      'updated_at',
      now,
    );
    expect([...reading.entries]).toEqual([
      ['SBERRUB', { reserve: '1234567.899', min: null, max: '1000000', enabled: true }],
      ['BTC', { reserve: '2', min: '0.01', max: null, enabled: '1' }],
    ]);
    expect(reading.time.toISOString()).toBe('2026-11-21T12:00:10.000Z');
  });

  it('reads bytes as MySQL sends BIT(1) and VARBINARY: a 0/1 flag, or text', () => {
    const reading = readingOf(
      { columns: columns('code', 'reserve', 'enabled'), rows: [[Buffer.from('BTC'), '1', Buffer.from([0])]] },
      undefined,
      now,
    );
    expect(reading.entries.get('BTC')).toEqual({ reserve: '1', enabled: '0' });
  });

  it('dates rows in the future no later than now, and a reading without a time column by now', () => {
    expect(
      readingOf(
        { columns: columns('code', 'reserve', 't'), rows: [['BTC', '1', new Date('2027-01-01T00:00:00Z')]] },
        't',
        now,
      ).time,
    ).toEqual(now);
    expect(readingOf({ columns: columns('code', 'reserve'), rows: [] }, undefined, now)).toEqual({
      entries: new Map(),
      time: now,
    });
  });

  it('reads the rows of a switchesFrom query: a direction id as code, enabled and labels, no reserve', () => {
    const read = readingOf(
      { columns: columns('code', 'enabled', 'labels'), rows: [['BTC>SBERRUB', false, 'manual,verifying']] },
      undefined,
      now,
    );
    expect(read.entries).toEqual(new Map([['BTC>SBERRUB', { enabled: false, labels: 'manual,verifying' }]]));
  });

  it.each([
    [
      'no reserve column',
      { columns: columns('code', 'amount'), rows: [] },
      undefined,
      'column "amount" is not one of code, reserve, min, max, enabled, labels: name the columns with AS',
    ],
    [
      'a missing reserve column',
      { columns: columns('code'), rows: [] },
      undefined,
      'the query returns no reserve column (it returns code)',
    ],
    [
      'a column twice',
      { columns: columns('code', 'reserve', 'RESERVE'), rows: [] },
      undefined,
      'the query returns column "reserve" twice',
    ],
    [
      'a float amount',
      { columns: [{ name: 'code' }, { name: 'reserve', float: 'double precision' }], rows: [] },
      undefined,
      'column reserve is double precision, a binary floating-point type',
    ],
    [
      'a null code',
      { columns: columns('code', 'reserve'), rows: [[null, '1']] },
      undefined,
      'row 1: code null is not a currency code',
    ],
    [
      'a missing time column',
      { columns: columns('code', 'reserve'), rows: [] },
      'updated_at',
      'the query returns no updated_at column',
    ],
    [
      'a null time',
      { columns: columns('code', 'reserve', 'updated_at'), rows: [['BTC', '1', null]] },
      'updated_at',
      'row 1 (BTC): updated_at is null',
    ],
    [
      'a time that is not one',
      { columns: columns('code', 'reserve', 'updated_at'), rows: [['BTC', '1', 'yesterday']] },
      'updated_at',
      'row 1 (BTC): updated_at: time "yesterday" is not an ISO 8601 time',
    ],
  ])('fails the whole reading for %s', (_name, rows, time, message) => {
    expect(() => readingOf(rows, time, now)).toThrow(message);
  });
});

describe('credentials', () => {
  it('are cut out of any text: the password as decoded and as written, the user name only as a word', () => {
    const { secrets, where } = sqlTarget('mysql://pg:p%40ss%2Fw0rd@db.internal/backoffice', 'office: url');
    expect(where).toBe('mysql db.internal:3306/backoffice');
    expect(
      redactCredentials(`Access denied for user 'pg'@'10.0.0.1' (p@ss/w0rd, p%40ss%2Fw0rd) in pg_sleep`, secrets),
    ).toBe("Access denied for user '***'@'10.0.0.1' (***, ***) in pg_sleep");
  });

  it.each([
    ['postgres://h/db', 'postgres h:5432/db'],
    ['postgresql://h:6432/db', 'postgres h:6432/db'],
    ['mysql://h/db', 'mysql h:3306/db'],
    ['mariadb://h:3307', 'mysql h:3307'],
  ])('%s picks its driver by scheme: %s', (url, where) => {
    expect(sqlTarget(url, 'office: url').where).toBe(where);
  });

  it('a URL in the variable that is not one is refused without quoting it', () => {
    expect(() => sqlTarget('postgres//reader:s3cr3t@db', 'office: environment variable RESERVES_DB_URL')).toThrow(
      /^office: environment variable RESERVES_DB_URL: expected a URL like postgres:\/\/user:password@host:5432\/database or mysql:\/\/user:password@host:3306\/database$/,
    );
  });
});

describe('a database server that accepts and never answers', () => {
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server?.close(resolve));
  });

  it.each(['postgres', 'mysql'])(
    '%s: the read fails after its timeout, naming the phase, and closes its socket',
    async (scheme) => {
      server = createServer((socket) => {
        sockets.add(socket);
        // Read what the client sends (postgres speaks first), or its close would wait behind unread data.
        socket.resume();
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as { port: number }).port;
      const options = sqlReserves.options.parse({
        type: 'sql',
        url: { env: 'DB' },
        query: 'SELECT 1',
        timeout: '300ms',
      });
      const context = {
        name: 'office',
        configDir: '.',
        fetch: globalThis.fetch,
        userAgent: 'ratefile/test',
        signal: new AbortController().signal,
        now: () => new Date(),
        env: { DB: `${scheme}://u:pw-0451@127.0.0.1:${port}/db` },
      };
      await expect(sqlReserves.fetchReserves(options, context)).rejects.toThrow(
        `office: ${scheme} 127.0.0.1:${port}/db: timed out after 300 ms (while connecting)`,
      );
      // The client closed its end: the server sees the connection go.
      await expect.poll(() => sockets.size, { timeout: 2_000 }).toBe(0);
    },
  );
});
