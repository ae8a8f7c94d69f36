// The suite both databases run (like test/integration/sources/contract.ts for quote sources): a table of back-office reserves
// read by a real `sql` reserve source through `ratefile build`: values, limits and enabled published exactly as the
// same entries from a `file` source; every fault withholds only BTC>SBERRUB with its reason; the password and the
// user name appear in no output, status or state file; the real binary exits within the timeout on a slow query.
import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, binPath, childEnv } from '../support/process.js';
import { projectsPerTest, type Project } from '../support/project.js';
import { withReserves, type Held } from '../support/reserves.js';
import { runRatefile, type Outcome } from '../support/run-cli.js';
import { freePort, type DatabaseServer } from './servers.js';

/** The reader's credentials: a password with characters a URL must escape, a user name found nowhere else. */
export const reader = { user: 'office_reader', password: 'pw-Secr3t/4d1c@x' };
const encodedPassword = encodeURIComponent(reader.password);

export interface Dialect {
  name: string;
  scheme: string;
  start(): Promise<DatabaseServer>;
  /** Statements creating the reader, the `backoffice` database and its `reserves` table with `rows`. */
  setup(rows: string[]): string[];
  /** `?` or `$1`: the placeholder of the first parameter. */
  placeholder: string;
  /** A FROM clause that takes `seconds` to produce its rows. */
  slowFrom(seconds: number): string;
}

// desk, code, amount, amount_text, amount_float, min_order, max_order, active, updated_at
export const rows = [
  "('main', 'SBERRUB', 1234567.899, 'lots', 1234567.899, 5000.001, 1000000.129, TRUE, '2026-11-21 12:00:20')",
  "('main', 'BTC', 2, '2', 2, NULL, NULL, NULL, '2026-11-21 12:00:25')",
  "('off', 'SBERRUB', 100000, '100000', 100000, NULL, NULL, FALSE, '2026-11-21 12:00:20')",
  "('nullish', 'SBERRUB', NULL, NULL, NULL, NULL, NULL, TRUE, '2026-11-21 12:00:20')",
  "('negative', 'SBERRUB', -5, '-5', -5, NULL, NULL, TRUE, '2026-11-21 12:00:20')",
  "('missing', 'BTC', 2, '2', 2, NULL, NULL, TRUE, '2026-11-21 12:00:20')",
  "('twice', 'SBERRUB', 100, '100', 100, NULL, NULL, TRUE, '2026-11-21 12:00:20')",
  "('twice', 'SBERRUB', 200, '200', 200, NULL, NULL, TRUE, '2026-11-21 12:00:20')",
  "('stale', 'SBERRUB', 100, '100', 100, NULL, NULL, TRUE, '2026-11-21 11:00:00')",
];

const columns = 'code, amount AS reserve, min_order AS min, max_order AS max, active AS enabled';

