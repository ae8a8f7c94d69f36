// `ratefile init`: a starter project that loads without warnings, builds (exit 0) into files that pass the check, and never overwrites.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkExport } from '../../../src/pure/check/index.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { starterFiles } from '../../../src/commands/init.js';
import { fixedNow, runRatefile } from '../../support/run-cli.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-init-'));
  dirs.push(dir);
  return dir;
}

const written = [
  'exchange.json',
  'quotes.json',
  'ratefile.config.yaml',
  'templates/affiliatefile.yaml',
  'templates/parserfile.yaml',
  'templates/reffile.yaml',
];

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(join(dir, prefix), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory() ? listFiles(dir, join(prefix, e.name)) : Promise.resolve([join(prefix, e.name)]),
    ),
  );
  return nested.flat().sort();
}

describe('ratefile init', () => {
  it('every doc the starter files name exists: docs/ pages, their headings, and README headings', () => {
    const root = new URL('../../../', import.meta.url);
    const headings = (file: string) =>
      [...readFileSync(new URL(file, root), 'utf8').matchAll(/^#+ (.*)$/gm)].map((m) => m[1]!.trim());
    const named: string[] = [];
    for (const text of Object.values(starterFiles())) {
      for (const [, path, anchor] of text.matchAll(/\b(docs\/[\w/.-]+\.md)(?:#([\w-]+))?/g)) {
        named.push(path!);
        expect(existsSync(new URL(path!, root)), path).toBe(true);
        if (anchor !== undefined)
          expect(
            headings(path!).map((h) =>
              h
                .toLowerCase()
                .replace(/[^\w\- ]/g, '')
                .replace(/ /g, '-'),
            ),
            `${path}#${anchor}`,
          ).toContain(anchor);
      }
      // "the README's "X"": a heading of the README.
      for (const [, heading] of text.matchAll(/README's "([^"]+)"/g)) expect(headings('README.md')).toContain(heading);
    }
    expect(named).toContain('docs/configuration.md');
  });

  it('writes the config, the three templates and the quotes file into a new folder, and says what next', async () => {
    const cwd = await tempDir();
    const result = await runRatefile(['init', 'shop'], cwd);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(await listFiles(join(cwd, 'shop'))).toEqual(written);
    expect(result.stdout).toContain(
      'created a ratefile project in shop:\n  ratefile.config.yaml\n  quotes.json\n  exchange.json\n',
    );
    expect(result.stdout).toContain('ratefile build --config shop/ratefile.config.yaml --dry-run');
    for (const [name, text] of Object.entries(starterFiles()))
      expect(await readFile(join(cwd, 'shop', name), 'utf8')).toBe(text);
  });

  it('the starter config listens on 127.0.0.1, and its commands run as written in the folder (no npx of an unpublished package)', async () => {
    const cwd = await tempDir();
    expect((await runRatefile(['init'], cwd)).code).toBe(0);
    const text = await readFile(join(cwd, 'ratefile.config.yaml'), 'utf8');
    expect(text).not.toMatch(/npx|npm install/);
    expect((await loadConfig(join(cwd, 'ratefile.config.yaml'), cwd)).server.host).toBe('127.0.0.1');
    const { mtime } = await stat(join(cwd, 'quotes.json'));
    const commands = [...text.matchAll(/^# \w[\w ]*: +ratefile (validate|build --dry-run|explain BTC SBERRUB) /gm)].map(
      (match) => match[1] ?? '',
    );
    expect(commands).toEqual(['validate', 'build --dry-run', 'explain BTC SBERRUB']);
    for (const command of commands) {
      const result = await runRatefile(command.split(' '), cwd, { now: () => new Date(mtime.getTime() + 1000) });
      expect(result.code, `${command}: ${result.stderr}`).toBe(0);
    }
  });

  it('the starter config is commented, loads without a warning, and the build passes (exit 0) with files that pass the check', async () => {
    const cwd = await tempDir();
    expect((await runRatefile(['init'], cwd)).code).toBe(0);
    const configText = await readFile(join(cwd, 'ratefile.config.yaml'), 'utf8');
    expect(configText.split('\n').filter((line) => line.startsWith('#')).length).toBeGreaterThan(20);
    const config = await loadConfig(join(cwd, 'ratefile.config.yaml'), cwd);
    expect(config.warnings).toEqual([]);
    expect(config.exports.map((e) => e.file)).toEqual(['affiliatefile.xml', 'parserfile.xml', 'reffile.xml']);

    // The quotes are as old as the file: take the clock from it, as if the build ran right after init.
    const { mtime } = await stat(join(cwd, 'quotes.json'));
    const build = await runRatefile(['build', '--config', join(cwd, 'ratefile.config.yaml')], '/', {
      now: () => new Date(mtime.getTime() + 1000),
    });
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toMatch(
      /info build: published 5 directions, 0 held back; affiliatefile\.xml 5 items \(written\), parserfile\.xml 5 items \(written\), reffile\.xml 2 items \(written\)/,
    );
    for (const file of ['parserfile.xml', 'reffile.xml', 'affiliatefile.xml']) {
      const result = checkExport(await readFile(join(cwd, 'public', file)), file);
      expect(result.findings, file).toEqual([]);
    }
    const check = await runRatefile(
      ['check', 'public/parserfile.xml', 'public/reffile.xml', 'public/affiliatefile.xml'],
      cwd,
    );
    expect(check.code).toBe(0);
  });

  it('retires the example quotes after five minutes: only the direction that needs no quote stays, and the build says the quotes are stale', async () => {
    const cwd = await tempDir();
    expect((await runRatefile(['init'], cwd)).code).toBe(0);
    const { mtime } = await stat(join(cwd, 'quotes.json'));
    const build = await runRatefile(['build'], cwd, { now: () => new Date(mtime.getTime() + 6 * 60_000) });
    // A source that sent a quote too old to use makes the exit code 1 (README, Exit codes; issue 23): files are written all the same.
    expect(build.code, build.stderr).toBe(1);
    expect(build.stderr).toMatch(
      /source backoffice: dropped quote BTC\/USDT: 36\d s old, past its maxAge of 300 s: not used/,
    );
    // Both sources of the consensus are past their maxAge: it has no fresh term, and says so of each.
    expect(build.stderr).toMatch(
      /held back BTC → USDTTRC20 \(directions\[0\]\): no quote for BTC\/USDT \(median of 2: 0 fresh of 2 terms, quorum 2 \(backoffice: backoffice:BTC\/USDT is 6 min old, past its source's maxAge; exchange: exchange:BTC\/USDT is 6 min old/,
    );
    expect(build.stderr).toContain('published 1 direction, 4 held back');
    expect(await readFile(join(cwd, 'public', 'parserfile.xml'), 'utf8')).toContain(
      '<from>SBERRUB</from>\n    <to>TCSBRUB</to>',
    );
  });

  it('refuses to overwrite: exit 2 naming every existing file, and writes nothing', async () => {
    const cwd = await tempDir();
    await mkdir(join(cwd, 'templates'));
    await writeFile(join(cwd, 'ratefile.config.yaml'), 'mine\n');
    await writeFile(join(cwd, 'templates', 'reffile.yaml'), 'mine too\n');
    const result = await runRatefile(['init'], cwd, { now: fixedNow });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `ratefile: refusing to overwrite existing files in ${cwd} (nothing was written)\n  ${join(cwd, 'ratefile.config.yaml')}\n  ${join(cwd, 'templates', 'reffile.yaml')}\n`,
    );
    expect(await listFiles(cwd)).toEqual(['ratefile.config.yaml', 'templates/reffile.yaml']);
    expect(await readFile(join(cwd, 'ratefile.config.yaml'), 'utf8')).toBe('mine\n');
  });

  it('a second init in the same folder refuses every file', async () => {
    const cwd = await tempDir();
    expect((await runRatefile(['init', '.'], cwd)).code).toBe(0);
    const again = await runRatefile(['init', '.'], cwd);
    expect(again.code).toBe(2);
    expect(again.stderr.trimEnd().split('\n')).toHaveLength(1 + written.length);
  });
});
