// The state folder (`.ratefile/`) is the owner's only, the exports stay world-readable (issue 33, item 11), and the
// temporaries a killed process left in it are removed once stale (item 14).
import { chmod, mkdir, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../../support/process.js';
import { runRatefile } from '../../support/run-cli.js';
import { sampleConfig, projectsPerTest } from '../../support/project.js';
import { servicesPerTest } from '../../support/service.js';

const project = projectsPerTest();
const start = servicesPerTest();

beforeAll(() => assertBuilt());

/** Today's first segment of the archive (UTC). */
const archiveSegment = () => `${new Date().toISOString().slice(0, 10)}-1.rfa`;

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

/** Every folder and file under `dir`, with its permission bits. */
async function modes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = { '.': (await modeOf(dir)).toString(8) };
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    out[path.slice(dir.length + 1)] = (await modeOf(path)).toString(8);
  }
  return out;
}

describe('file modes', () => {
  it('makes an existing state folder 0700 and its files 0600 at the next build; the exports stay 0644', async () => {
    const made = await project();
    const state = join(made.dir, '.ratefile');
    expect((await runRatefile(['build'], made.dir)).code).toBe(0);
    // As an older version left it.
    await chmod(state, 0o755);
    for (const name of await readdir(state)) await chmod(join(state, name), 0o644);
    const built = await runRatefile(['build'], made.dir);
    expect(built.code, built.stderr).toBe(0);
    const paused = await runRatefile(['pause', 'BTC', 'SBERRUB', '--reason', 'bank'], made.dir);
    expect(paused.code, paused.stderr).toBe(0);
    const found = await modes(state);
    expect(found).toMatchObject({ '.': '700', 'status.json': '600', 'guard.json': '600', 'exports.json': '600' });
    expect(found['paused/BTC-SBERRUB']).toBe('600');
    for (const [path, mode] of Object.entries(found))
      if (path !== '.' && path !== 'paused' && path !== 'archive') expect(mode, path).toBe('600');
    expect(found.archive).toBe('700');
    const exports = await modes(join(made.dir, 'public'));
    for (const file of ['parserfile.xml', 'parserfile.xml.gz', 'parserfile.xml.br', 'reffile.xml'])
      expect(exports[file], file).toBe('644');
  });

  it('writes every file of a new state folder 0600 and its folders 0700 under start', async () => {
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}accessLog: access.log\nmonitors:\n  sumo: { agent: Mozilla }\n`,
      'access.log': '',
    });
    const service = await start(made);
    await fetch(`${service.base}parserfile.xml`);
    await service.rebuild();
    await service.stop();
    const found = await modes(join(made.dir, '.ratefile'));
    expect(Object.keys(found)).toEqual(
      expect.arrayContaining(['readers.json', 'status.json', `archive/${archiveSegment()}`]),
    );
    for (const [path, mode] of Object.entries(found))
      expect(mode, path).toBe(path === '.' || path === 'history' || path === 'archive' ? '700' : '600');
  });
});

describe('temporaries left in the state folder', () => {
  /** A state folder as killed processes left it: stale temporaries of our naming, young ones, other names. */
  async function leftBehind(dir: string) {
    const state = join(dir, '.ratefile');
    await mkdir(join(state, 'history'), { recursive: true });
    const old = new Date(Date.now() - 5 * 60_000);
    const files = {
      stale: [
        '.alerts.json.0123456789ab.tmp',
        '.status.json.abcdef012345.tmp',
        'history/.compete.json.0a1b2c3d4e5f.tmp',
      ],
      kept: ['.status.json.fedcba987654.tmp', 'notes.tmp', '.alerts.json.tmp', 'history/.alerts.json.XYZ.tmp'],
    };
    for (const name of [...files.stale, ...files.kept]) {
      await writeFile(join(state, name), 'x'.repeat(1000));
      if (name !== '.status.json.fedcba987654.tmp') await utimes(join(state, name), old, old);
    }
    return async () => {
      const left = Object.keys(await modes(state));
      for (const name of files.stale) expect(left, name).not.toContain(name);
      for (const name of files.kept) expect(left, name).toContain(name);
    };
  }

  it('removes stale ones of our naming at start, keeps young ones and other names', async () => {
    const made = await project();
    const check = await leftBehind(made.dir);
    // Stopped before looking: a running service writes temporaries of its own (the build points), renamed at once.
    await (await start(made)).stop();
    await check();
  });

  it('removes them at `ratefile build` as at start (a killed build leaves them too)', async () => {
    const made = await project();
    const check = await leftBehind(made.dir);
    const built = await runRatefile(['build'], made.dir);
    expect(built.code, built.stderr).toBe(0);
    await check();
  });
});
