// Fast start (issue 24): `--version` and `--help` load the command line only, never what the commands run.
// Counted, not timed: the real binary under a loader hook (test/fixtures/module-log.mjs) that logs every module it loads.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, binPath, childEnv, repoRoot } from '../../support/process.js';

const moduleLog = fileURLToPath(new URL('../../fixtures/module-log.mjs', import.meta.url));
const dist = new URL('../../../dist/', import.meta.url).href;

// What the commands' actions need and a bare start must not: the config loader (zod, both YAML readers), the pipeline,
// the server and the service, the checker, the probe, and the packages behind alerts, metrics, rendering and S3.
const heavyModules = [
  'config/load.js',
  'config/schema.js',
  'config/yaml.js',
  'config/reload.js',
  'build.js',
  'cycle.js',
  'pricing/',
  'quotes.js',
  'server.js',
  'service.js',
  'check/',
  'hosting/',
  'exports/',
  'probe/',
].map((path) => dist + path);
const heavyPackages = [
  'nodemailer',
  'prom-client',
  '@aws-sdk',
  'zod',
  'yaml',
  'js-yaml',
  'fast-xml-parser',
  'node-cron',
  'serve-handler',
  'decimal.js',
  'fflate',
  'pg',
  'mysql2',
];

let dir: string;
let runs = 0;

beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'ratefile-startup-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** `ratefile ...args` as a child process; its stdout and every module URL it loaded. */
async function loaded(args: readonly string[]): Promise<{ stdout: string; modules: string[] }> {
  const log = join(dir, `modules-${++runs}.txt`);
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', moduleLog, binPath, ...args], {
    cwd: repoRoot,
    env: { ...childEnv(), RATEFILE_MODULE_LOG: log },
  });
  return { stdout, modules: [...new Set((await readFile(log, 'utf8')).split('\n').filter(Boolean))] };
}

const heavyIn = (modules: readonly string[]) =>
  modules.filter(
    (url) =>
      heavyModules.some((prefix) => url.startsWith(prefix)) ||
      heavyPackages.some((name) => url.includes(`/node_modules/${name}/`)),
  );

describe('a bare start', () => {
  it.each([[['--version']], [['--help']], [['build', '--help']], [['start', '--help']], [['probe', '--help']]])(
    'ratefile %j loads none of the heavy modules',
    async (args) => {
      const { stdout, modules } = await loaded(args);
      expect(stdout).toMatch(args[0] === '--version' ? /^\d+\.\d+\.\d+/ : /^Usage: ratefile/);
      // The log saw the command line itself, so an empty or broken log cannot pass.
      expect(modules).toContain(`${dist}cli.js`);
      expect(modules.some((url) => url.includes('/node_modules/commander/'))).toBe(true);
      expect(heavyIn(modules)).toEqual([]);
    },
  );

  it("the completion scripts' `__complete` reads the config with the YAML reader alone: no schema, no build", async () => {
    const { stdout, modules } = await loaded(['__complete', 'explain', 'BTC', '']);
    expect(stdout.split('\n')).toContain('SBERRUB');
    expect(modules).toContain(`${dist}base/config/yaml.js`);
    // The config reader (src/base/config/yaml.ts) brings its YAML parsers and, for its problem lines, zod and
    // decimal.js; nothing above the base layer (the config's schema and loader, the build, the service) and no other package.
    expect(modules.filter((url) => /\/dist\/(io|pure|service|model)\//.test(url))).toEqual([]);
    const packages = new Set(
      modules.map((url) => /\/node_modules\/((@[^/]+\/)?[^/]+)\//.exec(url)?.[1]).filter(Boolean),
    );
    expect([...packages].sort()).toEqual(['commander', 'decimal.js', 'js-yaml', 'yaml', 'zod']);
  });

  it('a command that runs still loads what it uses (the log sees modules imported late)', async () => {
    const { stdout, modules } = await loaded(['schema', '--template']);
    expect(JSON.parse(stdout)).toHaveProperty('type');
    expect(modules).toContain(`${dist}io/exports/template.js`);
    expect(modules.some((url) => url.includes('/node_modules/zod/'))).toBe(true);
  });
});
