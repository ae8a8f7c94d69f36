// What bench/latency.js and bench/soak.js share: a generated exchanger under `ratefile start`, rebuilt every
// second with no jump guard, its quotes file (as old as the file, so a maxAge of an hour keeps the staleness guard
// from withholding directions while a loaded machine stretches builds past 2 s) rewritten by the bench.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeBenchProject } from './generate.js';

export { movedQuotes } from './generate.js';

/**
 * Starts the service on `count` generated directions and waits for its server. Returns the project's folder, the
 * directions generated, the quotes file and its quotes, the child process, the server's base URL, `until` (polls
 * `test` every `pollMs` until it gives a value, or throws naming `what` with the log's end) and `stop`.
 */
export async function startEverySecond(name, count, pollMs) {
  const dir = await mkdtemp(join(tmpdir(), `ratefile-${name}-`));
  const directions = await writeBenchProject(dir, count);
  const configPath = join(dir, 'ratefile.config.yaml');
  const config = readFileSync(configPath, 'utf8').replace(
    'feed: { type: file, path: quotes.json }',
    'feed: { type: file, path: quotes.json, maxAge: 1h }',
  );
  if (!config.includes('maxAge: 1h'))
    throw new Error(`bench/${name}.js: the generated config has no \`feed: { type: file, path: quotes.json }\` line`);
  await writeFile(configPath, `${config}schedule: "* * * * * *"\nguards: { maxJump: 50% }\n`);
  const quotesPath = join(dir, 'quotes.json');
  const baseQuotes = JSON.parse(readFileSync(quotesPath, 'utf8')).quotes;

  const bin = new URL('../bin/ratefile.js', import.meta.url).pathname;
  const child = spawn(process.execPath, [bin, 'start', '--config', configPath, '--port', '0', '--host', '127.0.0.1'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    log = (log + chunk).slice(-20_000);
  });
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('close', resolve));
    await rm(dir, { recursive: true, force: true });
  };
  const until = async (test, timeoutMs, what) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await test();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; log:\n${log.slice(-2000)}`);
      await sleep(pollMs);
    }
  };
  try {
    const base = await until(() => /serving .+ at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(log)?.[1], 120_000, 'the server');
    return { dir, directions, quotesPath, baseQuotes, child, base, until, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
