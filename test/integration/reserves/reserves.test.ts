// Back-office reserves from a `file` and an `http` source (a real server on 127.0.0.1), through `ratefile build`:
// the same documents and the same faults for both; a reserve that cannot be read withholds the directions that
// need it (kind `reserve`), never falls back to a number; `enabled: false` pauses them; credentials never show.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectsPerTest, type Project } from '../../support/project.js';
import { withReserves, type Held } from '../../support/reserves.js';
import { startReplay, type ReplayServer } from '../../support/replay.js';
import { runRatefile, type Outcome } from '../../support/run-cli.js';
import { freePort } from '../../support/ports.js';

const project = projectsPerTest();
const servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const token = 'Bearer s3cret-token-0451';
/** One kind of reserve source serving `document` (undefined: down), built once; what was published and held back. */
type Harness = (
  document: unknown,
) => Promise<{ made: Project; build: Outcome; held: Held[]; amount?: string; min?: string; max?: string }>;

const parse = async (made: Project, build: Outcome) => {
  const status = JSON.parse(await readFile(join(made.dir, '.ratefile', 'status.json'), 'utf8')) as { heldBack: Held[] };
  const xml = await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8');
  const item = /<item>\s*<from>BTC<\/from>\s*<to>SBERRUB<\/to>[\s\S]*?<\/item>/.exec(xml)?.[0];
  const tag = (name: string) => (item ? new RegExp(`<${name}>([^<]*)</${name}>`).exec(item)?.[1] : undefined);
  return {
    made,
    build,
    held: status.heldBack,
    ...(item ? { amount: tag('amount')!, min: tag('minamount')!, max: tag('maxamount')! } : {}),
  };
};

const harnesses: Record<string, Harness> = {
  file: async (document) => {
    const made = await project({ 'ratefile.config.yaml': withReserves('{ type: file, path: reserves.json }') });
    if (document !== undefined)
      await made.write('reserves.json', typeof document === 'string' ? document : JSON.stringify(document));
    return parse(made, await runRatefile(['build'], made.dir));
  },
  http: async (document) => {
    const server = await startReplay([
      document === undefined
        ? { path: '/api/reserves', responses: [{ status: 503, body: '{"error":"engine restarting"}' }] }
        : {
            path: '/api/reserves',
            responses: [{ body: typeof document === 'string' ? document : JSON.stringify(document) }],
          },
    ]);
    servers.push(server);
    const source = `{ type: http, url: "${server.url}/api/reserves", auth: { env: OFFICE_TOKEN }, entries: reserves, time: time, retries: 0, timeout: 2s }`;
    const made = await project({ 'ratefile.config.yaml': withReserves(source) });
    const build = await runRatefile(['build'], made.dir, { env: { OFFICE_TOKEN: token }, fetch: globalThis.fetch });
    expect(server.requests.every((request) => request.headers.authorization === token)).toBe(true);
    return parse(made, build);
  },
};

const reserveHeld = (reason: RegExp) => [
  { direction: 'BTC>SBERRUB', kind: 'reserve', reason: expect.stringMatching(reason) as string },
];

