// `npm start`'s compile step (.ci/compile-if-changed.js, package.json's prestart) on a small TypeScript project in a
// temp folder, with the repository's real TypeScript: the first start compiles, a start on an unchanged tree does
// not, a changed input or a changed dist/ compiles again, a failed compile leaves no stamp. Whether tsc ran is
// counted, not timed: every process loads test/fixtures/module-log.mjs (NODE_OPTIONS reaches tsc's child too), and
// a run that compiled has loaded typescript/lib/tsc.js.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { childEnv, repoRoot } from '../../support/process.js';

const script = join(repoRoot, '.ci/compile-if-changed.js');
const moduleLog = new URL('../../fixtures/module-log.mjs', import.meta.url).href;
const typescript = join(repoRoot, 'node_modules/typescript');

let dir: string;
let runs = 0;

interface Compile {
  code: number | null;
  stderr: string;
  /** tsc's own output (its errors). */
  stdout: string;
  /** Whether the TypeScript compiler was loaded by the run (the script or its child). */
  compiled: boolean;
}

/** The compile step in the project folder, as `npm start`'s prestart runs it. */
function start(): Promise<Compile> {
  const log = join(dir, `modules-${++runs}.txt`);
  const env = { ...childEnv(), NODE_OPTIONS: `--import ${moduleLog}`, RATEFILE_MODULE_LOG: log };
  return new Promise((resolve) => {
    execFile(process.execPath, [script], { cwd: dir, env }, async (error, stdout, stderr) => {
      const modules = existsSync(log) ? await readFile(log, 'utf8') : '';
      resolve({
        code: error ? (error.code as number) : 0,
        stderr,
        stdout,
        compiled: modules.includes('/typescript/lib/tsc.js'),
      });
    });
  });
}

const write = async (path: string, text: string) => {
  await mkdir(join(dir, path, '..'), { recursive: true });
  await writeFile(join(dir, path), text);
};
const read = (path: string) => readFile(join(dir, path), 'utf8');

