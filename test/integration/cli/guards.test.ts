// The guards as an operator meets them: `ratefile maintenance`, `build`, `accept` and `status` run in-process
// through run() with a fixed clock, on real files; every export checked with libxml2.
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliDeps } from '../../../src/cli.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { runCycle } from '../../../src/io/build/cycle.js';
import { Decimal } from '../../../src/base/decimal.js';
import type { Config } from '../../../src/model/config.js';
import { runRatefile, type Outcome } from '../../support/run-cli.js';
import { makeProject, sampleConfig, type Project } from '../../support/project.js';
import { xmlErrors } from '../../support/xml.js';
import type { Status } from '../../../src/pure/status/report.js';

const exportFiles = ['affiliatefile.xml', 'parserfile.xml', 'reffile.xml'] as const;
const emptyExport = '<?xml version="1.0" encoding="UTF-8"?>\n<rates></rates>\n';
/** A Saturday. */
const t0 = new Date('2026-11-21T12:00:30Z');
const later = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

const projects: Project[] = [];
afterEach(async () => {
  await Promise.all(projects.splice(0).map((project) => project.remove()));
});

/** A sample project whose quotes are stamped `now` (so no freshness limit can take them out). */
async function project(files: Record<string, string> = {}, now = t0): Promise<Project> {
  const made = await makeProject(files);
  projects.push(made);
  await writeQuotes(made, now);
  return made;
}

async function writeQuotes(made: Project, now: Date, btc = '1', usdt = '1'): Promise<void> {
  const scale = (factor: string, price: string) => new Decimal(factor).times(price).toFixed();
  await made.write(
    'quotes.json',
    JSON.stringify({
      quotes: [
        { pair: 'BTC/USDT', bid: scale(btc, '97012.30'), ask: scale(btc, '97012.31'), time: now.toISOString() },
        { pair: 'USDT/RUB', bid: scale(usdt, '92.10'), ask: scale(usdt, '92.35'), time: now.toISOString() },
      ],
    }),
  );
}

/** `ratefile ...args` in-process at the clock `now`. */
function ratefile(args: readonly string[], cwd: string, now = t0, overrides: Partial<CliDeps> = {}): Promise<Outcome> {
  return runRatefile(args, cwd, { now: () => now, ...overrides });
}

async function exportsOf(dir: string): Promise<Record<string, string>> {
  const entries = await Promise.all(
    exportFiles.map(async (file) => [file, await readFile(join(dir, 'public', file), 'utf8')] as const),
  );
  return Object.fromEntries(entries);
}

const items = (xml: string) => xml.match(/<item>/g)?.length ?? 0;

/** Every export is well-formed XML 1.0 (libxml2); returns the item count of each. */
async function checkedExports(dir: string): Promise<Record<string, number>> {
  const files = await exportsOf(dir);
  const counts: Record<string, number> = {};
  for (const [file, xml] of Object.entries(files)) {
    expect(await xmlErrors(xml, file), file).toEqual([]);
    counts[file] = items(xml);
  }
  return counts;
}

async function expectEmptyExports(dir: string): Promise<void> {
  expect(await checkedExports(dir)).toEqual({ 'affiliatefile.xml': 0, 'parserfile.xml': 0, 'reffile.xml': 0 });
  expect(await exportsOf(dir)).toEqual(Object.fromEntries(exportFiles.map((file) => [file, emptyExport])));
}

const statusJson = async (
  dir: string,
  now = t0,
): Promise<{ code: number; status: Status & { level: string; reasons: string[] } }> => {
  const result = await ratefile(['status', '--json'], dir, now);
  expect(result.stderr).toBe('');
  return { code: result.code, status: JSON.parse(result.stdout) as Status & { level: string; reasons: string[] } };
};