describe.each(Object.keys(harnesses))('reserves from a %s source', (kind) => {
  const run = harnesses[kind]!;

  it('publishes the back office reserve and limits, rounded like configured ones (reserve and max down, min up)', async () => {
    const { build, held, amount, min, max } = await run({
      reserves: { SBERRUB: { reserve: 1234567.899, min: '5000.001', max: '1000000.129', enabled: true }, BTC: '2' },
    });
    expect(build.code, build.stderr).toBe(0);
    expect(held).toEqual([]);
    expect(amount).toBe('1234567.89');
    // Limits in RUB become BTC at the published rate; min rounded up and max down at BTC's 8 places.
    expect(Number(min)).toBeGreaterThan(0);
    expect(Number(max)).toBeGreaterThan(Number(min));
  });

  const faults: [string, unknown, RegExp][] = [
    [
      'a null reserve',
      { reserves: { SBERRUB: { reserve: null } } },
      /^reserve of SBERRUB from office: SBERRUB: reserve is null$/,
    ],
    [
      'a negative reserve',
      { reserves: { SBERRUB: '-5' } },
      /^reserve of SBERRUB from office: SBERRUB: reserve -5 is negative$/,
    ],
    [
      'a reserve that is not a number',
      { reserves: { SBERRUB: { reserve: 'lots' } } },
      /SBERRUB: reserve "lots" is not a number$/,
    ],
    ['a missing code', { reserves: { BTC: '2' } }, /^reserve of SBERRUB from office: no entry for SBERRUB$/],
    [
      'reserves older than maxAge',
      { time: '2026-11-21T11:00:00Z', reserves: { SBERRUB: '100' } },
      /are older than its maxAge \(60 s\)$/,
    ],
    ['a broken document', '{"reserves": {', /not valid JSON/],
    ['the source down', undefined, /^reserve of SBERRUB from office: office: /],
  ];
  it.each(faults)(
    'withholds the directions that need it for %s, never using the configured number',
    async (_name, document, reason) => {
      const { made, build, held, amount } = await run(document);
      // Exit 1, the rule `status` exits by: the files are written, without what the reserve fault withholds.
      expect(build.code, build.stderr).toBe(1);
      expect(amount).toBeUndefined();
      expect(held).toEqual(reserveHeld(reason));
      expect(build.stderr).toContain('held back BTC → SBERRUB');
      const status = await runRatefile(['status'], made.dir);
      expect(status.code).toBe(1);
      expect(status.stdout).toMatch(/withheld for a fault: BTC → SBERRUB/);
    },
  );

  it('enabled: false pauses the directions into that currency (kind paused, not a fault)', async () => {
    const { made, build, held, amount } = await run({ reserves: { SBERRUB: { reserve: '100000', enabled: false } } });
    expect(build.code, build.stderr).toBe(0);
    expect(amount).toBeUndefined();
    expect(held).toEqual([
      { direction: 'BTC>SBERRUB', kind: 'paused', reason: 'switched off by office (SBERRUB enabled: false)' },
    ]);
    expect((await runRatefile(['status'], made.dir)).code).toBe(0);
  });
});

describe('an http reserve source that does not answer in time', () => {
  it('withholds after its timeout, saying so', async () => {
    const server = await startReplay([
      { path: '/api/reserves', responses: [{ body: '{"SBERRUB": "100"}', delayMs: 5_000 }] },
    ]);
    servers.push(server);
    const made = await project({
      'ratefile.config.yaml': withReserves(
        `{ type: http, url: "${server.url}/api/reserves", timeout: 300ms, retries: 0 }`,
      ),
    });
    const build = await runRatefile(['build'], made.dir, { fetch: globalThis.fetch });
    expect(build.stderr).toContain(
      'held back BTC → SBERRUB (directions[0]): reserve of SBERRUB from office: office: GET /api/reserves: timed out after 300 ms',
    );
  });
});

describe('an http reserve source asked as ratefile', () => {
  it("sends the config's userAgent (default ratefile/<version>) and names the host and port it could not reach", async () => {
    // A reserve above every direction's minimum order: the build is ok (exit 0), nothing held back.
    const server = await startReplay([{ path: '/api/reserves', responses: [{ body: '{"SBERRUB": "90000000"}' }] }]);
    servers.push(server);
    const source = `{ type: http, url: "${server.url}/api/reserves", retries: 0 }`;
    const plain = await project({ 'ratefile.config.yaml': withReserves(source) });
    const first = await runRatefile(['build'], plain.dir, { fetch: globalThis.fetch });
    expect(first.code).toBe(0);
    expect(server.requests.at(-1)?.headers['user-agent']).toMatch(/^ratefile\/\d+\.\d+\.\d+$/);
    const named = await project({
      'ratefile.config.yaml': `${withReserves(source)}userAgent: "ExchangerBot/2.0 (+https://exchanger.example/)"\n`,
    });
    expect((await runRatefile(['build'], named.dir, { fetch: globalThis.fetch })).code).toBe(0);
    expect(server.requests.at(-1)?.headers['user-agent']).toBe('ExchangerBot/2.0 (+https://exchanger.example/)');

    const port = await freePort();
    const down = await project({
      'ratefile.config.yaml': withReserves(`{ type: http, url: "http://127.0.0.1:${port}/api/reserves", retries: 0 }`),
    });
    const build = await runRatefile(['build'], down.dir, { fetch: globalThis.fetch });
    expect(build.stderr).toContain(
      `office: GET /api/reserves: request to 127.0.0.1:${port} failed: fetch failed (ECONNREFUSED)`,
    );
  });
});

