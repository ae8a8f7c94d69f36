// Operating `start` and `serve` (issue 23): the address listened on by default and the one logged, every line the
// process writes in the chosen log format (node-cron's own warnings included), and a config path that is not a file.
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/io/config/load.js';
import { starterConfig } from '../../../src/commands/starter.js';
import { assertBuilt, binPath, childEnv, repoRoot, spawnRatefile, stopAll } from '../../support/process.js';
import { everySecondConfig, projectsPerTest } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';

const project = projectsPerTest();
afterEach(stopAll);

/** Wait for the serving line and return the URL it names, whatever the address. */
async function servingUrl(proc: ReturnType<typeof spawnRatefile>): Promise<string> {
  const match = await proc.waitForLog(/serving .+ at (http:\/\/\S+\/)/);
  return match[1]!;
}

describe('the address listened on (defect 11)', () => {
  it('start without --host, on a config without server.host, listens on 127.0.0.1 and logs that address', async () => {
    const made = await project();
    const proc = spawnRatefile(['start', '--port', '0'], { cwd: made.dir });
    const url = await servingUrl(proc);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect((await fetch(new URL('parserfile.xml', url))).status).toBe(200);
    expect((await proc.stop('SIGTERM')).code).toBe(0);
  });

  it('serve --out without --host listens on 127.0.0.1 and logs that address', async () => {
    const made = await project();
    await mkdir(join(made.dir, 'out'));
    await writeFile(
      join(made.dir, 'out', 'parserfile.xml'),
      '<?xml version="1.0" encoding="UTF-8"?>\n<rates></rates>\n',
    );
    const proc = spawnRatefile(['serve', '--out', 'out', '--port', '0'], { cwd: made.dir });
    const url = await servingUrl(proc);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect((await fetch(new URL('parserfile.xml', url))).status).toBe(200);
    expect((await proc.stop('SIGTERM')).code).toBe(0);
  });

  it('every interface only when asked for: --host 0.0.0.0 is logged as 0.0.0.0, never as localhost', async () => {
    const made = await project();
    const proc = spawnRatefile(['start', '--port', '0', '--host', '0.0.0.0'], { cwd: made.dir });
    const url = await servingUrl(proc);
    expect(url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/$/);
    // Every interface includes the loopback; one answer also shows the process is past start-up, signals handled.
    expect((await fetch(new URL('parserfile.xml', url.replace('0.0.0.0', '127.0.0.1')))).status).toBe(200);
    expect((await proc.stop('SIGTERM')).code).toBe(0);
  });

  it('the demo config, the starter and the --host help say 127.0.0.1', async () => {
    expect((await loadConfig(join(repoRoot, 'ratefile.config.yaml'))).server.host).toBe('127.0.0.1');
    expect(starterConfig).toMatch(/^ {2}host: 127\.0\.0\.1$/m);
    const made = await project();
    const help = await runRatefile(['start', '--help'], made.dir);
    expect(help.stdout).toMatch(/--host <address>[^]*127\.0\.0\.1/);
    expect(help.stdout).not.toMatch(/server\.host, 0\.0\.0\.0/);
  });
});