describe('maintenance (the issue’s "Done when")', () => {
  it('on + build: three well-formed exports with no items; off + build: the items are back', async () => {
    const { dir } = await project();
    const first = await ratefile(['build'], dir);
    expect(first.code, first.stderr).toBe(0);
    const normal = await exportsOf(dir);
    expect(await checkedExports(dir)).toEqual({ 'affiliatefile.xml': 3, 'parserfile.xml': 5, 'reffile.xml': 4 });

    const on = await ratefile(['maintenance', 'on'], dir);
    expect(on).toEqual({ code: 0, stdout: 'maintenance is on; it applies from the next build\n', stderr: '' });
    // Nothing changes until the next build.
    expect(await exportsOf(dir)).toEqual(normal);
    expect((await ratefile(['maintenance'], dir)).stdout).toBe('maintenance is on\n');

    const during = await ratefile(['build'], dir);
    expect(during.code, during.stderr).toBe(0);
    expect(during.stderr).toMatch(
      /info build: MAINTENANCE: every export published empty; published 0 directions, 0 held back; /,
    );
    await expectEmptyExports(dir);
    // The jump guard's memory is kept through maintenance.
    const guard = JSON.parse(await readFile(join(dir, '.ratefile', 'guard.json'), 'utf8')) as {
      published: Record<string, unknown>;
    };
    expect(Object.keys(guard.published)).toHaveLength(4);

    const human = await ratefile(['status'], dir);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ok: maintenance: every export is published empty\n/);
    expect(human.stdout).toContain('maintenance: ON — every export is published empty (ratefile maintenance off)\n');
    expect(human.stdout).toContain('  parserfile.xml: 0 items\n');
    const { status } = await statusJson(dir);
    expect(status).toMatchObject({
      level: 'ok',
      reasons: ['maintenance: every export is published empty'],
      maintenance: true,
      published: [],
      heldBack: [],
    });

    const off = await ratefile(['maintenance', 'off'], dir);
    expect(off).toEqual({ code: 0, stdout: 'maintenance is off; it applies from the next build\n', stderr: '' });
    await expectEmptyExports(dir);
    const after = await ratefile(['build'], dir);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).not.toContain('MAINTENANCE');
    expect(await checkedExports(dir)).toEqual({ 'affiliatefile.xml': 3, 'parserfile.xml': 5, 'reffile.xml': 4 });
    expect(await exportsOf(dir)).toEqual(normal);
    expect((await statusJson(dir)).status.maintenance).toBe(false);
    expect(await readdir(join(dir, '.ratefile'))).not.toContain('maintenance');
  });

  it('`maintenance: true` in the config empties every export, and the switch cannot turn it off', async () => {
    const { dir } = await project({ 'ratefile.config.yaml': `${sampleConfig}maintenance: true\n` });
    expect((await ratefile(['build'], dir)).code).toBe(0);
    await expectEmptyExports(dir);
    const off = await ratefile(['maintenance', 'off'], dir);
    expect(off.stdout).toBe(
      'maintenance is on (set by `maintenance: true` in the config); it applies from the next build\n',
    );
    expect((await ratefile(['build'], dir)).code).toBe(0);
    await expectEmptyExports(dir);
  });

  it('maintenance does not fetch quotes: a broken source does not fail the build', async () => {
    const { dir, write } = await project();
    expect((await ratefile(['maintenance', 'on'], dir)).code).toBe(0);
    await write('quotes.json', 'not json');
    const result = await ratefile(['build'], dir);
    expect(result.code, result.stderr).toBe(0);
    await expectEmptyExports(dir);
  });
});

