// `ratefile start` builds as soon as a `file` source's file changes (issue 28's freshness line), not only on its
// schedule: here every 10 minutes, so only the watch can bring a change out within the test.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/io/config/load.js';
import { watchedFiles } from '../../../src/service/start/source-watch.js';
import { assertBuilt, spawnRatefile, stopAll, waitForServing } from '../../support/process.js';
import { projectsPerTest, sampleConfig } from '../../support/project.js';
import { withReserves } from '../../support/reserves.js';
import { servicesPerTest } from '../../support/service.js';

const project = projectsPerTest();
const start = servicesPerTest();

const everyTenMinutes = (config: string) => `${config}schedule: "0 */10 * * * *"\n`;

/** The sample's quotes with BTC at `btc` USDT. */
const quotes = (btc: string) =>
  JSON.stringify({
    quotes: [
      { pair: 'BTC/USDT', bid: btc, ask: btc },
      { pair: 'USDT/RUB', bid: '92.10', ask: '92.35' },
    ],
  });

/** How many USDTTRC20 one BTC gets in the served parserfile.xml; undefined while not published. */
async function btcRate(base: string): Promise<number | undefined> {
  const xml = await (await fetch(new URL('parserfile.xml', base))).text();
  const found = /<from>BTC<\/from>\s*<to>USDTTRC20<\/to>\s*<in>1<\/in>\s*<out>([\d.]+)<\/out>/.exec(xml);
  return found ? Number(found[1]) : undefined;
}

