// Quote-to-publish latency under `ratefile start`: a 10k-direction exchanger rebuilt every second, its quotes
// file changed N times at random moments; each time, how long until the built-in server serves the new
// parserfile.xml (its strong ETag changes). Polls with HEAD so the probe itself costs next to nothing.
// Usage: node bench/latency.js [DIRECTIONS=10000] [CHANGES=100]  → prints one JSON line.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeBenchProject } from './generate.js';

const [count = 10000, changes = 100] = process.argv.slice(2).map(Number);
const dir = await mkdtemp(join(tmpdir(), 'ratefile-latency-'));
await writeBenchProject(dir, count);
// Every second, and no jump guard: every change must reach the file. The quotes are as old as the file, and
// between two changes the file is not rewritten: a maxAge of an hour keeps the staleness guard (2 s by
// default at this schedule) from withholding directions while a loaded machine stretches builds past it.
const configPath = join(dir, 'ratefile.config.yaml');
const config = readFileSync(configPath, 'utf8').replace(
  'feed: { type: file, path: quotes.json }',
  'feed: { type: file, path: quotes.json, maxAge: 1h }',
);
if (!config.includes('maxAge: 1h'))
  throw new Error(
    'bench/latency.js: the generated config has no `feed: { type: file, path: quotes.json }` line to give a maxAge',
  );
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
child.stderr.on('data', (chunk) => (log += chunk));

async function until(test, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await test();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; log:\n${log.slice(-2000)}`);
    await sleep(5);
  }
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

try {
  const base = await until(() => /serving .+ at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(log)?.[1], 120_000, 'the server');
  const url = new URL('parserfile.xml', base);
  const etag = async () => (await fetch(url, { method: 'HEAD' })).headers.get('etag');
  await until(etag, 60_000, 'the first build');
  const latencies = [];
  for (let change = 0; change < changes; change++) {
    // Land each change at a random moment of the one-second schedule.
    await sleep(Math.random() * 1000);
    const before = await etag();
    // Alternate two price levels, so every change moves every rate.
    const factor = change % 2 === 0 ? 1.002 : 0.998;
    const quotes = baseQuotes.map((q) => ({
      ...q,
      bid: (Number(q.bid) * factor).toFixed(6),
      ask: (Number(q.ask) * factor).toFixed(6),
    }));
    const text = JSON.stringify({ quotes });
    const changed = performance.now();
    await writeFile(quotesPath, text);
    await until(async () => (await etag()) !== before, 30_000, `change ${change + 1} to be served`);
    latencies.push(performance.now() - changed);
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      directions: count,
      changes,
      p50Ms: Math.round(percentile(sorted, 50)),
      p99Ms: Math.round(percentile(sorted, 99)),
      maxMs: Math.round(sorted.at(-1)),
    }),
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('close', resolve));
  await rm(dir, { recursive: true, force: true });
}