describe('every direction out: the three files are still valid, empty', () => {
  it('all quotes stale (sources with a maximum age)', async () => {
    const made = await project({}, new Date('2026-11-21T11:00:00Z'));
    const loaded = await loadConfig(made.configPath);
    const config: Config = { ...loaded, sources: loaded.sources.map((source) => ({ ...source, maxAgeMs: 60_000 })) };
    const cycle = await runCycle(config, join(made.dir, 'public'), { now: () => t0 });
    expect(cycle.build.report.priced).toEqual([]);
    expect(cycle.build.report.withheld.map((w) => w.reason)).toEqual(
      config.directions.map(() =>
        expect.stringMatching(/^quote (BTC\/USDT|USDT\/RUB) from backoffice is 3630 s old \(limit 60 s\)$/),
      ),
    );
    await expectEmptyExports(made.dir);
    const { status } = await statusJson(made.dir);
    expect(status.heldBack.map((h) => h.direction)).toEqual([
      'BTC>SBERRUB',
      'BTC>USDTTRC20',
      'SBERRUB>USDTTRC20',
      'USDTTRC20>CASHRUB',
    ]);
  });

  it('all held back by the jump guard', async () => {
    const made = await project();
    expect((await ratefile(['build'], made.dir)).code).toBe(0);
    await writeQuotes(made, later(30), '1.12', '1.12');
    const result = await ratefile(['build'], made.dir, later(30));
    // Exit 1 as `status` says FAILING: every direction withheld for a fault (the files are written, empty).
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(
      /info build: published 0 directions, 4 held back; affiliatefile\.xml 0 items \(written\)/,
    );
    for (const id of ['BTC>SBERRUB', 'BTC>USDTTRC20', 'SBERRUB>USDTTRC20', 'USDTTRC20>CASHRUB']) {
      expect(result.stderr).toMatch(
        new RegExp(
          `warn held back ${id.replace('>', ' → ')} \\(directions\\[\\d\\]\\): rate moved \\d+(\\.\\d+)?% from the last published`,
        ),
      );
    }
    await expectEmptyExports(made.dir);
  });

  it('all out of working hours', async () => {
    const { dir } = await project({
      'ratefile.config.yaml': sampleConfig.replace(
        '  margin: 1.5%\n',
        '  margin: 1.5%\n  hours: "Mon-Fri 09:00-18:00 Europe/Moscow"\n',
      ),
    });
    const result = await ratefile(['build'], dir);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'held back BTC → SBERRUB (directions[0]): outside working hours (Mon-Fri 09:00-18:00 Europe/Moscow)',
    );
    await expectEmptyExports(dir);
  });
});