// The project: the repository's layout in small (src/ with a subfolder, tsconfig.json, an incremental
// tsconfig.build.json writing dist/), and node_modules/typescript made of the real compiler's bin/ and lib/ beside
// a package.json of its own, so a test can change the installed version.
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ratefile-compile-'));
  await write('package.json', JSON.stringify({ type: 'module', devDependencies: { typescript: '~5.9.3' } }));
  await write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        strict: true,
        types: [],
        outDir: 'dist',
        rootDir: 'src',
      },
      include: ['src'],
    }),
  );
  await write(
    'tsconfig.build.json',
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { incremental: true, tsBuildInfoFile: 'dist/.tsbuildinfo' },
    }),
  );
  await write('src/cli.ts', "import { greet } from './words/greet.js';\nexport const line: string = greet('world');\n");
  await write('src/words/greet.ts', 'export function greet(name: string): string {\n  return `hello ${name}`;\n}\n');
  await mkdir(join(dir, 'node_modules/typescript'), { recursive: true });
  for (const part of ['bin', 'lib']) await symlink(join(typescript, part), join(dir, 'node_modules/typescript', part));
  await copyFile(join(typescript, 'package.json'), join(dir, 'node_modules/typescript/package.json'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A first start, checked: it compiled and stamped dist/. */
async function firstStart(): Promise<void> {
  const first = await start();
  expect(first.stderr).toMatch(
    /^ratefile: compiling src\/ to dist\/ \(first start\)…\nratefile: compiled in \d+(\.\d)? s\.\n$/,
  );
  expect(first).toMatchObject({ code: 0, compiled: true });
  expect(existsSync(join(dir, 'dist/.source-stamp'))).toBe(true);
}

describe("npm start's compile step", () => {
  it('compiles on the first start and not on the second, on an unchanged tree', async () => {
    await firstStart();
    expect(await read('dist/words/greet.js')).toContain('hello ${name}');
    const second = await start();
    expect(second).toEqual({
      code: 0,
      compiled: false,
      stderr: 'ratefile: dist/ is up to date with src/, not compiling (`npm run build` compiles anyway).\n',
      stdout: '',
    });
  });

  it('does not compile for a file touched with the same content (a git checkout), but does for an edit', async () => {
    await firstStart();
    const later = new Date(Date.now() + 3_600_000);
    await utimes(join(dir, 'src/cli.ts'), later, later);
    expect(await start()).toMatchObject({ code: 0, compiled: false });
    await write('src/words/greet.ts', 'export function greet(name: string): string {\n  return `hi ${name}`;\n}\n');
    const edited = await start();
    expect(edited).toMatchObject({ code: 0, compiled: true });
    expect(edited.stderr).toContain('compiling src/ to dist/ (src changed)…');
    expect(await read('dist/words/greet.js')).toContain('hi ${name}');
  });

  const changes: [string, () => Promise<unknown>][] = [
    ['a file added to src/', () => write('src/words/more.ts', 'export const more = 1;\n')],
    [
      'tsconfig.build.json changed',
      () =>
        write(
          'tsconfig.build.json',
          JSON.stringify({
            extends: './tsconfig.json',
            compilerOptions: { incremental: true, tsBuildInfoFile: 'dist/.tsbuildinfo', removeComments: true },
          }),
        ),
    ],
    [
      'another TypeScript installed',
      async () => {
        const path = 'node_modules/typescript/package.json';
        await write(path, (await read(path)).replace(/"version": "[^"]+"/, '"version": "5.9.99"'));
      },
    ],
    [
      "package.json's TypeScript range changed",
      () => write('package.json', '{"type":"module","devDependencies":{"typescript":"~6.0.0"}}'),
    ],
    ['a file removed from src/', () => unlink(join(dir, 'src/words/greet.ts')).then(() => write('src/cli.ts', ''))],
  ];
  // One tree changed in turn (a compile each, not a first start each: tsc is the test's whole cost).
  it(`compiles again after each of: ${changes.map(([what]) => what).join('; ')}`, async () => {
    await firstStart();
    for (const [what, change] of changes) {
      await change();
      const again = await start();
      expect(again, what).toMatchObject({ code: 0, compiled: true });
      expect(again.stderr, what).toContain('compiling src/ to dist/ (src changed)…');
    }
  });

  it('compiles again when a file was removed from dist/ behind its back', async () => {
    await firstStart();
    await unlink(join(dir, 'dist/words/greet.js'));
    const again = await start();
    expect(again).toMatchObject({ code: 0, compiled: true });
    expect(again.stderr).toContain('compiling src/ to dist/ (dist/ changed since the last compile)…');
    expect(await read('dist/words/greet.js')).toContain('hello ${name}');
    expect(await start()).toMatchObject({ code: 0, compiled: false });
  });

  it('compiles again when another tree was compiled by hand (npm run build) and the stamped one checked out again', async () => {
    await firstStart();
    const greet = await read('src/words/greet.ts');
    await write('src/words/greet.ts', greet.replace('hello', 'hi'));
    await promisify(execFile)(process.execPath, [join(typescript, 'bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: dir,
    });
    expect(await read('dist/words/greet.js')).toContain('hi ${name}');
    await write('src/words/greet.ts', greet);
    const again = await start();
    expect(again).toMatchObject({ code: 0, compiled: true });
    expect(again.stderr).toContain('compiling src/ to dist/ (dist/ changed since the last compile)…');
    expect(await read('dist/words/greet.js')).toContain('hello ${name}');
  });

  it('writes no stamp after a failed compile, so the next start compiles again', async () => {
    await firstStart();
    await write(
      'src/cli.ts',
      "import { greet } from './words/greet.js';\nexport const line: number = greet('world');\n",
    );
    const failed = await start();
    expect(failed.code).not.toBe(0);
    expect(failed.compiled).toBe(true);
    expect(failed.stdout).toMatch(/src\/cli\.ts.*error TS2322/);
    expect(failed.stderr).toMatch(
      /ratefile: compiling failed after \d+(\.\d)? s \(tsc exit \d\); the next start compiles again\.\n$/,
    );
    expect(existsSync(join(dir, 'dist/.source-stamp'))).toBe(false);
    // Put right again: the tree is the one last stamped, but dist/ holds the failed compile's output.
    await write(
      'src/cli.ts',
      "import { greet } from './words/greet.js';\nexport const line: string = greet('world');\n",
    );
    const fixed = await start();
    expect(fixed).toMatchObject({ code: 0, compiled: true });
    expect(fixed.stderr).toContain('compiling src/ to dist/ (no record of the last compile)…');
    expect(existsSync(join(dir, 'dist/.source-stamp'))).toBe(true);
  });

  it('says what to do when TypeScript is not installed', async () => {
    await rm(join(dir, 'node_modules'), { recursive: true });
    const result = await start();
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'ratefile: TypeScript is not installed here (node_modules/typescript): run `npm install` first.\n',
    );
  });
});

describe("the repository's scripts", () => {
  it('start compiles only if changed, build always compiles', async () => {
    const manifest = JSON.parse(
      await readFile(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8'),
    );
    expect(manifest.scripts.prestart).toBe('node .ci/compile-if-changed.js');
    expect(manifest.scripts.build).toBe('tsc -p tsconfig.build.json');
    for (const script of ['bench', 'bench:serve', 'docs']) expect(manifest.scripts[script]).toMatch(/^npm run build /);
  });
});
