// Quote-to-publish latency under `ratefile start`: a 10k-direction exchanger rebuilt every second, its quotes
// file changed N times at random moments; each time, how long until the built-in server serves the new
// parserfile.xml (its strong ETag changes). Polls with HEAD so the probe itself costs next to nothing.
// Usage: node bench/latency.js [DIRECTIONS=10000] [CHANGES=100]  → prints one JSON line.
import { writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { movedQuotes, startEverySecond } from './every-second.js';

const [count = 10000, changes = 100] = process.argv.slice(2).map(Number);
// Polled every 5 ms with HEAD: the probe itself costs next to nothing.
const { quotesPath, baseQuotes, base, until, stop } = await startEverySecond('latency', count, 5);

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

try {
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
    const text = JSON.stringify({ quotes: movedQuotes(baseQuotes, factor) });
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
  await stop();
}
