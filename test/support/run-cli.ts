// The CLI in-process for the operator-tool tests: run(argv, deps) with collected output, a fixed clock and no network unless given.
import { run, type CliDeps } from '../../src/cli.js';

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

export const fixedNow = () => new Date('2026-11-21T12:00:30Z');

export const offlineFetch: typeof globalThis.fetch = (input) =>
  Promise.reject(new Error(`network disabled in unit tests: ${String(input)}`));

/** `ratefile ...args` in `cwd`; `deps` replaces any dependency (clock, fetch). */
export async function runRatefile(args: readonly string[], cwd: string, deps: Partial<CliDeps> = {}): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  const code = await run(['node', 'ratefile', ...args], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    cwd,
    now: fixedNow,
    fetch: offlineFetch,
    waitForStop: () => Promise.reject(new Error('this command was not expected to wait for a signal')),
    ...deps,
  });
  return { code, stdout, stderr };
}
