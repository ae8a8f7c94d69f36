// `ratefile build` (the real binary) with a bestchange source served by a loopback server: the real dump is
// fetched, parsed and reported (status: rows); a broken feed is a failing source while the build goes on.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base, dump, realDump } from '../support/bestchange.js';
import { spawnRatefile } from '../support/process.js';
import { projectsPerTest } from '../support/project.js';
import { startReplay, type ReplayServer } from '../support/replay.js';

describe('ratefile build with a bestchange source', () => {
  const project = projectsPerTest();
  let replay: ReplayServer;
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  const config = (url: string) => `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, baseUrl: "${url}", retries: 0 }
currencies:
  BTC: { reserve: "3" }
  USDTTRC20: { precision: 2, reserve: "100000" }
  SBERRUB: { reserve: "5000000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 1% }
`;

  async function build(response: { body: Buffer | string; headers?: Record<string, string> }) {
    replay.setRoutes([{ path: '/info.zip', responses: [response] }]);
    const { dir } = await project({ 'ratefile.config.yaml': config(replay.url), 'templates/reffile.yaml': 'include: { tags: [ref] }\n' });
    const proc = spawnRatefile(['build'], { cwd: dir });
    const exit = await proc.exited;
    const status = JSON.parse(await readFile(join(dir, '.ratefile', 'status.json'), 'utf8')) as { sources: { name: string; ok: boolean; rows?: number; lastError?: string }[] };
    return { exit, stderr: proc.stderr(), bc: status.sources.find((source) => source.name === 'bc'), dir };
  }

  it('fetches and parses the real dump; status and explain show its rows', async () => {
    const before = replay.requests.length;
    const { exit, stderr, bc, dir } = await build({ body: readFileSync(realDump), headers: { 'content-type': 'application/zip', etag: '"2021"' } });
    expect(exit.code, stderr).toBe(0);
    expect(bc).toMatchObject({ ok: true, rows: 202_690 });
    expect(replay.requests.slice(before).map((request) => request.path)).toEqual(['/info.zip']);
    const status = spawnRatefile(['status'], { cwd: dir });
    await status.exited;
    expect(status.stdout()).toMatch(/^ {2}bc \(bestchange\): ok, feed of 202690 rows, last success \d+ s ago$/m);
    const explain = spawnRatefile(['explain', 'BTC', 'SBERRUB'], { cwd: dir });
    await explain.exited;
    expect(explain.stdout()).toMatch(/^Sources: backoffice \(file\) ok, 2 quotes; bc \(bestchange\) ok, feed of 202690 rows$/m);
    // build and explain each unzip and parse 200k rows: on a loaded 2-core machine that can outlast the default 20 s.
  }, 60_000);

  it("makes the feed's codes (bm_cycodes.dat) known: config warnings stop naming a code BestChange lists", async () => {
    replay.setRoutes([{ path: '/info.zip', responses: [{ body: Buffer.from(dump({ ...base, 'bm_cycodes.dat': '1;SBERRUB\n2;BTC\n3;CASHUSD\n4;NEWCOINBEP20\n' })), headers: { 'content-type': 'application/zip' } }] }]);
    const withNewCoin = `${config(replay.url).replace('currencies:\n', 'currencies:\n  NEWCOINBEP20: { asset: USDT, reserve: "1000" }\n')}  - { from: NEWCOINBEP20, to: SBERRUB, margin: 1% }\n`;
    const { dir } = await project({ 'ratefile.config.yaml': withNewCoin });
    const warning = 'currencies.NEWCOINBEP20: not in the monitors\' code list';
    const before = spawnRatefile(['validate'], { cwd: dir });
    expect((await before.exited).code).toBe(0);
    expect(before.stderr()).toContain(warning);
    const built = spawnRatefile(['build'], { cwd: dir });
    expect((await built.exited).code, built.stderr()).toBe(0);
    expect(built.stderr()).toContain(warning);
    expect(JSON.parse(await readFile(join(dir, '.ratefile', 'codes.json'), 'utf8'))).toEqual({ version: 1, codes: ['BTC', 'CASHUSD', 'NEWCOINBEP20', 'SBERRUB'] });
    const after = spawnRatefile(['validate'], { cwd: dir });
    expect((await after.exited).code).toBe(0);
    expect(after.stderr()).not.toContain(warning);
    expect(await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8')).toContain('<from>NEWCOINBEP20</from>');
  });

  it('reports an HTML page as a failing source (exit 1) and still publishes the directions priced without it', async () => {
    const { exit, stderr, bc } = await build({ body: '<html><title>Access denied</title></html>', headers: { 'content-type': 'text/html' } });
    // Exit 1 as for any failing source: the files are written, the code tells cron something needs a look.
    expect(exit.code, stderr).toBe(1);
    expect(bc).toMatchObject({ ok: false, lastError: 'bc: GET /info.zip: got an HTML page instead of info.zip (HTTP 200, text/html)' });
    expect(stderr).toMatch(/failing sources: bc/);
    expect(stderr).toMatch(/published 1 direction/);
  });
});
