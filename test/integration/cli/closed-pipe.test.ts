// A reader that closes the pipe early (`ratefile build --dry-run | head -1`): the real binary ends quietly,
// with the exit code it has when its output is read whole, and no EPIPE stack trace.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, spawnRatefile, stopAll, type Exit, type RatefileProcess } from '../../support/process.js';
import { makeProject, projectsPerTest, sampleConfig, type Project } from '../../support/project.js';

const project = projectsPerTest();
afterEach(() => stopAll());

/** One project, built once, that every printing command runs in. */
let built: Project;
beforeAll(async () => {
  assertBuilt();
  built = await makeProject();
  expect((await spawnRatefile(['build'], { cwd: built.dir }).exited).code).toBe(0);
});
afterAll(() => built.remove());

/** Every command that prints to standard output, run in a project that has been built once. */
const printing = [
  ['--version'],
  ['--help'],
  ['schema'],
  ['build', '--dry-run'],
  ['status'],
  ['explain', 'BTC', 'SBERRUB'],
  ['check', 'public/parserfile.xml'],
  ['init', '{dir}'],
].map((args) => ({ command: args.join(' '), args }));

/** `{dir}` is a new folder per run, so `init` writes its starter files both times. */
const argsFor = (args: readonly string[], dir: string) => args.map((arg) => arg.replace('{dir}', dir));

const crashed = /EPIPE|Unhandled 'error' event|\n\s+at /;

async function finished(proc: RatefileProcess): Promise<Exit & { stderr: string }> {
  const exit = await proc.exited;
  return { ...exit, stderr: proc.stderr() };
}

describe('a closed standard output ends a command quietly', () => {
  it.each(printing)('ratefile $command, the reader gone before the first byte', async ({ args }) => {
    const read = await finished(spawnRatefile(argsFor(args, 'read'), { cwd: built.dir }));
    expect(read.stderr).not.toMatch(crashed);

    const proc = spawnRatefile(argsFor(args, 'closed'), { cwd: built.dir });
    // The parent's only read end of the pipe: once it is closed, the child's first write fails with EPIPE.
    proc.child.stdout?.destroy();
    const closed = await finished(proc);
    expect(closed.stderr).not.toMatch(crashed);
    expect(closed).toMatchObject({ code: read.code, signal: null });
  });

  it('build --dry-run | head -1: the reader goes away after the first line of a long output', async () => {
    const cities = (await readFile(new URL('../../../data/city-codes.tsv', import.meta.url), 'utf8'))
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((line) => line.split('\t')[0]);
    // Two cash directions in every city: about 150 kB of XML, more than a pipe's buffer holds, so the
    // child is still writing when the reader closes.
    const config = sampleConfig.replace(
      /directions:\n[\s\S]*$/,
      `directions:\n  - { from: [BTC, USDTTRC20], to: CASHRUB, cities: [${cities.join(', ')}], tags: [ref, cash] }\n`,
    );
    const made = await project({ 'ratefile.config.yaml': config });
    const whole = spawnRatefile(['build', '--dry-run'], { cwd: made.dir });
    expect((await whole.exited).code).toBe(0);
    expect(whole.stdout().length).toBeGreaterThan(128 * 1024);

    const proc = spawnRatefile(['build', '--dry-run'], { cwd: made.dir });
    let first = '';
    proc.child.stdout?.on('data', (chunk: string) => {
      first ||= chunk.split('\n')[0] ?? '';
      proc.child.stdout?.destroy();
    });
    const closed = await finished(proc);
    expect(first).toMatch(/^==> public\/\w+\.xml \(\d+ bytes\) <==$/);
    expect(closed.stderr).not.toMatch(crashed);
    expect(closed).toMatchObject({ code: 0, signal: null });
    // Nothing was written to disk by a dry run.
    await expect(readFile(join(made.dir, 'public', 'parserfile.xml'))).rejects.toThrow(/ENOENT/);
  });
});
