// The output and state folders are checked before anything is written: `build` and `start` exit 2 naming the
// key and the problem, and no export is written. Tests run as root, where permission bits stop nothing, so the
// unwritable cases are ones that fail for root too: a file where a folder should be, a path through a file
// (ENOTDIR), a NUL in the path, and sysfs (/sys), where even root may not create files or folders.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectsPerTest, sampleConfig } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';

const project = projectsPerTest();

/** Every file under `dir` (none when it does not exist). */
async function filesUnder(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

const sysfs = existsSync('/sys/kernel');

describe('build refuses unusable output and state folders before writing any export', () => {
  it.each([
    [
      'state is a file',
      'state: quotes.json\n',
      [],
      (dir: string) => `state: expected a folder, got a file (${join(dir, 'quotes.json')})`,
    ],
    [
      'state is under a file',
      'state: quotes.json/state\n',
      [],
      (dir: string) => `state: cannot use ${join(dir, 'quotes.json', 'state')}: ENOTDIR`,
    ],
    [
      'output is a file',
      'output: quotes.json\n',
      [],
      (dir: string) => `output: expected a folder, got a file (${join(dir, 'quotes.json')})`,
    ],
    [
      '--out is a file',
      '',
      ['--out', 'quotes.json'],
      (dir: string) => `--out: expected a folder, got a file (${join(dir, 'quotes.json')})`,
    ],
    [
      'state is inside --out',
      '',
      ['--out', '.'],
      (dir: string) =>
        `state: expected a folder outside the output folder ${dir} (--out), got ${join(dir, '.ratefile')}`,
    ],
  ])('%s: exit 2 naming the key, nothing written', async (_name, extraConfig, args, expected) => {
    const { dir } = await project({ 'ratefile.config.yaml': `${sampleConfig}${extraConfig}` });
    const result = await runRatefile(['build', ...args], dir);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^ratefile: cannot use the output and state folders: 1 problem\n/);
    expect(result.stderr).toContain(`  ${expected(dir)}`);
    expect((await filesUnder(join(dir, 'public'))).filter((name) => name.includes('.xml'))).toEqual([]);
    expect(await filesUnder(dir)).not.toContain('parserfile.xml');
  });

  it('a NUL in the state or output path is a config problem with its line', async () => {
    const { dir } = await project({
      'ratefile.config.yaml': `${sampleConfig}state: "st\\0ate"\noutput: "pub\\0lic"\n`,
    });
    const result = await runRatefile(['build'], dir);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('  state: expected a folder path, got one with a NUL character (line 15)\n');
    expect(result.stderr).toContain('  output: expected a folder path, got one with a NUL character (line 16)\n');
    expect(await filesUnder(dir)).not.toContain('parserfile.xml');
  });

  it.skipIf(!sysfs)('a folder even root cannot write in (/sys) or create (/sys/…): exit 2', async () => {
    const { dir } = await project({
      'ratefile.config.yaml': `${sampleConfig}state: /sys\noutput: /sys/ratefile-test-output\n`,
    });
    const result = await runRatefile(['build'], dir);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^ratefile: cannot use the output and state folders: 2 problems\n/);
    expect(result.stderr).toMatch(/^ {2}output: cannot create the folder \/sys\/ratefile-test-output: E[A-Z]+/m);
    expect(result.stderr).toMatch(/^ {2}state: cannot write in the folder \/sys: E[A-Z]+/m);
  });
});

describe('start refuses them too, before building or listening', () => {
  it('state is a file: exit 2, nothing served or written', async () => {
    const { dir } = await project({ 'ratefile.config.yaml': `${sampleConfig}state: quotes.json\n` });
    const result = await runRatefile(['start', '--port', '0', '--host', '127.0.0.1'], dir);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`  state: expected a folder, got a file (${join(dir, 'quotes.json')})\n`);
    expect(result.stderr).not.toContain('serving');
    expect(await filesUnder(join(dir, 'public'))).toEqual([]);
  });
});

describe('accept and maintenance write only to the state folder, and check it first', () => {
  it.each([
    ['maintenance on', ['maintenance', 'on']],
    ['accept', ['accept', 'BTC', 'SBERRUB']],
  ])('%s with state a file: exit 2 naming the key, not an unexpected error', async (_name, args) => {
    const { dir } = await project({ 'ratefile.config.yaml': `${sampleConfig}state: quotes.json\n` });
    const result = await runRatefile(args, dir);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(
      `ratefile: cannot use the state folder\n  state: expected a folder, got a file (${join(dir, 'quotes.json')})\n`,
    );
  });
});
