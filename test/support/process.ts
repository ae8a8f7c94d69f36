// The real `ratefile` binary as a child process: collects its output, waits for log lines, and is
// always cleaned up (stopAll) even when a test fails half-way.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root (where bin/ and dist/ are). */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const binPath = fileURLToPath(new URL('../../bin/ratefile.js', import.meta.url));
const builtCli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/**
 * A `--import` module for the child that replaces fetch with one that refuses every request, so a
 * config with a network source cannot reach the internet from a test (it fails the build instead).
 */
export const offlineImport = `data:text/javascript,${encodeURIComponent(
  'globalThis.fetch = async (input) => { throw new Error("network disabled in integration tests: " + String(input instanceof Request ? input.url : input)); };',
)}`;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RatefileProcess {
  child: ChildProcess;
  /** Everything written to stderr (the log) so far. */
  stderr(): string;
  stdout(): string;
  /** Resolves once the process has exited. */
  exited: Promise<Exit>;
  /** Resolves with the first match of `pattern` in stderr; rejects on exit or after `timeoutMs`. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Send `signal` and wait for the exit (SIGKILL after `timeoutMs`). */
  stop(signal: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
}

export interface SpawnOptions {
  cwd: string;
  /** Extra node flags before bin/ratefile.js. */
  nodeArgs?: readonly string[];
  /** Variables added to the child's environment. */
  env?: Record<string, string>;
}

const running = new Set<RatefileProcess>();

/** The environment of the test runner without PORT, so only --port decides the port. */
export function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (key !== 'PORT' && value !== undefined) env[key] = value;
  return env;
}

export function assertBuilt(): void {
  if (!existsSync(builtCli))
    throw new Error(`${builtCli} is missing: run \`npm run build\` before the integration tests`);
}

/** `node bin/ratefile.js ...args` in `cwd`. */
export function spawnRatefile(args: readonly string[], options: SpawnOptions): RatefileProcess {
  assertBuilt();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), binPath, ...args], {
    cwd: options.cwd,
    env: { ...childEnv(), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  child.stderr?.setEncoding('utf8');
  child.stdout?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
    notify();
  });
  child.stdout?.on('data', (chunk: string) => {
    stdout += chunk;
  });
  let exit: Exit | undefined;
  const exited = new Promise<Exit>((resolve) => {
    // 'close' comes after the output streams end, so stderr is complete when this resolves.
    child.once('close', (code, signal) => {
      exit = { code, signal };
      notify();
      resolve(exit);
    });
  });

  const proc: RatefileProcess = {
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    exited,
    waitForLog(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        const check = () => {
          const match = pattern.exec(stderr);
          if (match) {
            done();
            resolve(match);
          } else if (exit) {
            done();
            reject(
              new Error(`ratefile exited (${JSON.stringify(exit)}) before logging ${pattern}; stderr:\n${stderr}`),
            );
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no log line matching ${pattern} within ${timeoutMs} ms; stderr:\n${stderr}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async stop(signal, timeoutMs = 10_000) {
      if (!exit) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  running.add(proc);
  void exited.then(() => running.delete(proc));
  return proc;
}

/** Kill every child this module started that is still running (for afterEach). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((proc) => proc.stop('SIGKILL', 5_000)));
}

/** Wait for `serving … at http://127.0.0.1:<port>/` and return the base URL. */
export async function waitForServing(proc: RatefileProcess, timeoutMs = 20_000): Promise<string> {
  const match = await proc.waitForLog(/serving .+ at (http:\/\/127\.0\.0\.1:(\d+)\/)/, timeoutMs);
  const base = match[1];
  if (base === undefined) throw new Error('unreachable: the pattern has a group');
  return base;
}
