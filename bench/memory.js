// Where the memory goes in one build, stage by stage: the stages of src/io/build/build.ts and src/io/build/cycle.ts run by hand on a
// generated exchanger (no bestchange source, so compete has nothing to do), a full collection forced after each,
// then what is live (V8 heap, buffers outside it) and the process's RSS, and its peak so far. Two cycles; the
// second is the steady state (the first also fills the per-config caches). heap = live after the collection;
// with garbage = before it; total = what V8 holds.
// Usage: node --expose-gc bench/memory.js [DIRECTIONS=50000]  → prints one JSON line.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gateFiles } from '../dist/pure/check/gate.js';
import { competeDirections } from '../dist/pure/compete/price.js';
import { loadConfig } from '../dist/io/config/load.js';
import { exportWriter } from '../dist/pure/exports/renderers.js';
import { emptyGuardState, guardDirections } from '../dist/pure/guards/guards.js';
import { priceDirections } from '../dist/pure/pricing/price.js';
import { compress, publishFiles } from '../dist/io/build/publish.js';
import { fetchQuotes } from '../dist/io/quotes/quotes.js';

if (typeof globalThis.gc !== 'function') throw new Error('bench/memory.js: run with node --expose-gc');
const [count = 50000] = process.argv.slice(2).map(Number);
const dir = await mkdtemp(join(tmpdir(), 'ratefile-memory-'));
execFileSync(process.execPath, [new URL('./generate.js', import.meta.url).pathname, dir, String(count)]);
const mb = (bytes) => Math.round(bytes / 2 ** 20);
const stages = [];
/**
 * After a stage: a full collection, then what is live and what the process holds. V8 frees the memory of dead
 * buffers on a background thread after the collection: a short wait and a second collection let it finish, or
 * "buffers" would still count the last stage's dead files.
 */
async function measure(stage, files = []) {
  const peakRssMb = mb(process.resourceUsage().maxRSS * 1024);
  // Before the collection: the heap with the stage's garbage, and what V8 has taken from the system for it.
  const before = process.memoryUsage();
  globalThis.gc();
  await new Promise((resolve) => setTimeout(resolve, 100));
  globalThis.gc();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  stages.push({
    stage,
    heapMb: mb(heapUsed),
    heapWithGarbageMb: mb(before.heapUsed),
    heapTotalMb: mb(Math.max(before.heapTotal, heapTotal)),
    outsideHeapMb: mb(external),
    // The export files' bytes: the writer's sink grows them in memory V8 maps itself, which neither the heap nor
    // `external` counts.
    filesMb: mb(files.reduce((sum, file) => sum + file.bytes.length, 0)),
    rssMb: mb(rss),
    peakRssMb,
  });
}

await measure('node + modules');
const config = await loadConfig(join(dir, 'ratefile.config.yaml'));
await measure('load');
let state = emptyGuardState();
const now = new Date();
const io = {
  configDir: config.dir,
  fetch,
  now: () => now,
  env: process.env,
  schedulePeriodMs: config.schedulePeriodMs,
};
/**
 * One cycle in a function of its own, as runCycle is: its files die when it returns. In a loop at the top level
 * they would not: a suspended async function keeps the last iteration's values in its frame until they are
 * overwritten, so the next cycle's fetch counted the last cycle's files (56 MB of "buffers" at 50,000 directions).
 */
async function cycleStages(cycle) {
  const tag = (stage) => `${stage} (cycle ${cycle})`;
  const { book } = await fetchQuotes(config.sources, { ...io, dropStale: true });
  await measure(tag('fetch'));
  const { priced } = priceDirections(config.directions, book);
  await measure(tag('price'));
  const competed = competeDirections({ priced, book, feeds: new Map(), now });
  await measure(tag('compete'));
  const guarded = guardDirections({
    priced: competed.priced,
    now,
    state,
    accepted: new Set(),
    guards: config.guards,
    maxAgeMs: () => undefined,
  });
  state = guarded.state;
  await measure(tag('guards'));
  const write = exportWriter(guarded.published, config.exports);
  const files = [];
  for (let index = 0; index < config.exports.length; index++) {
    const written = write(index);
    files.push({ file: written.file, bytes: written.bytes });
    await measure(tag(`render ${written.file}`), files);
  }
  const compressed = await Promise.all(files.map((file) => compress(file.bytes)));
  await measure(tag('compress'), files);
  const gate = gateFiles(files);
  if (gate.refused.length > 0) throw new Error(`bench/memory.js: refused ${gate.refused.map((r) => r.file)}`);
  await measure(tag('check'), files);
  await publishFiles(files, join(dir, 'public'));
  await measure(tag('publish'), files);
  // Held through the check and publish, as publishFiles holds its copies.
  compressed.length = 0;
}
for (let cycle = 1; cycle <= 2; cycle++) await cycleStages(cycle);
await rm(dir, { recursive: true, force: true });
console.log(JSON.stringify({ directions: count, stages }));