describe('credentials of an http reserve source', () => {
  it('appear in no log line, status or error, even when the server echoes them', async () => {
    const server = await startReplay([
      {
        path: '/api/reserves',
        responses: [
          { status: 401, body: JSON.stringify({ error: `token ${token.replace('Bearer ', '')} is not valid` }) },
        ],
      },
    ]);
    servers.push(server);
    const made = await project({
      'ratefile.config.yaml': withReserves(
        `{ type: http, url: "${server.url}/api/reserves", auth: { header: X-Api-Key, env: OFFICE_TOKEN }, retries: 0 }`,
      ),
    });
    const build = await runRatefile(['build'], made.dir, { env: { OFFICE_TOKEN: token }, fetch: globalThis.fetch });
    expect(server.requests[0]?.headers['x-api-key']).toBe(token);
    expect(build.stderr).toContain('reserve source office failed: office: GET /api/reserves: HTTP 401');
    const status = await runRatefile(['status', '--json'], made.dir);
    const explain = await runRatefile(['explain', 'BTC', 'SBERRUB'], made.dir, {
      env: { OFFICE_TOKEN: token },
      fetch: globalThis.fetch,
    });
    expect(explain.stdout).toContain('HELD BACK');
    const secret = 's3cret-token-0451';
    for (const text of [build.stdout, build.stderr, status.stdout, explain.stdout, explain.stderr])
      expect(text).not.toContain(secret);
    for (const name of await readdir(join(made.dir, '.ratefile'))) {
      if (name.endsWith('.json'))
        expect(await readFile(join(made.dir, '.ratefile', name), 'utf8')).not.toContain(secret);
    }
    expect(status.stdout).toContain('token *** is not valid');
  });

  it('an unset variable withholds with its name, not a request without credentials', async () => {
    const server = await startReplay([{ path: '/api/reserves', responses: [{ body: '{"SBERRUB": "100"}' }] }]);
    servers.push(server);
    const made = await project({
      'ratefile.config.yaml': withReserves(
        `{ type: http, url: "${server.url}/api/reserves", auth: { env: OFFICE_TOKEN } }`,
      ),
    });
    const build = await runRatefile(['build'], made.dir, { fetch: globalThis.fetch });
    expect(server.requests).toEqual([]);
    expect(build.stderr).toContain(
      'held back BTC → SBERRUB (directions[0]): reserve of SBERRUB from office: office: environment variable OFFICE_TOKEN (the Authorization header) is not set',
    );
  });
});