/** `ratefile start` as a child with extra environment, its pid for SIGSTOP/SIGCONT, and all it writes on both streams. */
function startRaw(args: readonly string[], cwd: string, env: Record<string, string>) {
  assertBuilt();
  const child = spawn(process.execPath, [binPath, 'start', '--port', '0', ...args], {
    cwd,
    env: { ...childEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const waitFor = async (pattern: RegExp, timeoutMs = 20_000) => {
    const until = Date.now() + timeoutMs;
    while (!pattern.test(output)) {
      if (Date.now() > until || child.exitCode !== null) throw new Error(`no ${pattern} in:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { child, output: () => output, closed, waitFor };
}

/** Pause the process for `ms` (it runs no timer meanwhile), then let it go on. */
async function pause(pid: number, ms: number): Promise<void> {
  process.kill(pid, 'SIGSTOP');
  await new Promise((resolve) => setTimeout(resolve, ms));
  process.kill(pid, 'SIGCONT');
}

describe('every line in the chosen log format, after a pause (defect 12)', () => {
  it.each([
    ['json', ['--log-format', 'json'], {}],
    ['text with NO_COLOR=1', [], { NO_COLOR: '1' }],
  ] as const)(
    "%s: node-cron's missed runs are one ratefile warning, no [NODE-CRON] line, no ANSI escape",
    async (_name, args, env) => {
      const made = await project({ 'ratefile.config.yaml': everySecondConfig });
      const proc = startRaw(args, made.dir, env);
      try {
        await proc.waitFor(/serving .+ at http/);
        await pause(proc.child.pid!, 3_000);
        await proc.waitFor(/did not run \(the process was paused or busy\)/);
        proc.child.kill('SIGTERM');
        expect(await proc.closed).toBe(0);
      } finally {
        proc.child.kill('SIGKILL');
      }
      const text = proc.output();
      expect(text).not.toContain('\u001b');
      expect(text).not.toContain('NODE-CRON');
      const lines = text.split('\n').filter((line) => line !== '');
      expect(lines.length).toBeGreaterThan(2);
      if (args.length > 0) {
        for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
        expect(
          lines
            .map((line) => JSON.parse(line) as { level: string; msg: string })
            .filter((entry) => entry.msg.startsWith('schedule: ')),
        ).toEqual([
          expect.objectContaining({
            level: 'warn',
            msg: expect.stringMatching(/^schedule: (a build|\d+ builds) due (at|from) \S+Z/),
            event: 'schedule-missed',
          }),
        ]);
      } else {
        for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\S+Z (info|warn|error) /);
        expect(lines.filter((line) => line.includes(' schedule: '))).toHaveLength(1);
      }
    },
    40_000,
  );
});

describe("Node's own process warnings in the chosen log format", () => {
  // A module loaded before ratefile that makes Node warn on SIGUSR2, as a dependency's deprecated call would.
  const warnOnSignal = `--import=data:text/javascript,process.on('SIGUSR2',()=>process.emitWarning('Buffer()%20is%20deprecated','DeprecationWarning','DEP0005'))`;

  it.each([
    ['json', ['--log-format', 'json'], {}],
    ['text with NO_COLOR=1', [], { NO_COLOR: '1' }],
  ] as const)(
    '%s: a DeprecationWarning is one ratefile warning, not a "(node:PID)" line',
    async (_name, args, env) => {
      const made = await project({ 'ratefile.config.yaml': everySecondConfig });
      const proc = startRaw(args, made.dir, { ...env, NODE_OPTIONS: warnOnSignal });
      try {
        await proc.waitFor(/serving .+ at http/);
        proc.child.kill('SIGUSR2');
        await proc.waitFor(/DEP0005/);
        proc.child.kill('SIGTERM');
        expect(await proc.closed).toBe(0);
      } finally {
        proc.child.kill('SIGKILL');
      }
      const lines = proc
        .output()
        .split('\n')
        .filter((line) => line !== '');
      expect(proc.output()).not.toContain('(node:');
      if (args.length > 0) {
        for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
        expect(
          lines.map((line) => JSON.parse(line) as { msg: string }).filter((entry) => entry.msg.includes('DEP0005')),
        ).toEqual([
          expect.objectContaining({
            level: 'warn',
            msg: 'node: DeprecationWarning DEP0005: Buffer() is deprecated',
            event: 'process-warning',
          }),
        ]);
      } else {
        for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\S+Z (info|warn|error) /);
        expect(lines.filter((line) => line.includes('DEP0005'))).toEqual([
          expect.stringMatching(/ warn node: DeprecationWarning DEP0005: Buffer\(\) is deprecated$/),
        ]);
      }
    },
    40_000,
  );
});

describe('a config path that is not a regular file (defect 13)', () => {
  const hasMkfifo = (() => {
    try {
      execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!hasMkfifo)(
    'build refuses a FIFO as the config at once, naming it (exit 2), instead of waiting for a writer',
    async () => {
      const made = await project();
      const config = join(made.dir, 'ratefile.config.yaml');
      await rm(config);
      execFileSync('mkfifo', [config]);
      const proc = spawnRatefile(['build'], { cwd: made.dir });
      // On main the open waits for a writer forever: the stop below would have to kill it.
      const exit = await Promise.race([
        proc.exited,
        new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000)),
      ]);
      expect(exit).toEqual({ code: 2, signal: null });
      expect(proc.stderr()).toBe('ratefile: ratefile.config.yaml: expected a regular file, got a FIFO (named pipe)\n');
    },
    20_000,
  );

  it.skipIf(!hasMkfifo)(
    "a FIFO as a template or as the file source's quotes is refused too, naming it",
    async () => {
      const made = await project();
      await rm(join(made.dir, 'templates', 'reffile.yaml'));
      execFileSync('mkfifo', [join(made.dir, 'templates', 'reffile.yaml')]);
      const validate = await runRatefile(['validate'], made.dir);
      expect(validate.code).toBe(2);
      expect(validate.stderr).toContain('templates/reffile.yaml: expected a regular file, got a FIFO (named pipe)');

      const other = await project();
      await rm(join(other.dir, 'quotes.json'));
      execFileSync('mkfifo', [join(other.dir, 'quotes.json')]);
      const build = await runRatefile(['build', '--dry-run'], other.dir);
      expect(build.code).toBe(1);
      expect(build.stderr).toMatch(
        /backoffice: cannot read quotes file \S*quotes\.json: not a regular file: a FIFO \(named pipe\)/,
      );
    },
    20_000,
  );

  it('a directory as the config is refused the same way', async () => {
    const made = await project();
    await mkdir(join(made.dir, 'folder.yaml'));
    await writeFile(join(made.dir, 'folder.yaml', 'x'), '');
    const result = await runRatefile(['validate', '--config', 'folder.yaml'], made.dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('folder.yaml: expected a regular file, got a directory');
  });
});