/** Polls until `check` holds; the bound is generous (a loaded machine), the test asserts what is served, not how fast. */
async function until(check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`still not so after ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Written beside and renamed over, as back offices replace a file. */
async function replace(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

/** The sample's 1.5% margin on the bid, to USDTTRC20's 2 decimals; the moves below stay small, under the guard that holds back a jump. */
const near = (rate: number | undefined, btc: number) => rate !== undefined && Math.abs(rate - btc * 0.985) < 0.01;

describe('a change to a file source starts a build', () => {
  it('a file replaced by rename, then written in place: each is served long before the schedule, the build line says why', async () => {
    const made = await project({ 'ratefile.config.yaml': everyTenMinutes(sampleConfig) });
    let log = '';
    const service = await start(made, { log: (text) => (log += text), watch: true });
    expect(near(await btcRate(service.base), 97012.3)).toBe(true);

    await replace(join(made.dir, 'quotes.json'), quotes('97100'));
    await until(async () => near(await btcRate(service.base), 97100), 'the replaced quotes served');
    await writeFile(join(made.dir, 'quotes.json'), quotes('97200'));
    await until(async () => near(await btcRate(service.base), 97200), 'the rewritten quotes served');
    expect(log).toMatch(/ info build: published .*; started by a change to quotes\.json\n/);
  });

  it('a quotes file that does not exist at start is built when it appears', async () => {
    const made = await project({
      'ratefile.config.yaml': everyTenMinutes(sampleConfig.replace('path: quotes.json', 'path: feed/quotes.json')),
      'feed/README': 'the back office writes quotes.json here\n',
    });
    const service = await start(made, { watch: true });
    expect(await btcRate(service.base)).toBeUndefined();
    await replace(join(made.dir, 'feed', 'quotes.json'), quotes('97300'));
    await until(async () => near(await btcRate(service.base), 97300), 'the new file served');
  });

  it('many changes in quick succession: builds one at a time, coalesced, and the last quotes are served', async () => {
    const made = await project({ 'ratefile.config.yaml': everyTenMinutes(sampleConfig) });
    let log = '';
    const service = await start(made, { log: (text) => (log += text), watch: true });
    const changes = 100;
    // Written first, then renamed over one after the other: 100 changes in a few milliseconds, each one whole.
    const path = join(made.dir, 'quotes.json');
    for (let n = 1; n <= changes; n++) await writeFile(`${path}.${n}`, quotes(String(97000 + n)));
    for (let n = 1; n <= changes; n++) await rename(`${path}.${n}`, path);
    await until(async () => near(await btcRate(service.base), 97000 + changes), 'the last quotes served');
    // Let a build still waiting run, then count: far fewer builds than changes (one per change would be 100).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const builds = log.match(/started by a change to quotes\.json/g)?.length ?? 0;
    expect(builds).toBeGreaterThan(0);
    expect(builds).toBeLessThanOrEqual(20);
    expect(log).not.toContain('build skipped');
  });

  it('watch: false: a change waits for the next build', async () => {
    const made = await project({
      'ratefile.config.yaml': everyTenMinutes(
        sampleConfig.replace('path: quotes.json', 'path: quotes.json, watch: false'),
      ),
    });
    let log = '';
    const service = await start(made, { log: (text) => (log += text), watch: true });
    await replace(join(made.dir, 'quotes.json'), quotes('97100'));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(near(await btcRate(service.base), 97012.3)).toBe(true);
    expect(log).not.toContain('watch:');
    // The schedule's build (called here, as the schedule would in ten minutes) reads the change.
    await service.rebuild();
    expect(near(await btcRate(service.base), 97100)).toBe(true);
  });

  it('a reloaded config re-targets the watch to its file', async () => {
    const made = await project({ 'ratefile.config.yaml': everyTenMinutes(sampleConfig) });
    const service = await start(made, { watch: true });
    await made.write('other.json', quotes('97400'));
    await made.write(
      'ratefile.config.yaml',
      everyTenMinutes(sampleConfig.replace('path: quotes.json', 'path: other.json')),
    );
    await service.rebuild();
    expect(near(await btcRate(service.base), 97400)).toBe(true);
    await replace(join(made.dir, 'other.json'), quotes('97500'));
    await until(async () => near(await btcRate(service.base), 97500), 'the new file of the reloaded config served');
  });

  it('a folder that cannot be watched is a warning, the schedule still builds, and it is watched once it exists', async () => {
    const made = await project({
      'ratefile.config.yaml': everyTenMinutes(sampleConfig.replace('path: quotes.json', 'path: later/quotes.json')),
    });
    let log = '';
    const service = await start(made, { log: (text) => (log += text), watch: true });
    expect(log).toMatch(
      new RegExp(
        ` warn watch: cannot watch ${join(made.dir, 'later')} for changes to quotes\\.json: .*ENOENT.*; they are read at the scheduled builds\\n`,
      ),
    );
    await mkdir(join(made.dir, 'later'));
    await writeFile(join(made.dir, 'later', 'quotes.json'), quotes('97600'));
    await service.rebuild();
    expect(near(await btcRate(service.base), 97600)).toBe(true);
    expect(log).toContain(`watch: watching ${join(made.dir, 'later')} again`);
    await replace(join(made.dir, 'later', 'quotes.json'), quotes('97700'));
    await until(async () => near(await btcRate(service.base), 97700), 'the change in the folder made later served');
  });

  it('a change to a file reserve source is built too', async () => {
    const made = await project({
      'ratefile.config.yaml': everyTenMinutes(withReserves('{ type: file, path: reserves.json }')),
      'reserves.json': JSON.stringify({ SBERRUB: '5000000' }),
    });
    const service = await start(made, { watch: true });
    const amount = async () =>
      /<from>BTC<\/from>\s*<to>SBERRUB<\/to>[\s\S]*?<amount>([^<]*)<\/amount>/.exec(
        await (await fetch(new URL('parserfile.xml', service.base))).text(),
      )?.[1];
    expect(await amount()).toBe('5000000');
    await replace(join(made.dir, 'reserves.json'), JSON.stringify({ SBERRUB: '4000000' }));
    await until(async () => (await amount()) === '4000000', 'the new reserve served');
  });

  it('which files are watched: file sources of quotes and reserves, not one with `watch: false` or a `refresh`', async () => {
    const made = await project({
      'ratefile.config.yaml': withReserves('{ type: file, path: office/reserves.json }').replace(
        'backoffice: { type: file, path: quotes.json }',
        'backoffice: { type: file, path: quotes.json }\n  daily: { type: file, path: daily.json, refresh: 1h }\n  manual: { type: file, path: manual.json, watch: false }',
      ),
    });
    expect(watchedFiles(await loadConfig(made.configPath))).toEqual([
      join(made.dir, 'office', 'reserves.json'),
      join(made.dir, 'quotes.json'),
    ]);
  });

  describe('the real binary', () => {
    beforeAll(assertBuilt);
    afterEach(stopAll);

    it('--log-format json: the build a change started has `trigger`; SIGTERM stops it with the watch open', async () => {
      const made = await project({ 'ratefile.config.yaml': everyTenMinutes(sampleConfig) });
      const proc = spawnRatefile(
        ['start', '--config', made.configPath, '--port', '0', '--host', '127.0.0.1', '--log-format', 'json'],
        { cwd: made.dir },
      );
      const base = await waitForServing(proc);
      await replace(join(made.dir, 'quotes.json'), quotes('97100'));
      await proc.waitForLog(/"event":"build".*"trigger":"change quotes\.json"/);
      expect(near(await btcRate(base), 97100)).toBe(true);
      expect(await proc.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    });
  });
});
