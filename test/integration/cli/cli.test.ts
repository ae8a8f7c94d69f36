// The `ratefile` command line run in-process: run(argv, deps) with collected stdout/stderr, a fixed clock,
// no network, and a throwaway project folder as the working directory.
import { readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run, type CliDeps } from '../../../src/cli.js';
import { projectsPerTest, sampleConfig } from '../../support/project.js';
import { xmlErrors } from '../../support/xml.js';

/** An export as published: the file and its gzip and brotli copies. */
const withCompressed = (files: readonly string[]) => files.flatMap((file) => [file, `${file}.br`, `${file}.gz`]).sort();

const exportFiles = ['affiliatefile.xml', 'parserfile.xml', 'reffile.xml'];
const now = () => new Date('2026-11-21T12:00:30Z');
const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../fixtures/configs/${name}`, import.meta.url)), 'utf8');
const sampleSnapshot = (file: string) =>
  readFile(fileURLToPath(new URL(`../../fixtures/snapshots/sample/${file}`, import.meta.url)), 'utf8');
const emptyExport = '<?xml version="1.0" encoding="UTF-8"?>\n<rates></rates>\n';

const project = projectsPerTest();

interface Collector {
  write(text: string): boolean;
  text(): string;
}

function collector(): Collector {
  const chunks: string[] = [];
  return {
    write(text) {
      chunks.push(text);
      return true;
    },
    text: () => chunks.join(''),
  };
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Log lines without their wall-clock timestamp: `info build: …`. */
const logLines = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /, ''));

const offlineFetch: typeof globalThis.fetch = (input) =>
  Promise.reject(new Error(`network disabled in unit tests: ${String(input)}`));

/** `ratefile ...args` in `cwd`; `extra` may add deps that need the live output (e.g. waitForStop). */
async function ratefile(
  args: readonly string[],
  cwd: string,
  extra: (io: { stdout: Collector; stderr: Collector }) => Partial<CliDeps> = () => ({}),
): Promise<Outcome> {
  const stdout = collector();
  const stderr = collector();
  const code = await run(['node', 'ratefile', ...args], {
    stdout,
    stderr,
    env: {},
    cwd,
    now,
    fetch: offlineFetch,
    waitForStop: () => Promise.reject(new Error('this command was not expected to wait for a signal')),
    ...extra({ stdout, stderr }),
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

async function missing(path: string): Promise<void> {
  await expect(stat(path)).rejects.toMatchObject({ code: 'ENOENT' });
}

describe('ratefile build', () => {
  it('writes the three exports into <project>/public, exits 0 and logs one summary line', async () => {
    const { dir } = await project();
    const result = await ratefile(['build'], dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(logLines(result.stderr)).toHaveLength(1);
    expect(logLines(result.stderr)[0]).toMatch(
      /^info build: published 4 directions, 0 held back; affiliatefile\.xml 3 items \(written\), parserfile\.xml 5 items \(written\), reffile\.xml 4 items \(written\); \d+ ms → public$/,
    );
    // Only the exports: no temporary files left behind.
    expect((await readdir(join(dir, 'public'))).sort()).toEqual(withCompressed(exportFiles));
    for (const file of exportFiles) {
      const xml = await readFile(join(dir, 'public', file), 'utf8');
      expect(await xmlErrors(xml, file)).toEqual([]);
      expect(xml).toBe(await sampleSnapshot(file));
    }
  });

  it('a second build with the same input reports the files unchanged and does not rewrite them', async () => {
    const { dir } = await project();
    expect((await ratefile(['build'], dir)).code).toBe(0);
    const before = await Promise.all(exportFiles.map((file) => stat(join(dir, 'public', file))));
    const second = await ratefile(['build'], dir);
    expect(second.code).toBe(0);
    expect(logLines(second.stderr)).toHaveLength(1);
    expect(logLines(second.stderr)[0]).toMatch(
      /^info build: published 4 directions, 0 held back; affiliatefile\.xml 3 items \(unchanged\), parserfile\.xml 5 items \(unchanged\), reffile\.xml 4 items \(unchanged\); \d+ ms → public$/,
    );
    const after = await Promise.all(exportFiles.map((file) => stat(join(dir, 'public', file))));
    expect(after.map((entry) => [entry.ino, entry.mtimeMs])).toEqual(before.map((entry) => [entry.ino, entry.mtimeMs]));
  });

  it('rewrites only the files whose bytes change', async () => {
    const { dir, write } = await project();
    expect((await ratefile(['build'], dir)).code).toBe(0);
    const before = await stat(join(dir, 'public', 'parserfile.xml'));
    await write('templates/parserfile.yaml', 'description: every direction\nmarkup: 1%\n');
    const result = await ratefile(['build'], dir);
    expect(result.code).toBe(0);
    expect(logLines(result.stderr)[0]).toMatch(
      /affiliatefile\.xml 3 items \(unchanged\), parserfile\.xml 5 items \(written\), reffile\.xml 4 items \(unchanged\)/,
    );
    expect((await stat(join(dir, 'public', 'parserfile.xml'))).ino).not.toBe(before.ino);
  });

  it('--out DIR writes there (relative to the cwd) and not into public/', async () => {
    const { dir } = await project();
    const result = await ratefile(['build', '--out', 'site/exports'], dir);
    expect(result.code).toBe(0);
    expect(logLines(result.stderr)[0]).toMatch(/ → site\/exports$/);
    expect((await readdir(join(dir, 'site', 'exports'))).sort()).toEqual(withCompressed(exportFiles));
    expect(await readFile(join(dir, 'site', 'exports', 'parserfile.xml'), 'utf8')).toBe(
      await sampleSnapshot('parserfile.xml'),
    );
    await missing(join(dir, 'public'));
  });

  it('--config finds a config in another folder; its output is next to it', async () => {
    const { dir } = await project({
      'conf/ratefile.config.yaml': sampleConfig
        .replace('path: quotes.json', 'path: ../quotes.json')
        .replace('sources:', 'templates: ../templates\nsources:'),
    });
    const result = await ratefile(['build', '--config', 'conf/ratefile.config.yaml'], dir);
    expect(result.code).toBe(0);
    expect((await readdir(join(dir, 'conf', 'public'))).sort()).toEqual(withCompressed(exportFiles));
    await missing(join(dir, 'public'));
  });

  it('--dry-run prints each document under a "==> path (N bytes) <==" header and writes nothing', async () => {
    const { dir } = await project();
    const result = await ratefile(['build', '--dry-run'], dir);
    expect(result.code).toBe(0);
    const parts = result.stdout.split(/^==> (.+) \((\d+) bytes\) <==\n/m);
    expect(parts[0]).toBe('');
    const documents: { path: string; bytes: number; text: string }[] = [];
    for (let index = 1; index < parts.length; index += 3) {
      documents.push({ path: parts[index] ?? '', bytes: Number(parts[index + 1]), text: parts[index + 2] ?? '' });
    }
    expect(documents.map((document) => document.path)).toEqual(exportFiles.map((file) => `public/${file}`));
    for (const [index, document] of documents.entries()) {
      const file = exportFiles[index] ?? '';
      expect(Buffer.byteLength(document.text)).toBe(document.bytes);
      expect(document.text).toBe(await sampleSnapshot(file));
      expect(await xmlErrors(document.text, file)).toEqual([]);
    }
    await missing(join(dir, 'public'));
  });

  it('--dry-run with --out names that folder in the headers and still writes nothing', async () => {
    const { dir } = await project();
    const result = await ratefile(['build', '--dry-run', '--out', 'elsewhere'], dir);
    expect(result.code).toBe(0);
    expect([...result.stdout.matchAll(/^==> (\S+) /gm)].map((match) => match[1])).toEqual(
      exportFiles.map((file) => `elsewhere/${file}`),
    );
    await missing(join(dir, 'elsewhere'));
    await missing(join(dir, 'public'));
  });

  it('logs warnings for codes and cities not on the monitors’ lists, and still builds', async () => {
    const { dir } = await project({ 'ratefile.config.yaml': sampleConfig.replace('[MSK, SPB]', '[MSK, SPBB]') });
    const result = await ratefile(['build'], dir);
    expect(result.code).toBe(0);
    expect(logLines(result.stderr)[0]).toBe(
      'warn directions[2].cities: "SPBB" is not in the monitors\' city list (closest: SPB) (line 14)',
    );
    expect((await readdir(join(dir, 'public'))).sort()).toEqual(withCompressed(exportFiles));
  });
});

describe('ratefile build with a broken config', () => {
  const brokenLines = [
    '  schedule: expected a cron expression like "*/30 * * * * *", got "every minute" (line 2)',
    '  currencies.SBERRUB.precision: expected an integer 0..18, got -1 (line 8)',
    '  directions[3].margin: expected a percentage like "1.5%", got "abc" (line 16)',
    '  directions[4].to: unknown currency "SBERUB" (did you mean "SBERRUB"?); expected a key of currencies (line 17)',
    '  directions[5].marign: unknown key (did you mean "margin"?) (line 18)',
  ];

  it('prints every problem with its path and line to stderr, exits 2 and writes nothing', async () => {
    const { dir } = await project({ 'broken.yaml': fixture('broken.yaml') });
    const result = await ratefile(['build', '--config', 'broken.yaml'], dir);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n').filter((line) => line !== '');
    const problemLines = lines.slice(1);
    expect(lines[0]).toBe(`ratefile: broken.yaml: ${problemLines.length} problems`);
    expect(problemLines).toEqual(expect.arrayContaining(brokenLines));
    expect(problemLines.every((line) => /^ {2}\S.*: .+ \(line \d+\)$/.test(line))).toBe(true);
    await missing(join(dir, 'public'));
  });

  it('leaves an already published file byte-identical', async () => {
    const published = '<?xml version="1.0" encoding="UTF-8"?>\n<rates><!-- last good --></rates>\n';
    const { dir } = await project({ 'broken.yaml': fixture('broken.yaml'), 'public/parserfile.xml': published });
    const before = await stat(join(dir, 'public', 'parserfile.xml'));
    const result = await ratefile(['build', '--config', 'broken.yaml'], dir);
    expect(result.code).toBe(2);
    expect(await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8')).toBe(published);
    expect((await stat(join(dir, 'public', 'parserfile.xml'))).ino).toBe(before.ino);
    expect(await readdir(join(dir, 'public'))).toEqual(['parserfile.xml']);
  });

  it('--dry-run on a broken config prints no document', async () => {
    const { dir } = await project({ 'broken.yaml': fixture('broken.yaml') });
    const result = await ratefile(['build', '--dry-run', '--config', 'broken.yaml'], dir);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual(expect.arrayContaining(brokenLines));
  });

  it('a template problem fails the build the same way', async () => {
    const { dir } = await project({ 'templates/reffile.yaml': 'aliases: { USDTTRC2: USDTTRC }\n' });
    const result = await ratefile(['build'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'ratefile: ratefile.config.yaml: 1 problem\n' +
        '  templates/reffile.yaml: aliases.USDTTRC2: unknown currency "USDTTRC2" (did you mean "USDTTRC20"?); expected a key of currencies (line 1)\n',
    );
    await missing(join(dir, 'public'));
  });

  it('a missing config file: one line and how to get one, exit 2', async () => {
    const { dir } = await project();
    const result = await ratefile(['build', '--config', 'missing.yaml'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'ratefile: missing.yaml: file not found\n  create one here with `ratefile init`, or name yours with --config PATH (or RATEFILE_CONFIG)\n',
    );
    await missing(join(dir, 'public'));
  });

  it('--debug adds the stack trace', async () => {
    const { dir } = await project();
    const result = await ratefile(['--debug', 'build', '--config', 'missing.yaml'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^ratefile: missing\.yaml: file not found\n {2}create one .*\nRatefileError: missing\.yaml: file not found\n\s+at /,
    );
  });
});

describe('ratefile build with a broken quotes source', () => {
  it('invalid JSON: exit 1, stderr names the source, every export written empty', async () => {
    const { dir } = await project({ 'quotes.json': '{ "quotes": [' });
    const result = await ratefile(['build'], dir);
    expect(result.code).toBe(1);
    const lines = logLines(result.stderr);
    expect(lines[0]).toMatch(/^warn source backoffice failed: backoffice: .*quotes\.json: not valid JSON: /);
    expect(lines).toContain(
      'warn held back BTC → SBERRUB (directions[0]): no quotes lead from BTC to RUB (failing sources: backoffice)',
    );
    expect(lines.at(-1)).toMatch(
      /^info build: published 0 directions, 4 held back; .*; failing sources: backoffice → public$/,
    );
    for (const file of exportFiles) expect(await readFile(join(dir, 'public', file), 'utf8')).toBe(emptyExport);
  });

  it('a failing source takes out only the directions that need its quotes', async () => {
    const config = sampleConfig
      .replace('sources:\n', 'sources:\n  ethdesk: { type: file, path: eth.json }\n')
      .replace('currencies:\n', 'currencies:\n  ETH: { reserve: "50" }\n')
      .concat('  - { from: ETH, to: USDTTRC20, tags: [ref] }\n');
    const { dir } = await project({
      'ratefile.config.yaml': config,
      'eth.json': JSON.stringify([{ pair: 'ETH/USDT', bid: 'lots', ask: '3000' }]),
    });
    const result = await ratefile(['build'], dir);
    expect(result.code).toBe(1);
    const lines = logLines(result.stderr);
    // Its only quote is malformed: dropped by its index, which leaves the source nothing to give.
    expect(lines[0]).toBe('warn source ethdesk failed: ethdesk: none of its quotes is usable (1 dropped)');
    expect(lines).toContain(
      'warn source ethdesk: dropped quote ETH/USDT: [0].bid: expected a non-negative decimal like "12.5", got "lots"',
    );
    expect(lines).toContain(
      'warn held back ETH → USDTTRC20 (directions[3]): no quotes lead from ETH to USDT (failing sources: ethdesk)',
    );
    expect(lines.at(-1)).toMatch(
      /^info build: published 4 directions, 1 held back; .*; failing sources: ethdesk → public$/,
    );
    // The directions that only need the working source are published as usual.
    expect(await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8')).toBe(await sampleSnapshot('parserfile.xml'));
    expect(await readFile(join(dir, 'public', 'reffile.xml'), 'utf8')).not.toContain('<from>ETH</from>');
  });

  it('a quote with bid above ask or a zero price is dropped and logged, and the directions needing it are held back', async () => {
    const quotes = {
      quotes: [
        { pair: 'BTC/USDT', bid: '97012.40', ask: '97012.31' },
        { pair: 'USDT/RUB', bid: '0', ask: '92.35' },
      ],
    };
    const { dir } = await project({ 'quotes.json': JSON.stringify(quotes) });
    const result = await ratefile(['build'], dir);
    // Exit 1 tells a cron job that a quote was unusable; the files are still written without it.
    expect(result.code).toBe(1);
    const lines = logLines(result.stderr);
    expect(lines).toContain('warn source backoffice: dropped quote BTC/USDT: bid 97012.40 is above ask 97012.31');
    expect(lines).toContain('warn source backoffice: dropped quote USDT/RUB: bid "0" is not a positive decimal');
    expect(lines.filter((line) => line.startsWith('warn held back '))).toHaveLength(4);
    expect(lines.at(-1)).toMatch(/^info build: published 0 directions, 4 held back; /);
    for (const file of exportFiles) expect(await readFile(join(dir, 'public', file), 'utf8')).toBe(emptyExport);
  });

  it('a missing quotes file fails the source, naming it', async () => {
    const { dir } = await project({
      'ratefile.config.yaml': sampleConfig.replace('path: quotes.json', 'path: nowhere.json'),
    });
    const result = await ratefile(['build'], dir);
    expect(result.code).toBe(1);
    expect(logLines(result.stderr)[0]).toMatch(
      /^warn source backoffice failed: backoffice: cannot read quotes file .*nowhere\.json: ENOENT/,
    );
    for (const file of exportFiles) expect(await readFile(join(dir, 'public', file), 'utf8')).toBe(emptyExport);
  });
});

describe('usage', () => {
  it('--help prints the commands (file snapshot) and exits 0', async () => {
    const { dir } = await project();
    const result = await ratefile(['--help'], dir);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    for (const command of ['build', 'serve', 'start', 'schema'])
      expect(result.stdout).toMatch(new RegExp(`^ {2}${command} \\[options\\] +\\S`, 'm'));
    await expect(result.stdout).toMatchFileSnapshot('../../fixtures/snapshots/cli/help.txt');
  });

  it('build --help lists its options', async () => {
    const { dir } = await project();
    const result = await ratefile(['build', '--help'], dir);
    expect(result.code).toBe(0);
    await expect(result.stdout).toMatchFileSnapshot('../../fixtures/snapshots/cli/build-help.txt');
    for (const option of ['--config <path>', '--out <dir>', '--dry-run']) expect(result.stdout).toContain(option);
    // The global options work after the command too, so its help lists them.
    expect(result.stdout).toMatch(/^Global Options:\n(.*\n)* {2}--log-format <format> /m);
    for (const option of ['--quiet', '--debug']) expect(result.stdout.split('Global Options:')[1]).toContain(option);
  });

  it('--version and -V print the version of package.json', async () => {
    const { version } = JSON.parse(
      readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8'),
    ) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    const { dir } = await project();
    for (const flag of ['--version', '-V']) {
      const result = await ratefile([flag], dir);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    }
  });

  it('an unknown command exits 2 with one line and a hint, not the whole help', async () => {
    const { dir } = await project();
    const result = await ratefile(['frobnicate'], dir);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe("error: unknown command 'frobnicate'\n(add --help for usage)\n");
  });

  it('no command exits 2 and shows the help', async () => {
    const { dir } = await project();
    const result = await ratefile([], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: ratefile [options] [command]');
  });

  it('an unknown option exits 2 and writes nothing', async () => {
    const { dir } = await project();
    const result = await ratefile(['build', '--dryrun'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: unknown option '--dryrun'\n(Did you mean --dry-run?)\n(add --help for usage)\n");
    await missing(join(dir, 'public'));
  });

  it.each([
    ['serve', 'abc'],
    ['start', 'abc'],
    ['start', '70000'],
    ['serve', '-1'],
  ])('%s --port %s exits 2 before doing anything', async (command, port) => {
    const { dir } = await project();
    const result = await ratefile([command, '--port', port], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`argument '${port}' is invalid. expected a port number 0..65535`);
    await missing(join(dir, 'public'));
  });
});

describe('ratefile schema', () => {
  it('prints the JSON Schema of the config', async () => {
    const { dir } = await project();
    const result = await ratefile(['schema'], dir);
    expect(result.code).toBe(0);
    const schema = JSON.parse(result.stdout) as {
      $schema?: unknown;
      type?: unknown;
      properties?: Record<string, unknown>;
      required?: unknown;
    };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties ?? {})).toEqual(
      expect.arrayContaining([
        'schedule',
        'server',
        'output',
        'templates',
        'sources',
        'currencies',
        'defaults',
        'directions',
      ]),
    );
    expect(schema.required).toEqual(expect.arrayContaining(['sources', 'currencies', 'directions']));
  });

  it('--template prints the template schema instead', async () => {
    const { dir } = await project();
    const result = await ratefile(['schema', '--template'], dir);
    expect(result.code).toBe(0);
    const schema = JSON.parse(result.stdout) as {
      properties?: Record<string, unknown>;
      additionalProperties?: unknown;
    };
    const keys = Object.keys(schema.properties ?? {});
    expect(keys).toEqual(expect.arrayContaining(['description', 'include', 'exclude', 'aliases', 'markup', 'url']));
    expect(keys).not.toContain('directions');
    expect(schema.additionalProperties).toBe(false);
  });
});

describe('ratefile serve and start', () => {
  /** A waitForStop that fetches `file` from the announced address, keeps the response, then stops. */
  function fetchThenStop(
    stderr: Collector,
    file: string,
    signal: string,
    seen: { status?: number; type?: string | null; body?: string },
  ) {
    return async (): Promise<string> => {
      const match = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr.text());
      if (!match?.[1]) throw new Error(`no address logged:\n${stderr.text()}`);
      const response = await fetch(new URL(file, match[1]));
      seen.status = response.status;
      seen.type = response.headers.get('content-type');
      seen.body = await response.text();
      return signal;
    };
  }

  it('serve --out serves the folder until the stop signal, then exits 0', async () => {
    const { dir } = await project();
    await mkdir(join(dir, 'out'));
    await writeFile(join(dir, 'out', 'parserfile.xml'), emptyExport);
    const seen: { status?: number; type?: string | null; body?: string } = {};
    const result = await ratefile(
      ['serve', '--out', 'out', '--port', '0', '--host', '127.0.0.1'],
      dir,
      ({ stderr }) => ({
        waitForStop: fetchThenStop(stderr, 'parserfile.xml', 'SIGTERM', seen),
      }),
    );
    expect(result.code).toBe(0);
    expect(seen).toEqual({ status: 200, type: 'application/xml', body: emptyExport });
    const lines = logLines(result.stderr);
    expect(lines[0]).toMatch(/^info serving out at http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(lines.at(-1)).toBe('info SIGTERM: stopping');
  });

  it('start builds before serving, then stops cleanly on the signal', async () => {
    const { dir } = await project();
    const seen: { status?: number; type?: string | null; body?: string } = {};
    const result = await ratefile(['start', '--port', '0', '--host', '127.0.0.1'], dir, ({ stderr }) => ({
      waitForStop: fetchThenStop(stderr, 'reffile.xml', 'SIGINT', seen),
    }));
    expect(result.code).toBe(0);
    expect(seen).toEqual({ status: 200, type: 'application/xml', body: await sampleSnapshot('reffile.xml') });
    const lines = logLines(result.stderr);
    expect(lines[0]).toMatch(/^info build: published 4 directions, 0 held back; /);
    expect(lines.slice(-2)).toEqual(['info SIGINT: finishing the running build, then stopping', 'info stopped']);
    expect((await readdir(join(dir, 'public'))).sort()).toEqual(withCompressed(exportFiles));
  });

  it('start with a broken config exits 2 without serving or writing', async () => {
    const { dir } = await project({ 'broken.yaml': fixture('broken.yaml') });
    const result = await ratefile(['start', '--config', 'broken.yaml', '--port', '0', '--host', '127.0.0.1'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^ratefile: broken\.yaml: \d+ problems\n/);
    expect(result.stderr).not.toContain('serving');
    await missing(join(dir, 'public'));
  });
});

describe('CLI conventions', () => {
  it('RATEFILE_CONFIG is the default of --config; --config still wins', async () => {
    const { dir } = await project({ 'broken.yaml': fixture('broken.yaml') });
    const env = { env: { RATEFILE_CONFIG: 'broken.yaml' } };
    const fromEnv = await ratefile(['validate'], dir, () => env);
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toMatch(/^ratefile: broken\.yaml: \d+ problems\n/);
    const given = await ratefile(['validate', '--config', 'ratefile.config.yaml'], dir, () => env);
    expect(given.code, given.stderr).toBe(0);
  });

  it('validate checks config and templates, fetches and writes nothing: exit 0, or 2 with every problem', async () => {
    const { dir } = await project({ 'broken.yaml': fixture('broken.yaml') });
    const fetched: string[] = [];
    const noFetch = () => ({
      fetch: ((input: Parameters<typeof globalThis.fetch>[0]) => {
        fetched.push(String(input));
        return Promise.reject(new Error('no fetch expected'));
      }) as typeof globalThis.fetch,
    });
    const ok = await ratefile(['validate'], dir, noFetch);
    expect(ok).toEqual({
      code: 0,
      stdout: [
        'ratefile.config.yaml: ok — 4 directions, 1 source, 3 exports (affiliatefile.xml, parserfile.xml, reffile.xml)',
        // One file source prices every pair: the config alone says no reference could check them.
        'priced by one source: 4 directions, 4 without a possible reference (one broken source can set their rate: docs/pricing-and-guards.md)',
        '  BTC to RUB (quotes of backoffice): no reference possible — BTC → SBERRUB',
        '  BTC to USDT (quotes of backoffice): no reference possible — BTC → USDTTRC20',
        '  RUB to USDT (quotes of backoffice): no reference possible — SBERRUB → USDTTRC20',
        '  USDT to RUB (quotes of backoffice): no reference possible — USDTTRC20 → CASHRUB',
        '',
      ].join('\n'),
      stderr: '',
    });
    const broken = await ratefile(['validate', '--config', 'broken.yaml'], dir, noFetch);
    expect(broken.code).toBe(2);
    expect(broken.stderr.split('\n').length).toBeGreaterThan(3);
    await writeFile(join(dir, 'templates', 'reffile.yaml'), 'root: [\n');
    const badTemplate = await ratefile(['validate'], dir, noFetch);
    expect(badTemplate.code).toBe(2);
    expect(badTemplate.stderr).toContain('reffile.yaml');
    expect(fetched).toEqual([]);
    await missing(join(dir, 'public'));
    await missing(join(dir, '.ratefile'));
  });

  it('--quiet drops the info lines, not the warnings', async () => {
    const { dir } = await project();
    await writeFile(
      join(dir, 'quotes.json'),
      JSON.stringify({ quotes: [{ pair: 'BTC/USDT', bid: '97012.30', ask: '97012.31' }] }),
    );
    const loud = await ratefile(['build'], dir);
    expect(logLines(loud.stderr).some((line) => line.startsWith('info build: '))).toBe(true);
    const quiet = await ratefile(['--quiet', 'build'], dir);
    expect(quiet.code).toBe(loud.code);
    const lines = logLines(quiet.stderr);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line.startsWith('warn '))).toBe(true);
    expect(logLines((await ratefile(['build', '-q'], dir)).stderr)).toEqual(lines);
  });

  it('status counts in the singular when there is one: "1 quote"', async () => {
    const { dir } = await project();
    await writeFile(
      join(dir, 'quotes.json'),
      JSON.stringify({ quotes: [{ pair: 'BTC/USDT', bid: '97012.30', ask: '97012.31' }] }),
    );
    await ratefile(['build'], dir);
    const status = await ratefile(['status'], dir);
    expect(status.stdout).toMatch(/^ {2}backoffice \(file\): ok, 1 quote, /m);
  });

  it.each(['bash', 'zsh', 'fish'])(
    'completion %s names every command and its options, from the program',
    async (shell) => {
      const { dir } = await project();
      const result = await ratefile(['completion', shell], dir);
      expect(result.code, result.stderr).toBe(0);
      for (const command of ['build', 'start', 'serve', 'validate', 'status', 'accept', 'init', 'completion'])
        expect(result.stdout).toContain(command);
      for (const option of ['dry-run', 'no-serve', 'log-format', 'config']) expect(result.stdout).toContain(option);
      expect(result.stdout).not.toContain('undefined');
      // Descriptions hold quotes ("the config's output"): every quoted word must stay closed. bash's
      // parser is a fair judge of that for the zsh script and fish's `complete` lines too (same single-quote rules;
      // fish's function is fish's own syntax: `fish -n` reads the whole script in test/shells/completion.test.ts).
      const { spawnSync } = await import('node:child_process');
      const lines = result.stdout.split('\n').filter((line) => shell !== 'fish' || /^(complete|#|$)/.test(line));
      const parsed = spawnSync('bash', ['-n'], { input: lines.join('\n'), encoding: 'utf8' });
      expect(parsed.status, parsed.stderr).toBe(0);
    },
  );

  it('completion bash is a script bash reads, and an unknown shell is a usage error', async () => {
    const { dir } = await project();
    const script = (await ratefile(['completion', 'bash'], dir)).stdout;
    const { spawnSync } = await import('node:child_process');
    const checked = spawnSync('bash', ['-c', `${script}\ncomplete -p ratefile`], { encoding: 'utf8' });
    expect(checked.status, checked.stderr).toBe(0);
    expect(checked.stdout).toContain('-F _ratefile ratefile');
    const bad = await ratefile(['completion', 'powershell'], dir);
    expect(bad.code).toBe(2);
  });
});

describe('start without serving, and on a taken port', () => {
  it('start --no-serve builds on schedule and does not listen', async () => {
    const { dir } = await project();
    let log = '';
    const result = await ratefile(['start', '--no-serve', '--port', '0'], dir, ({ stderr }) => ({
      waitForStop: () => {
        log = stderr.text();
        return Promise.resolve('SIGTERM');
      },
    }));
    expect(result.code, result.stderr).toBe(0);
    const lines = logLines(log);
    expect(lines[0]).toMatch(/^info build: published 4 directions/);
    expect(lines[1]).toMatch(/^info writing .*public \(.*\), not serving; rebuilding on /);
    expect(log).not.toContain('http://');
    expect((await readdir(join(dir, 'public'))).sort()).toEqual(withCompressed(exportFiles));
  });

  it('start on a taken port exits 1 with one line saying what to do (--port, PORT), before building', async () => {
    const { dir } = await project();
    const { createServer } = await import('node:net');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const result = await ratefile(['start', '--port', String(port), '--host', '127.0.0.1'], dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `ratefile: port ${port} on 127.0.0.1 is in use: stop the other process or choose another with --port or PORT (or server.port in the config)\n`,
      );
      await missing(join(dir, 'public'));
      // serve says the same; with --log-format json, as one JSON line.
      const served = await ratefile(['serve', '--port', String(port), '--host', '127.0.0.1'], dir);
      expect(served.code).toBe(1);
      expect(served.stderr).toContain(`port ${port} on 127.0.0.1 is in use: stop the other process`);
      const json = await ratefile(
        ['--log-format', 'json', 'start', '--port', String(port), '--host', '127.0.0.1'],
        dir,
      );
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stderr)).toMatchObject({
        level: 'error',
        msg: expect.stringContaining(
          `port ${port} on 127.0.0.1 is in use: stop the other process or choose another with --port or PORT`,
        ),
      });
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