describe('reserves in the config', () => {
  it('refuses reserve and reserveFrom together, an unknown reserve source, and a currency with neither', async () => {
    const config = withReserves('{ type: file, path: reserves.json }')
      .replace('BTC: { reserve: "3" }', 'BTC: { reserve: "3", reserveFrom: office }')
      .replace('CASHRUB: { precision: 0, reserve: "3000000" }', 'CASHRUB: { precision: 0 }')
      .replace('- { from: SBERRUB, to: USDTTRC20,', '- { from: SBERRUB, to: USDTTRC20, reserveFrom: ofice,');
    const made = await project({ 'ratefile.config.yaml': config });
    const result = await runRatefile(['validate'], made.dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('currencies.BTC.reserveFrom: set reserve or reserveFrom, not both');
    expect(result.stderr).toContain(
      'currencies.CASHRUB.reserve: required: expected a reserve like "5000", reserveFrom naming a reserve source, or a reserveFormula',
    );
    expect(result.stderr).toContain(
      'directions[1].reserveFrom: expected a key of reserves (did you mean "office"?), got "ofice"',
    );
  });
});

describe('applyReserves', () => {
  /** The sample with a file reserve source `office`, loaded, and applyReserves. */
  async function loaded() {
    const { applyReserves } = await import('../../../src/pure/reserves/apply.js');
    const { loadConfig } = await import('../../../src/io/config/load.js');
    const made = await project({ 'ratefile.config.yaml': withReserves('{ type: file, path: reserves.json }') });
    return { applyReserves, config: await loadConfig(made.configPath) };
  }

  it('rounds a reserve and a maximum down and a minimum up at the to currency places; the source limits replace the configured ones', async () => {
    const { applyReserves, config } = await loaded();
    const entries = new Map<string, unknown>([
      ['SBERRUB', { reserve: '1234567.899', min: '5000.001', max: '1000000.129' }],
    ]);
    const { directions, withheld } = applyReserves(
      config.directions,
      new Map([['office', { entries, time: new Date() }]]),
    );
    expect(withheld).toEqual([]);
    const direction = directions.find((d) => d.id === 'BTC>SBERRUB')!;
    expect(direction.reserve.toFixed()).toBe('1234567.89');
    expect(direction.min).toEqual({ value: expect.objectContaining({}) as unknown, asset: 'RUB' });
    expect([direction.min?.value.toFixed(), direction.max?.value.toFixed()]).toEqual(['5000.01', '1000000.12']);
    // Directions into other currencies keep their configured reserve, untouched.
    expect(directions.find((d) => d.id === 'BTC>USDTTRC20')!.reserve.toFixed()).toBe('100000');
  });

  it('gives the same direction object for the same reading, build after build, and a new one when the reading changes', async () => {
    const { applyReserves, config } = await loaded();
    // Each build reads the source anew: equal values in new objects.
    const reading = (reserve: string, max = '1000000.129') =>
      new Map([
        [
          'office',
          { entries: new Map<string, unknown>([['SBERRUB', { reserve, min: '5000.001', max }]]), time: new Date() },
        ],
      ]);
    const take = (book: ReturnType<typeof reading>) =>
      applyReserves(config.directions, book).directions.find((d) => d.id === 'BTC>SBERRUB')!;
    const first = take(reading('1234567.899'));
    const again = take(reading('1234567.8990'));
    expect(again).toBe(first);
    const moved = take(reading('1234567.91'));
    expect(moved).not.toBe(first);
    expect(moved.reserve.toFixed()).toBe('1234567.91');
    const capped = take(reading('1234567.91', '999'));
    expect(capped).not.toBe(moved);
    expect(capped.max?.value.toFixed()).toBe('999');
    // Priced alike either way: the reused object is the one the reading makes.
    expect({ ...again, reserve: again.reserve.toFixed() }).toEqual({ ...first, reserve: '1234567.89' });
  });
});

describe('examples/backoffice.yaml', () => {
  it('builds with its file and http reserve sources (the engine replayed on 127.0.0.1 through RATEFILE_HTTP_URL), withholding what its unset databases supply', async () => {
    const example = await readFile(new URL('../../../examples/backoffice.yaml', import.meta.url), 'utf8');
    const config = example
      .replace('templates: ../templates', 'templates: templates')
      .replace('output: ../public/backoffice', 'output: public')
      .replace('path: ../quotes.json', 'path: quotes.json');
    const engine = {
      data: {
        updatedAt: '2026-11-21T12:00:20Z',
        reserves: { BTC: '4.25', USDTTRC20: { reserve: '250000', max: '50000' }, USDTERC20: '1000' },
      },
    };
    const server = await startReplay([{ path: '/api/reserves', responses: [{ body: JSON.stringify(engine) }] }]);
    servers.push(server);
    const made = await project({
      'ratefile.config.yaml': config,
      'reserves.json': JSON.stringify({
        SBERRUB: { reserve: '18000000', min: '5000', enabled: true },
        CASHRUB: '3000000',
        BTC: '1.5',
      }),
    });
    const build = await runRatefile(['build'], made.dir, {
      env: { ENGINE_TOKEN: token, RATEFILE_HTTP_URL: server.url },
      fetch: globalThis.fetch,
    });
    expect(build.code, build.stderr).toBe(1);
    // Its databases are not reachable here (test/sql builds it against real ones): their directions are withheld, saying why.
    expect(build.stderr).toContain('published 4 directions, 2 held back');
    expect(build.stderr).toContain(
      'held back SBERRUB → USDTERC20 (directions[2]): reserve of USDTERC20 from ledger: ledger: environment variable LEDGER_DB_URL (the database URL) is not set',
    );
    expect(build.stderr).toContain(
      'held back USDTTRC20 → CASHRUB (directions[3]): reserve of CASHRUB from cashdesk: cashdesk: environment variable CASHDESK_DB_URL (the database URL) is not set',
    );
    expect(server.requests.map((r) => [r.path, r.headers.authorization])).toEqual([['/api/reserves', token]]);
    const xml = await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8');
    // The same currency from two sources: the direction's own (office) and the currency's (engine).
    expect(xml).toMatch(/<from>SBERRUB<\/from>\s*<to>BTC<\/to>[\s\S]*?<amount>1\.5<\/amount>/);
    expect(xml).toMatch(/<from>BTC<\/from>\s*<to>USDTTRC20<\/to>[\s\S]*?<amount>250000<\/amount>/);
    expect(xml).toMatch(/<from>BTC<\/from>\s*<to>SBERRUB<\/to>[\s\S]*?<amount>18000000<\/amount>/);
  });
});

describe('reserves kept across builds (the service)', () => {
  it('reuses a reading within refresh, stands in with it while younger than maxAge when the source fails, and withholds after', async () => {
    const { build } = await import('../../../src/io/build/build.js');
    const { loadConfig } = await import('../../../src/io/config/load.js');
    const { ReserveCache } = await import('../../../src/io/reserves/fetch.js');
    const server = await startReplay([{ path: '/api/reserves', responses: [{ body: '{"SBERRUB": "700000"}' }] }]);
    servers.push(server);
    const made = await project({
      'ratefile.config.yaml': withReserves(
        `{ type: http, url: "${server.url}/api/reserves", refresh: 20s, maxAge: 1m, retries: 0 }`,
      ),
    });
    const config = await loadConfig(made.configPath);
    const reserveCache = new ReserveCache();
    const at = (seconds: number) => {
      // Quotes are as old as their file: keep them fresh by moving the file's time with the clock.
      const now = new Date(Date.parse('2026-11-21T12:00:00Z') + seconds * 1000);
      return { now: () => now, fetch: globalThis.fetch, env: {}, reserveCache };
    };
    const sberrub = async (seconds: number) => {
      const { utimes } = await import('node:fs/promises');
      const deps = at(seconds);
      await utimes(join(made.dir, 'quotes.json'), deps.now(), deps.now());
      const { report } = await build(config, deps);
      const priced = report.priced.find((p) => p.direction.id === 'BTC>SBERRUB');
      return {
        reserve: priced?.direction.reserve.toFixed(),
        held: report.withheld.find((w) => w.direction.id === 'BTC>SBERRUB'),
        source: report.reserves[0]!,
      };
    };
    expect((await sberrub(0)).reserve).toBe('700000');
    expect(server.requests).toHaveLength(1);
    expect(await sberrub(10)).toMatchObject({ reserve: '700000', source: { reused: 'refresh' } });
    expect(server.requests).toHaveLength(1);

    server.setRoutes([{ path: '/api/reserves', responses: [{ status: 500, body: 'down' }] }]);
    const standIn = await sberrub(30);
    expect(standIn).toMatchObject({ reserve: '700000', source: { ok: true, reused: 'fallback' } });
    expect(standIn.source.error).toMatch(/HTTP 500.*\(using its last good reserves, fetched 2026-11-21T12:00:00Z\)$/);
    const past = await sberrub(61);
    expect(past.reserve).toBeUndefined();
    expect(past.held).toMatchObject({
      kind: 'reserve',
      reason: expect.stringMatching(/^reserve of SBERRUB from office: office: GET \/api\/reserves: HTTP 500/) as string,
    });
  });
});

describe('alerts', () => {
  it('a failing reserve source is a problem of its own, and its withheld directions are faults; a paused one is not', async () => {
    const { currentProblems } = await import('../../../src/service/alerts/problems.js');
    const made = await project({ 'ratefile.config.yaml': withReserves('{ type: file, path: reserves.json }') });
    expect((await runRatefile(['pause', 'BTC', 'USDTTRC20'], made.dir)).code).toBe(0);
    expect((await runRatefile(['build'], made.dir)).code).toBe(1);
    const status = JSON.parse(
      await readFile(join(made.dir, '.ratefile', 'status.json'), 'utf8'),
    ) as import('../../../src/pure/status/report.js').Status;
    const keys = currentProblems(status, new Date('2026-11-21T12:00:30Z')).map((problem) => problem.key);
    // 1 of the 3 directions due (the paused one is not) is withheld for a fault: more than 25%.
    expect(keys).toEqual(['health:failing', 'reserves:office', 'withheld:BTC>SBERRUB']);
  });
});
