// The BestChange feed: parse the real dump (test/fixtures/bestchange) several times in its own process.
// Prints one JSON line: median parse ms (unzip + decode + parse), heap the parsed feed holds, peak RSS and
// how far parsing raised it above this process before (Node, the module and the zip read).
// Usage: node --expose-gc bench/bestchange.js [RUNS]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseFeed } from '../dist/pure/bestchange/feed.js';

const runs = Number(process.argv[2] ?? 7);
const zip = readFileSync(fileURLToPath(new URL('../test/fixtures/bestchange/info-2021-03-25.zip', import.meta.url)));
const rssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const baseRssMb = rssMb();
const times = [];
let feed;
let heldMb = 0;
for (let run = 0; run < runs; run++) {
  feed = undefined;
  globalThis.gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  feed = parseFeed(zip);
  times.push(performance.now() - started);
  globalThis.gc();
  heldMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
}
const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
console.log(
  JSON.stringify({
    rows: feed.rows,
    medianMs: Math.round(median),
    heldMb: Math.round(heldMb),
    peakRssMb: rssMb(),
    parseRssMb: rssMb() - baseRssMb,
  }),
);
