// A state folder whose disk is full (issue 45, item 24): the build that cannot keep its state fails, and says so with
// ENOSPC and the file, in the build's exit and error, in `start`'s log and in /healthz (whose status cannot be
// written to the full disk either: the service keeps it in memory). What it published meanwhile is not lost: the
// archive keeps the record in memory and appends it once the disk has room, so `ratefile at` rebuilds the file that
// was served while the disk was full and `archive verify` passes. A `--import` module makes every write into
// `.ratefile/` fail with ENOSPC while `disk-full` lies in the project: ratefile carries no test hook.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../support/http.js';
import { assertBuilt, spawnRatefile, stopAll, waitForServing } from '../../support/process.js';
import { everySecondConfig, projectsPerTest, writeSampleQuotes } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';

const project = projectsPerTest();
beforeAll(() => assertBuilt());
afterEach(() => stopAll());

const diskFull = `data:text/javascript,${encodeURIComponent(`
  import { existsSync } from 'node:fs';
  import { join } from 'node:path';
  import { createRequire, syncBuiltinESMExports } from 'node:module';
  const fsp = createRequire(process.cwd() + '/')('node:fs/promises');
  const open = fsp.open;
  const state = join(process.cwd(), '.ratefile') + '/';
  const full = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
  fsp.open = async (path, ...rest) => {
    const handle = await open(path, ...rest);
    if (String(path).startsWith(state) && existsSync(join(process.cwd(), 'disk-full'))) {
      handle.writeFile = async () => { throw full(); };
      handle.write = async () => { throw full(); };
    }
    return handle;
  };
  syncBuiltinESMExports();
`)}`;

interface Health {
  level: string;
  reasons: string[];
  lastBuild: { ok: boolean; error?: string };
}

describe('a full disk under the state folder', () => {
  it('fails `ratefile build`, naming ENOSPC and the file it could not keep', async () => {
    const made = await project();
    const first = spawnRatefile(['build'], { cwd: made.dir, nodeArgs: [`--import=${diskFull}`] });
    expect((await first.exited).code, first.stderr()).toBe(0);
    await writeFile(join(made.dir, 'disk-full'), '');
    const full = spawnRatefile(['build'], { cwd: made.dir, nodeArgs: [`--import=${diskFull}`] });
    expect((await full.exited).code).toBe(1);
    expect(full.stderr()).toMatch(
      /ratefile: the exports are published, but the state folder cannot keep this build: cannot write \S*\.ratefile\/\w+\.json: ENOSPC: no space left on device/,
    );
  });

  it('is a failed build under `start`, in the log and /healthz (kept in memory), until the disk has room again; nothing it published is lost', async () => {
    const made = await project({ 'ratefile.config.yaml': everySecondConfig });
    const proc = spawnRatefile(['start', '--port', '0', '--host', '127.0.0.1'], {
      cwd: made.dir,
      nodeArgs: [`--import=${diskFull}`],
    });
    const base = await waitForServing(proc);
    const health = async () => (await (await fetch(`${base}healthz`)).json()) as Health;
    expect((await health()).lastBuild.ok).toBe(true);
    const served = async () => (await fetch(`${base}parserfile.xml`)).text();
    const before = await served();
    const beforeAt = new Date().toISOString();

    await writeFile(join(made.dir, 'disk-full'), '');
    const failed = await pollUntil(async () => {
      const now = await health();
      return now.lastBuild.ok ? undefined : now;
    }, 20_000);
    expect(failed.lastBuild.error).toMatch(/cannot write (\S*\.ratefile\/)?\w+\.json: ENOSPC: no space left on device/);
    expect(failed.reasons.join('\n')).toMatch(/last build failed: .*ENOSPC/);
    await proc.waitForLog(/build failed.*state folder cannot keep this build.*ENOSPC/);

    // The market moves while the disk is full: the new rates are published (the exports are outside the state
    // folder), and their record waits.
    await writeSampleQuotes(made, new Date(), '1.003');
    const during = await pollUntil(async () => {
      const text = await served();
      return text !== before ? text : undefined;
    }, 20_000);

    await rm(join(made.dir, 'disk-full'));
    await pollUntil(async () => ((await health()).lastBuild.ok ? true : undefined), 20_000);
    expect((await proc.stop('SIGTERM')).code).toBe(0);
    expect(await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8')).toBe(during);
    const verified = await runRatefile(['archive', 'verify'], made.dir);
    expect(verified.code, verified.stderr).toBe(0);
    for (const [time, expected] of [
      [beforeAt, before],
      ['now', during],
    ] as const) {
      const at = await runRatefile(['at', time, '--export', 'parserfile.xml'], made.dir, { now: () => new Date() });
      expect(at.code, at.stderr).toBe(0);
      expect(at.stdout, `the file served at ${time}`).toBe(expected);
    }
  });
});