describe('ratefile accept', () => {
  it('publishes a held-back jump on the next build, once', async () => {
    const made = await project();
    expect((await ratefile(['build'], made.dir)).code).toBe(0);
    await writeQuotes(made, later(30), '1.25');
    const held = await ratefile(['build'], made.dir, later(30));
    expect(held.stderr).toMatch(
      /held back BTC → SBERRUB \(directions\[0\]\): rate moved 25% .*\(ratefile accept BTC SBERRUB to publish now\)/,
    );
    expect(await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8')).not.toMatch(/<from>BTC<\/from>/);

    const accept = await ratefile(['accept', 'BTC', 'SBERRUB'], made.dir, later(35));
    expect(accept).toEqual({
      code: 0,
      stdout: 'accepted BTC → SBERRUB: the next build publishes its new rate and makes it the reference\n',
      stderr: '',
    });
    const published = await ratefile(['build'], made.dir, later(60));
    expect(published.stderr).toMatch(/published 3 directions, 1 held back/);
    expect(published.stderr).toMatch(/held back BTC → USDTTRC20 .*seen in 2 of 3 distinct answers of backoffice/);
    expect(await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8')).toMatch(
      /<from>BTC<\/from>\s*<to>SBERRUB<\/to>/,
    );
    expect(await readdir(join(made.dir, '.ratefile', 'accept'))).toEqual([]);
  });

  it('a jump past the hard bound is never published by builds, however many; status and the alert say old, new, source and command; accept publishes it', async () => {
    const made = await project();
    expect((await ratefile(['build'], made.dir)).code).toBe(0);
    // BTC/USDT ×40 (USDT/RUB as it was, so no scale mistake of the whole answer): every BTC direction ×40.
    for (let k = 1; k <= 6; k++) {
      await writeQuotes(made, later(30 * k), '40');
      const held = await ratefile(['build'], made.dir, later(30 * k));
      expect(held.stderr).toMatch(/published 2 directions, 2 held back/);
      expect(await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8')).not.toMatch(/<from>BTC<\/from>/);
    }
    const reason =
      'rate moved ×40, +3900% from the last published 8800810.33755 to 352032413.502, from backoffice: past the hard bound ×1.3 or ÷1.3 (guards.hardJump 30%), it is published only by ratefile accept BTC SBERRUB';
    const text = await ratefile(['status'], made.dir, later(185));
    expect(text.stdout).toContain(`  BTC → SBERRUB: ${reason} [jump]\n`);
    const { status } = await statusJson(made.dir, later(185));
    expect(status.heldBack.find((held) => held.direction === 'BTC>SBERRUB')).toEqual({
      direction: 'BTC>SBERRUB',
      kind: 'jump',
      reason,
      jump: {
        last: '8800810.33755',
        rate: '352032413.502',
        sources: ['backoffice'],
        hard: true,
        command: 'ratefile accept BTC SBERRUB',
      },
    });
    const { currentProblems } = await import('../../../src/service/alerts/problems.js');
    expect(currentProblems(status, later(185)).find((p) => p.key === 'jump:BTC>SBERRUB')?.text).toBe(
      `jump held BTC → SBERRUB: ${reason}`,
    );

    expect((await ratefile(['accept', 'BTC', 'SBERRUB'], made.dir, later(190))).code).toBe(0);
    const accepted = await ratefile(['build'], made.dir, later(210));
    expect(accepted.stderr).toMatch(/published 3 directions, 1 held back/);
    expect(await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8')).toMatch(
      /<from>BTC<\/from>\s*<to>SBERRUB<\/to>\s*<in>1<\/in>\s*<out>352032413\.5<\/out>/,
    );
  });

  it('says so, and requests nothing, when the direction is published (not held back)', async () => {
    const made = await project();
    expect((await ratefile(['build'], made.dir)).code).toBe(0);
    const accept = await ratefile(['accept', 'BTC', 'SBERRUB'], made.dir, later(5));
    expect(accept.code).toBe(1);
    expect(accept.stdout).toMatch(/^BTC → SBERRUB is not held back \(last build .*\): nothing to accept\n$/);
    await expect(readdir(join(made.dir, '.ratefile', 'accept'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.each([
    [['accept', 'BTC', 'EUR'], /^ratefile: no direction BTC → EUR in ratefile\.config\.yaml\n$/],
    [['accept', 'SBERRUB', 'BTC'], /^ratefile: no direction SBERRUB → BTC in ratefile\.config\.yaml\n$/],
    [['accept', 'BTC'], /missing required argument 'to'/],
    [['maintenance', 'maybe'], /^ratefile: expected "on" or "off", got "maybe"\n$/],
    [
      ['maintenance', 'on', '--config', 'nowhere.yaml'],
      /^ratefile: nowhere\.yaml: file not found\n {2}create one here with `ratefile init`, or name yours with --config PATH \(or RATEFILE_CONFIG\)\n$/,
    ],
    [
      ['status', '--config', 'nowhere.yaml'],
      /^ratefile: nowhere\.yaml: file not found\n {2}create one here with `ratefile init`, or name yours with --config PATH \(or RATEFILE_CONFIG\)\n$/,
    ],
    [['status', '--jsn'], /unknown option '--jsn'/],
  ])('%j exits 2', async (args, message) => {
    const { dir } = await project();
    const result = await ratefile(args, dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    // Nothing was switched or requested.
    await expect(stat(join(dir, '.ratefile'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('ratefile status', () => {
  const config = `${sampleConfig
    .replace(
      '- { from: USDTTRC20, to: CASHRUB, cities: [MSK, SPB], tags: [ref, cash] }',
      '- { from: USDTTRC20, to: CASHRUB, cities: [MSK, SPB], tags: [ref, cash], hours: "Mon-Fri 09:00-18:00 UTC" }',
    )
    .replace(
      'sources:\n  backoffice: { type: file, path: quotes.json }\n',
      'sources:\n  backoffice: { type: file, path: quotes.json }\n  spare: { type: file, path: spare.json }\n',
    )}`;
  const spare = JSON.stringify([{ pair: 'EUR/USD', bid: '1.08', ask: '1.09', time: t0.toISOString() }]);

  it('before any build: "no build has run yet", exit 1', async () => {
    const { dir } = await project();
    expect(await ratefile(['status'], dir)).toEqual({
      code: 1,
      stdout: 'no build has run yet (no status file)\n',
      stderr: '',
    });
    const json = await statusJson(dir);
    expect(json).toEqual({
      code: 1,
      status: { level: 'failing', reasons: ['no build yet'] },
    });
  });

  it('shows the last build, each source’s health and every direction published or held back', async () => {
    const { dir } = await project({ 'ratefile.config.yaml': config, 'spare.json': spare });
    const first = await ratefile(['build'], dir);
    expect(first.code, first.stderr).toBe(0);

    // The spare source breaks; the next build still publishes what does not need it, and exits 1.
    await rm(join(dir, 'spare.json'));
    const second = await ratefile(['build'], dir, later(60));
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/failing sources: spare/);

    // A failing source is degraded (the exports are right, yet something needs a look): exit 1.
    const { code, status } = await statusJson(dir, later(65));
    expect(code).toBe(1);
    expect(status).toMatchObject({
      level: 'degraded',
      reasons: ['failing source: spare'],
      version: 1,
      lastBuild: { at: later(60).toISOString(), ok: true },
      lastSuccessAt: later(60).toISOString(),
      maintenance: false,
      schedulePeriodMs: 30_000,
      published: ['BTC>SBERRUB', 'BTC>USDTTRC20', 'SBERRUB>USDTTRC20'],
      heldBack: [
        { direction: 'USDTTRC20>CASHRUB', kind: 'hours', reason: 'outside working hours (Mon-Fri 09:00-18:00 UTC)' },
      ],
      exports: [
        { name: 'affiliatefile', file: 'affiliatefile.xml', items: 3 },
        { name: 'parserfile', file: 'parserfile.xml', items: 3 },
        { name: 'reffile', file: 'reffile.xml', items: 2 },
      ],
    });
    expect(status.lastBuild.durationMs).toBeGreaterThanOrEqual(0);
    expect(Number.isInteger(status.lastBuild.durationMs)).toBe(true);
    expect(status.sources).toEqual([
      {
        name: 'backoffice',
        type: 'file',
        ok: true,
        quotes: 2,
        lastSuccessAt: later(60).toISOString(),
        oldestQuoteAgeSeconds: 60,
      },
      {
        name: 'spare',
        type: 'file',
        ok: false,
        quotes: 0,
        lastSuccessAt: t0.toISOString(),
        lastError: expect.stringMatching(/^spare: cannot read quotes file .*spare\.json: ENOENT/),
      },
    ]);

    const human = await ratefile(['status'], dir, later(65));
    expect(human.code).toBe(1);
    expect(human.stdout.split('\n')).toEqual([
      'DEGRADED: failing source: spare',
      expect.stringMatching(
        new RegExp(`^last build: ${later(60).toISOString().replace(/\./g, '\\.')} \\(5 s ago\\), ok, \\d+ ms$`),
      ),
      `last good build: ${later(60).toISOString()}`,
      'sources:',
      '  backoffice (file): ok, 2 quotes, last success 5 s ago, oldest quote used 60 s old',
      '  spare (file): FAILING, 0 quotes, last success 65 s ago',
      expect.stringMatching(/^ {4}last error: spare: cannot read quotes file .*spare\.json/),
      'exports:',
      '  affiliatefile.xml: 3 items',
      '  parserfile.xml: 3 items',
      '  reffile.xml: 2 items',
      'published: 3 directions',
      'held back: 1',
      '  USDTTRC20 → CASHRUB: outside working hours (Mon-Fri 09:00-18:00 UTC) [hours]',
      // One file source prices every pair: nothing in the config can tell one of its quotes is wrong.
      'priced by one source: 4 directions, 4 without a reference (one broken source can set their rate: docs/pricing-and-guards.md)',
      '  BTC/USDT (backoffice), USDT/RUB (backoffice): NO REFERENCE — BTC → SBERRUB',
      '  BTC/USDT (backoffice): NO REFERENCE — BTC → USDTTRC20',
      '  USDT/RUB (backoffice): NO REFERENCE — SBERRUB → USDTTRC20, USDTTRC20 → CASHRUB',
      // Every published export is archived by default (`archive:`): its window, newest record, verification, key.
      expect.stringMatching(
        /^archive \(files\): [\d.]+ KiB of 4\.0 GiB; kept since 2026-11-21T12:00:30\.000Z \(65 s ago\); window 30 days$/,
      ),
      '  newest record 0, build 2026-11-21T12:00:30.000Z, in place 65 s ago',
      '  not verified yet (ratefile archive verify)',
      '  not signed (no archive.key)',
      '',
    ]);
    // `ratefile archive verify` since the build: the status says its verdict at once, not at the next build.
    expect((await ratefile(['archive', 'verify'], dir, later(70))).code).toBe(0);
    expect((await ratefile(['status'], dir, later(75))).stdout).toMatch(
      /\n {2}last verified record 0 \(checked 5 s ago\)\n/,
    );
  });

  it('dropped quotes are the source’s last error', async () => {
    const spareQuotes = [
      { pair: 'EUR/USD', bid: '1.08', ask: '1.09' },
      { pair: 'GBP/USD', bid: '1.30', ask: '1.29' },
    ];
    const { dir } = await project({ 'ratefile.config.yaml': config, 'spare.json': JSON.stringify(spareQuotes) });
    const result = await ratefile(['build'], dir);
    expect(result.code).toBe(1);
    const { status } = await statusJson(dir);
    expect(status.sources[1]).toMatchObject({
      name: 'spare',
      quotes: 1,
      lastError: expect.stringMatching(/GBP\/USD: bid 1\.30 is above ask 1\.29/),
    });
  });

  it('a last good build older than three schedule periods is failing: exit 1', async () => {
    const { dir } = await project();
    expect((await ratefile(['build'], dir)).code).toBe(0);
    expect((await ratefile(['status'], dir, later(90))).code).toBe(0);
    const stale = await ratefile(['status'], dir, later(600));
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/^FAILING: last successful build is 600 s old \(limit 90 s\)\n/);
    expect(await statusJson(dir, later(600))).toMatchObject({
      code: 1,
      status: { level: 'failing', reasons: ['last successful build is 600 s old (limit 90 s)'] },
    });
  });

  it('a failed build is degraded (exit 1), keeps what the last good one published, and is failing once the last good build is too old', async () => {
    const { dir } = await project();
    expect((await ratefile(['build'], dir)).code).toBe(0);
    // A guard state that cannot be written fails the build after the folders were checked: a folder where
    // guard.json belongs (root may write anywhere, so permissions would not do).
    await rm(join(dir, '.ratefile', 'guard.json'), { force: true });
    await mkdir(join(dir, '.ratefile', 'guard.json', 'x'), { recursive: true });
    const failed = await ratefile(['build'], dir, later(30));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^ratefile: the exports are published, but the state folder cannot keep this build: cannot write .*guard\.json: EISDIR/,
    );

    const human = await ratefile(['status'], dir, later(35));
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(
      /^DEGRADED: last build failed: the exports are published, but the state folder .*guard\.json/,
    );
    expect(human.stdout).toContain(', FAILED, ');
    expect(human.stdout).toMatch(/\n {2}error: the exports are published, but .*cannot write .*guard\.json/);
    expect(human.stdout).toContain(`last good build: ${t0.toISOString()}\n`);
    const { code, status } = await statusJson(dir, later(35));
    expect(code).toBe(1);
    expect(status).toMatchObject({
      level: 'degraded',
      lastBuild: { at: later(30).toISOString(), ok: false, error: expect.stringMatching(/cannot write .*guard\.json/) },
      lastSuccessAt: t0.toISOString(),
      published: ['BTC>SBERRUB', 'BTC>USDTTRC20', 'SBERRUB>USDTTRC20', 'USDTTRC20>CASHRUB'],
    });
    expect(await statusJson(dir, later(91))).toMatchObject({ code: 1, status: { level: 'failing' } });
    // The next good build is healthy again.
    await rm(join(dir, '.ratefile', 'guard.json'), { recursive: true });
    expect((await ratefile(['build'], dir, later(60))).code).toBe(0);
    expect((await ratefile(['status'], dir, later(61))).code).toBe(0);
  });
});
