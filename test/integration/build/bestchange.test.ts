// `ratefile build` (the real binary) with a bestchange source served by a loopback server: the real dump is
// fetched, parsed and reported (status: rows); a broken feed is a failing source while the build goes on.
// `ratefile start` with a feed host that never answers keeps its schedule; a failing feed is asked once per
// refresh; a 1.6-million-row feed is refused without taking the process's memory.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { base, bigFeed, dump, realDump } from '../../support/bestchange.js';
import { buildsRun, buildTimes, waitForBuildsRun } from '../../support/builds.js';
import { rawRequest } from '../../support/http.js';
import { spawnRatefile, stopAll, waitForServing } from '../../support/process.js';
import { projectsPerTest } from '../../support/project.js';
import { startReplay, type ReplayServer } from '../../support/replay.js';

describe('ratefile build with a bestchange source', () => {
  const projects = projectsPerTest();
  // The recorded dump is of a day BTC stood at 4.06 M RUB on BestChange: the backoffice's quotes are that day's
  // (44,000 USDT × 92.10 RUB), so BTC → SBERRUB agrees with its rivals' reference (the sample's 97,012 would be 120% off).
  const dumpDay = JSON.stringify({
    quotes: [
      { pair: 'BTC/USDT', bid: '44000.00', ask: '44000.01' },
      { pair: 'USDT/RUB', bid: '92.10', ask: '92.35' },
    ],
  });
  const project = (files: Record<string, string>) => projects({ 'quotes.json': dumpDay, ...files });
  // The small synthetic feed (support/bestchange.ts's base) has its rivals at 5.1 M RUB: quotes of that market.
  const baseDay = dumpDay.replace('"44000.00"', '"55374.00"').replace('"44000.01"', '"55374.01"');
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());
  afterEach(() => stopAll());

  const config = (url: string, options = 'retries: 0') => `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, baseUrl: "${url}", ${options} }
currencies:
  BTC: { reserve: "3" }
  USDTTRC20: { precision: 2, reserve: "100000" }
  SBERRUB: { reserve: "5000000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 1% }
`;

  async function build(response: { body: Buffer | string; headers?: Record<string, string> }) {
    replay.setRoutes([{ path: '/info.zip', responses: [response] }]);
    const { dir } = await project({
      'ratefile.config.yaml': config(replay.url),
      'templates/reffile.yaml': 'include: { tags: [ref] }\n',
    });
    const proc = spawnRatefile(['build'], { cwd: dir });
    const exit = await proc.exited;
    const status = JSON.parse(await readFile(join(dir, '.ratefile', 'status.json'), 'utf8')) as {
      sources: { name: string; ok: boolean; rows?: number; lastError?: string }[];
    };
    return { exit, stderr: proc.stderr(), bc: status.sources.find((source) => source.name === 'bc'), dir };
  }

  it('fetches and parses the real dump; status and explain show its rows', async () => {
    const before = replay.requests.length;
    const { exit, stderr, bc, dir } = await build({
      body: readFileSync(realDump),
      headers: { 'content-type': 'application/zip', etag: '"2021"' },
    });
    expect(exit.code, stderr).toBe(0);
    expect(bc).toMatchObject({ ok: true, rows: 202_690 });
    expect(replay.requests.slice(before).map((request) => request.path)).toEqual(['/info.zip']);
    const status = spawnRatefile(['status'], { cwd: dir });
    await status.exited;
    expect(status.stdout()).toMatch(/^ {2}bc \(bestchange\): ok, feed of 202690 rows, last success \d+ s ago$/m);
    const explain = spawnRatefile(['explain', 'BTC', 'SBERRUB'], { cwd: dir });
    await explain.exited;
    expect(explain.stdout()).toMatch(
      /^Sources: backoffice \(file\) ok, 2 quotes; bc \(bestchange\) ok, feed of 202690 rows$/m,
    );
    // build and explain each unzip and parse 200k rows: on a loaded 2-core machine that can outlast the default 20 s.
  }, 60_000);

  it("makes the feed's codes (bm_cycodes.dat) known: config warnings stop naming a code BestChange lists", async () => {
    replay.setRoutes([
      {
        path: '/info.zip',
        responses: [
          {
            body: Buffer.from(dump({ ...base, 'bm_cycodes.dat': '1;SBERRUB\n2;BTC\n3;CASHUSD\n4;NEWCOINBEP20\n' })),
            headers: { 'content-type': 'application/zip' },
          },
        ],
      },
    ]);
    const withNewCoin = `${config(replay.url).replace('currencies:\n', 'currencies:\n  NEWCOINBEP20: { asset: USDT, reserve: "1000" }\n')}  - { from: NEWCOINBEP20, to: SBERRUB, margin: 1% }\n`;
    const { dir } = await project({ 'ratefile.config.yaml': withNewCoin, 'quotes.json': baseDay });
    const warning = "currencies.NEWCOINBEP20: not in the monitors' code list";
    const before = spawnRatefile(['validate'], { cwd: dir });
    expect((await before.exited).code).toBe(0);
    expect(before.stderr()).toContain(warning);
    const built = spawnRatefile(['build'], { cwd: dir });
    expect((await built.exited).code, built.stderr()).toBe(0);
    expect(built.stderr()).toContain(warning);
    expect(JSON.parse(await readFile(join(dir, '.ratefile', 'codes.json'), 'utf8'))).toEqual({
      version: 1,
      codes: ['BTC', 'CASHUSD', 'NEWCOINBEP20', 'SBERRUB'],
    });
    const after = spawnRatefile(['validate'], { cwd: dir });
    expect((await after.exited).code).toBe(0);
    expect(after.stderr()).not.toContain(warning);
    expect(await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8')).toContain('<from>NEWCOINBEP20</from>');
  });

  it('reports an HTML page as a failing source (exit 1) and still publishes the directions priced without it', async () => {
    const { exit, stderr, bc } = await build({
      body: '<html><title>Access denied</title></html>',
      headers: { 'content-type': 'text/html' },
    });
    // Exit 1 as for any failing source: the files are written, the code tells cron something needs a look.
    expect(exit.code, stderr).toBe(1);
    expect(bc).toMatchObject({
      ok: false,
      lastError: 'bc: GET /info.zip: got an HTML page instead of info.zip (HTTP 200, text/html)',
    });
    expect(stderr).toMatch(/failing sources: bc/);
    expect(stderr).toMatch(/published 1 direction/);
  });

  it('ratefile start keeps its schedule while the feed host never answers, and /healthz answers', async () => {
    // The default timeout and retries (10 s × 3 attempts): a build that waited for the feed would take 30 s.
    replay.setRoutes([{ path: '/info.zip', responses: [{ body: Buffer.from(dump(base)), delayMs: 600_000 }] }]);
    const { dir } = await project({
      'ratefile.config.yaml': `${config(replay.url, 'maxAge: 2m')}schedule: "*/2 * * * * *"\n`,
    });
    const proc = spawnRatefile(['start', '--port', '0', '--host', '127.0.0.1'], { cwd: dir });
    const port = Number(new URL(await waitForServing(proc)).port);
    const served = `http://127.0.0.1:${port}/`;
    const deadline = Date.now() + 40_000;
    while ((await buildTimes(served)).length < 5) {
      if (Date.now() > deadline)
        throw new Error(`${(await buildTimes(served)).length} builds within 40 s; stderr:\n${proc.stderr()}`);
      const health = await rawRequest({ port, path: '/healthz', timeoutMs: 5_000 });
      expect(health.status, health.body.toString('utf8')).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const times = await buildTimes(served);
    // On a 2 s schedule: no gap near the 30 s a waiting build would take (a generous bound for a loaded machine).
    const gaps = times.slice(1).map((time, index) => time - times[index]!);
    for (const gap of gaps) expect(gap, `gaps ${gaps.join(', ')} ms`).toBeLessThan(6_000);
    expect(proc.stderr()).toMatch(/failing sources: bc/);
    expect(proc.stderr()).toContain('fetching its feed since');
  }, 60_000);

  it("ratefile start's first build already has a feed that answers promptly (asked first, waited for a little)", async () => {
    replay.setRoutes([{ path: '/info.zip', responses: [{ body: Buffer.from(dump(base)), delayMs: 300 }] }]);
    const before = replay.requests.length;
    const { dir } = await project({ 'ratefile.config.yaml': `${config(replay.url)}userAgent: ExchangerBot/2.0\n` });
    const proc = spawnRatefile(['start', '--port', '0', '--host', '127.0.0.1'], { cwd: dir });
    const served = await waitForServing(proc);
    // The status written by the first build, before any scheduled one (every 30 s).
    const status = JSON.parse(await readFile(join(dir, '.ratefile', 'status.json'), 'utf8')) as {
      sources: { name: string; ok: boolean; rows?: number }[];
    };
    expect(await buildsRun(served)).toBe(1);
    expect(status.sources.find((source) => source.name === 'bc')).toMatchObject({
      ok: true,
      rows: expect.any(Number) as unknown,
    });
    expect(proc.stderr()).not.toContain('fetching its feed since');
    // The feed asked beside the builds, as ratefile names itself (the config's userAgent), not as Node's `node`.
    const asked = replay.requests.slice(before).filter((request) => request.path === '/info.zip');
    expect(asked.length).toBeGreaterThan(0);
    for (const request of asked) expect(request.headers['user-agent']).toBe('ExchangerBot/2.0');
  }, 30_000);

  it('ratefile start asks a failing feed once per refresh, not every build', async () => {
    replay.setRoutes([{ path: '/info.zip', responses: [{ status: 503, body: 'down' }] }]);
    const before = replay.requests.filter((request) => request.path === '/info.zip').length;
    const { dir } = await project({ 'ratefile.config.yaml': `${config(replay.url)}schedule: "*/1 * * * * *"\n` });
    const proc = spawnRatefile(['start', '--port', '0', '--host', '127.0.0.1'], { cwd: dir });
    await waitForBuildsRun(await waitForServing(proc), 6, 30_000);
    // refresh is 30 s (BestChange's least): six builds a second apart ask once.
    expect(replay.requests.filter((request) => request.path === '/info.zip').length - before).toBe(1);
    // Logged once, with when the next try is; the status says it too, build after build.
    expect(
      proc
        .stderr()
        .match(
          /warn feed fetch failed: bc: GET \/info\.zip: HTTP 503 Service Unavailable: "down"; next try after \S+Z$/gm,
        ),
    ).toHaveLength(1);
    const status = JSON.parse(await readFile(join(dir, '.ratefile', 'status.json'), 'utf8')) as {
      sources: { name: string; lastError?: string }[];
    };
    expect(status.sources.find((source) => source.name === 'bc')?.lastError).toMatch(
      /^bc: GET \/info\.zip: HTTP 503 Service Unavailable: "down"; next try after \S+Z$/,
    );
  }, 60_000);

  it('ratefile build refuses a 1.6-million-row feed before unpacking it: the process grows by far less than 100 MB', async () => {
    /** The build's most resident memory, from a module the child imports first. */
    async function maxRss(body: Buffer) {
      replay.setRoutes([{ path: '/info.zip', responses: [{ body, headers: { 'content-type': 'application/zip' } }] }]);
      const { dir } = await project({
        'ratefile.config.yaml': config(replay.url),
        'rss.mjs': "process.on('exit', () => process.stderr.write(`maxRSS ${process.resourceUsage().maxRSS}\\n`));\n",
      });
      const proc = spawnRatefile(['build'], {
        cwd: dir,
        nodeArgs: ['--import', pathToFileURL(join(dir, 'rss.mjs')).href],
      });
      await proc.exited;
      const status = JSON.parse(await readFile(join(dir, '.ratefile', 'status.json'), 'utf8')) as {
        sources: { name: string; ok: boolean; lastError?: string }[];
      };
      const kb = Number(/maxRSS (\d+)/.exec(proc.stderr())?.[1]);
      expect(kb, proc.stderr()).toBeGreaterThan(0);
      return { mb: kb / 1024, bc: status.sources.find((source) => source.name === 'bc') };
    }
    const normal = await maxRss(Buffer.from(dump(base)));
    expect(normal.bc?.ok).toBe(true);
    const big = await maxRss(bigFeed());
    expect(big.bc).toMatchObject({
      ok: false,
      lastError: expect.stringMatching(
        /bm_rates\.dat unpacks to 62400000 bytes, more than the \d+ allowed: refused before unpacking/,
      ),
    });
    console.log(
      `maxRSS of ratefile build: ${normal.mb.toFixed(1)} MB with a 7-row feed, ${big.mb.toFixed(1)} MB with the 1.6-million-row feed`,
    );
    expect(big.mb - normal.mb).toBeLessThan(100);
  }, 60_000);
});