export function testSqlSource(dialect: Dialect): void {
  const project = projectsPerTest();
  let server: DatabaseServer;
  let url: string;

  beforeAll(async () => {
    server = await dialect.start();
    await server.admin(dialect.setup(rows));
    url = `${dialect.scheme}://${reader.user}:${encodedPassword}@127.0.0.1:${server.port}/backoffice`;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  const q = (query: string) => JSON.stringify(query.replace('$1', dialect.placeholder));
  const source = (query: string, extra = '', params = '[main]') =>
    `{ type: sql, url: { env: RESERVES_DB_URL }, query: ${q(query)}, params: ${params}${extra.includes('timeout:') ? '' : ', timeout: 3s'}${extra} }`;
  // Ending in `;`, as pasted from a console.
  const mainQuery = `SELECT ${columns} FROM reserves WHERE desk = $1;`;

  /** Everything an operator reads about a build: its output, `status --json`, `explain`, the state folder's files. */
  const readable = async (made: Project, outcome: Outcome, databaseUrl: string) => {
    const status = await runRatefile(['status', '--json'], made.dir);
    const explain = await runRatefile(['explain', 'BTC', 'SBERRUB'], made.dir, {
      env: { RESERVES_DB_URL: databaseUrl },
    });
    const state = await Promise.all(
      (await readdir(join(made.dir, '.ratefile')))
        .filter((name) => name.endsWith('.json'))
        .map((name) => readFile(join(made.dir, '.ratefile', name), 'utf8')),
    );
    return [
      outcome.stdout,
      outcome.stderr,
      status.stdout,
      status.stderr,
      explain.stdout,
      explain.stderr,
      ...state,
    ].join('\n');
  };

  const expectNoCredentials = (text: string) => {
    for (const secret of [reader.password, encodedPassword, reader.user]) expect(text).not.toContain(secret);
  };

  /** `ratefile build` (in-process) with `reserveSource` as the office source, reading RESERVES_DB_URL = `databaseUrl`. */
  const build = async (reserveSource: string, databaseUrl = url) => {
    const made = await project({ 'ratefile.config.yaml': withReserves(reserveSource) });
    const outcome = await runRatefile(['build'], made.dir, { env: { RESERVES_DB_URL: databaseUrl } });
    const status = JSON.parse(await readFile(join(made.dir, '.ratefile', 'status.json'), 'utf8')) as {
      heldBack: Held[];
    };
    // The files are written either way; a direction held back for a fault makes the build's exit code 1.
    expect(outcome.code, outcome.stderr).toBe(status.heldBack.some((held) => held.kind !== 'paused') ? 1 : 0);
    const xml = await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8');
    const seen = await readable(made, outcome, databaseUrl);
    expectNoCredentials(seen);
    return { made, outcome, held: status.heldBack, xml, seen };
  };

  it('publishes the reserve, limits and enabled read from the table exactly as the same entries from a file source', async () => {
    const sql = await build(source(mainQuery));
    expect(sql.outcome.code, sql.outcome.stderr).toBe(0);
    expect(sql.held).toEqual([]);
    expect(sql.xml).toMatch(/<from>BTC<\/from>\s*<to>SBERRUB<\/to>[\s\S]*?<amount>1234567\.89<\/amount>/);
    const entries = {
      SBERRUB: { reserve: '1234567.899', min: '5000.001', max: '1000000.129', enabled: true },
      BTC: '2',
    };
    const file = await project({
      'ratefile.config.yaml': withReserves('{ type: file, path: reserves.json }'),
      'reserves.json': JSON.stringify(entries),
    });
    expect((await runRatefile(['build'], file.dir)).code).toBe(0);
    expect(sql.xml).toBe(await readFile(join(file.dir, 'public', 'parserfile.xml'), 'utf8'));
    // The source's limits replaced the configured ones (0.001 BTC .. 500000 RUB).
    const configured = await project();
    expect((await runRatefile(['build'], configured.dir)).code).toBe(0);
    expect(sql.xml).not.toBe(await readFile(join(configured.dir, 'public', 'parserfile.xml'), 'utf8'));
  });

  it('enabled false pauses the directions into that currency (kind paused)', async () => {
    const { outcome, held } = await build(source(mainQuery, '', '[off]'));
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(held).toEqual([
      { direction: 'BTC>SBERRUB', kind: 'paused', reason: 'switched off by office (SBERRUB enabled: false)' },
    ]);
  });

  it('dates the reading by the oldest time in the time column', async () => {
    const fresh = await build(
      source(`SELECT ${columns}, updated_at FROM reserves WHERE desk = $1`, ', time: updated_at, maxAge: 1m'),
    );
    expect(fresh.held).toEqual([]);
  });

  const faults: [string, () => Promise<{ query: string; extra?: string; params?: string; url?: string }>, RegExp][] = [
    [
      'connection refused',
      async () => ({ query: mainQuery, url: url.replace(`:${server.port}/`, `:${await freePort()}/`) }),
      /office: (postgres|mysql) 127\.0\.0\.1:\d+\/backoffice: cannot connect: connection refused$/,
    ],
    [
      'a wrong password',
      async () => ({ query: mainQuery, url: url.replace(encodedPassword, 'not-the-password') }),
      /: cannot connect: authentication failed \(wrong user name or password\)$/,
    ],
    [
      'a query error',
      async () => ({ query: 'SELECT code, amount_typo AS reserve FROM reserves WHERE desk = $1' }),
      /: query failed: .*amount_typo/,
    ],
    [
      'a NULL reserve',
      async () => ({ query: mainQuery, params: '[nullish]' }),
      /^reserve of SBERRUB from office: SBERRUB: reserve is null$/,
    ],
    [
      'a negative reserve',
      async () => ({ query: mainQuery, params: '[negative]' }),
      /^reserve of SBERRUB from office: SBERRUB: reserve -5(\.0+)? is negative$/,
    ],
    [
      'a text reserve',
      async () => ({ query: `SELECT code, amount_text AS reserve FROM reserves WHERE desk = $1` }),
      /^reserve of SBERRUB from office: SBERRUB: reserve "lots" is not a number$/,
    ],
    [
      'a missing code',
      async () => ({ query: mainQuery, params: '[missing]' }),
      /^reserve of SBERRUB from office: no entry for SBERRUB$/,
    ],
    [
      'two rows for one code',
      async () => ({ query: mainQuery, params: '[twice]' }),
      /^reserve of SBERRUB from office: SBERRUB: 2 rows for one code \(expected one\)$/,
    ],
    [
      'a floating-point column',
      async () => ({ query: `SELECT code, amount_float AS reserve FROM reserves WHERE desk = $1` }),
      /: column reserve is (double precision|DOUBLE), a binary floating-point type .*CAST it to NUMERIC or DECIMAL/,
    ],
    [
      'rows older than maxAge',
      async () => ({
        query: `SELECT ${columns}, updated_at FROM reserves WHERE desk = $1`,
        params: '[stale]',
        extra: ', time: updated_at, maxAge: 1m',
      }),
      /reserves dated 2026-11-21T11:00:00Z are older than its maxAge \(60 s\)$/,
    ],
    [
      'a query slower than its timeout',
      async () => ({
        query: `SELECT code, amount AS reserve FROM ${dialect.slowFrom(20)} WHERE desk = $1`,
        extra: ', timeout: 1s',
      }),
      /: (timed out after 1000 ms \(while running the query\)|timed out: the statement ran longer than its timeout \(\w+\))$/,
    ],
  ];

  it.each(faults)('withholds only the directions that need it for %s, with the reason', async (_name, make, reason) => {
    const fault = await make();
    const { outcome, held, xml, seen } = await build(
      source(fault.query, fault.extra ?? '', fault.params ?? '[main]'),
      fault.url ?? url,
    );
    // The other directions are published; the one held back for a fault makes the exit code 1.
    expect(outcome.code, outcome.stderr).toBe(1);
    expect(held).toEqual([
      { direction: 'BTC>SBERRUB', kind: 'reserve', reason: expect.stringMatching(reason) as string },
    ]);
    // The same reason in `explain` (a build of its own), which the credentials were also checked in.
    expect(seen).toMatch(/HELD BACK: reserve of SBERRUB from office: /);
    expect(outcome.stderr).toContain('published 3 directions, 1 held back');
    expect(xml).not.toMatch(/<to>SBERRUB<\/to>/);
    expect(xml).toMatch(/<from>BTC<\/from>\s*<to>USDTTRC20<\/to>/);
  });

  it("names the dialect's placeholders when a query with the other kind fails", async () => {
    const other = dialect.placeholder === '?' ? '$1' : '?';
    // Written out here: source() would turn $1 into the dialect's own placeholder.
    const query = JSON.stringify(`SELECT ${columns} FROM reserves WHERE desk = ${other}`);
    const { held } = await build(`{ type: sql, url: { env: RESERVES_DB_URL }, query: ${query}, params: [main] }`);
    expect(held[0]?.reason).toMatch(
      /: query failed: .* \((PostgreSQL placeholders are \$1, \$2, …, not \?|MySQL placeholders are \?, not \$1)\)$/,
    );
  });

  it('refuses to write: the query runs in a read-only transaction', async () => {
    const { held } = await build(source('UPDATE reserves SET amount = 0 WHERE desk = $1'));
    expect(held[0]).toMatchObject({
      direction: 'BTC>SBERRUB',
      kind: 'reserve',
      reason: expect.stringMatching(/query failed: .*(read-only|READ ONLY|read only|command denied)/i) as string,
    });
    const check = await build(source(mainQuery));
    expect(check.xml).toMatch(/<amount>1234567\.89<\/amount>/);
  });

  it('the real binary reads it, and exits within the timeout when the query is slow', async () => {
    assertBuilt();
    const binary = async (reserveSource: string, expected: number) => {
      const made = await project({ 'ratefile.config.yaml': withReserves(reserveSource) });
      const started = Date.now();
      const child = spawn(process.execPath, [binPath, 'build'], {
        cwd: made.dir,
        env: { ...childEnv(), RESERVES_DB_URL: url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdout.resume();
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expectNoCredentials(stderr);
      expect(code, stderr).toBe(expected);
      return {
        made,
        code,
        stderr,
        seconds: (Date.now() - started) / 1000,
        xml: await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8'),
      };
    };
    const ok = await binary(source(mainQuery), 0);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.xml).toMatch(/<from>BTC<\/from>\s*<to>SBERRUB<\/to>[\s\S]*?<amount>1234567\.89<\/amount>/);
    const slow = await binary(
      source(`SELECT code, amount AS reserve FROM ${dialect.slowFrom(30)} WHERE desk = $1`, ', timeout: 1s'),
      1,
    );
    // Held back for a fault (the query timed out): exit code 1, the other directions published all the same.
    expect(slow.code, slow.stderr).toBe(1);
    expect(slow.stderr).toMatch(
      /held back BTC → SBERRUB \(directions\[0\]\): reserve of SBERRUB from office: office: \w+ 127\.0\.0\.1:\d+\/backoffice: timed out/,
    );
    // The query sleeps 30 s: a process still holding its connection would wait for it (or for the server's timeout).
    expect(slow.seconds).toBeLessThan(15);
  });

  it('validate checks the source without connecting or reading the variable', async () => {
    const made = await project({ 'ratefile.config.yaml': withReserves(source(mainQuery)) });
    const result = await runRatefile(['validate'], made.dir);
    expect(result.code, result.stderr).toBe(0);
  });

  describe(`${dialect.name} URL`, () => {
    it('an unset variable withholds naming it', async () => {
      const made = await project({ 'ratefile.config.yaml': withReserves(source(mainQuery)) });
      const outcome = await runRatefile(['build'], made.dir);
      expect(outcome.stderr).toContain(
        'held back BTC → SBERRUB (directions[0]): reserve of SBERRUB from office: office: environment variable RESERVES_DB_URL (the database URL) is not set',
      );
    });
  });
}
