// Labels and the on/off switch from the back office (`switchesFrom:`), through `ratefile build` and `explain`: a
// `file` source's entries by direction id replace the config's params at the next build (a `manual` label bringing
// manualHours), `enabled: false` pauses the direction; an `http` source that fails stands in with its last reading
// while younger than maxAge, then withholds the direction (kind `reserve`, naming the source).
import { readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectsPerTest } from '../../support/project.js';
import { withSwitches, type Held } from '../../support/reserves.js';
import { startReplay, type ReplayServer } from '../../support/replay.js';
import { runRatefile } from '../../support/run-cli.js';

const project = projectsPerTest();
const servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** The BTC → SBERRUB item of the classic file, if published. */
const item = async (dir: string) =>
  /<item>\s*<from>BTC<\/from>\s*<to>SBERRUB<\/to>[\s\S]*?<\/item>/.exec(
    await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8'),
  )?.[0];
const heldBack = async (dir: string) =>
  (JSON.parse(await readFile(join(dir, '.ratefile', 'status.json'), 'utf8')) as { heldBack: Held[] }).heldBack;

describe('labels and switch from a file', () => {
  it('follows the file at every build: labels in place of params, off as paused, a bad label held back', async () => {
    const made = await project({ 'ratefile.config.yaml': withSwitches('{ type: file, path: switches.json }') });
    const write = (entry: unknown) => made.write('switches.json', JSON.stringify({ 'BTC>SBERRUB': entry }));

    await write({ enabled: true, labels: 'manual,cardverify' });
    expect((await runRatefile(['build'], made.dir)).code).toBe(0);
    expect(await item(made.dir)).toContain('<param>manual, cardverify</param>');
    const explained = await runRatefile(['explain', 'BTC', 'SBERRUB'], made.dir);
    expect(explained.code, explained.stderr).toBe(0);
    expect(explained.stdout).toContain(
      "Also published: labels manual, cardverify\nSwitch and labels from office: BTC>SBERRUB on, labels manual, cardverify (in place of the config's: verifying)\nWorking hours: the config's manualHours, as a manual direction\n",
    );

    await write({ enabled: 1, labels: [] });
    expect((await runRatefile(['build'], made.dir)).code).toBe(0);
    const plain = await item(made.dir);
    expect(plain).toBeDefined();
    expect(plain).not.toContain('<param>');

    await write({ enabled: 'false', labels: 'manual' });
    expect((await runRatefile(['build'], made.dir)).code).toBe(0);
    expect(await item(made.dir)).toBeUndefined();
    expect(await heldBack(made.dir)).toEqual([
      { direction: 'BTC>SBERRUB', kind: 'paused', reason: 'switched off by office (BTC>SBERRUB enabled: false)' },
    ]);
    const off = await runRatefile(['explain', 'BTC', 'SBERRUB'], made.dir);
    expect(off.code).toBe(1);
    expect(off.stdout).toContain('HELD BACK: switched off by office (BTC>SBERRUB enabled: false)');

    await write({ labels: 'manual,vip' });
    await runRatefile(['build'], made.dir);
    expect(await item(made.dir)).toBeUndefined();
    expect(await heldBack(made.dir)).toEqual([
      {
        direction: 'BTC>SBERRUB',
        kind: 'reserve',
        reason: expect.stringMatching(
          /^labels and switch of BTC>SBERRUB from office: BTC>SBERRUB: label "vip"/,
        ) as string,
      },
    ]);
  });

  it('refuses a switchesFrom that names no reserve source', async () => {
    const made = await project({
      'ratefile.config.yaml': withSwitches('{ type: file, path: switches.json }').replace(
        'switchesFrom: office',
        'switchesFrom: ofice',
      ),
    });
    const checked = await runRatefile(['validate'], made.dir);
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain(
      'directions[0].switchesFrom: expected a key of reserves (did you mean "office"?), got "ofice"',
    );
  });
});

describe('labels and switch from an http source kept across builds (the service)', () => {
  it('stands in with the last reading while younger than maxAge, then withholds the direction naming the source', async () => {
    const { build } = await import('../../../src/io/build/build.js');
    const { loadConfig } = await import('../../../src/io/config/load.js');
    const { ReserveCache } = await import('../../../src/io/reserves/fetch.js');
    const server = await startReplay([
      { path: '/api/switches', responses: [{ body: '{"BTC>SBERRUB": {"enabled": true, "labels": ["manual"]}}' }] },
    ]);
    servers.push(server);
    const made = await project({
      'ratefile.config.yaml': withSwitches(`{ type: http, url: "${server.url}/api/switches", maxAge: 1m, retries: 0 }`),
    });
    const config = await loadConfig(made.configPath);
    const reserveCache = new ReserveCache();
    const sberrub = async (seconds: number) => {
      const now = new Date(Date.parse('2026-11-21T12:00:00Z') + seconds * 1000);
      // Quotes are as old as their file: keep them fresh by moving the file's time with the clock.
      await utimes(join(made.dir, 'quotes.json'), now, now);
      const { report } = await build(config, { now: () => now, fetch: globalThis.fetch, env: {}, reserveCache });
      return {
        params: report.priced.find((p) => p.direction.id === 'BTC>SBERRUB')?.direction.params,
        held: report.withheld.find((w) => w.direction.id === 'BTC>SBERRUB'),
        source: report.reserves[0]!,
      };
    };
    expect(await sberrub(0)).toMatchObject({ params: ['manual'], source: { ok: true } });
    server.setRoutes([{ path: '/api/switches', responses: [{ status: 500, body: 'down' }] }]);
    expect(await sberrub(30)).toMatchObject({ params: ['manual'], source: { ok: true, reused: 'fallback' } });
    const past = await sberrub(61);
    expect(past.params).toBeUndefined();
    expect(past.held).toMatchObject({
      kind: 'reserve',
      reason: expect.stringMatching(
        /^labels and switch of BTC>SBERRUB from office: office: GET \/api\/switches: HTTP 500/,
      ) as string,
    });
  });
});
