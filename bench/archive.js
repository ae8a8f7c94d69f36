// The archive's cost (issue 47): bytes per record for a generated exchanger built at a 1 s schedule with a share of
// its quotes moving each build (crypto legs first, as bench/cycle.js moves them), the whole records among them, the
// disk for 30 days of it, and the time to record a build and to rebuild an export from the archive (`ratefile at`).
// The clock is simulated (one second a build), so the whole records (every 200 records, every 15 minutes, each UTC
// day) fall where they would; the bytes do not depend on the machine's load, the times do.
// Usage: node bench/archive.js DIRECTIONS BUILDS [MOVING]  → prints one JSON line.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../dist/io/config/load.js';
import { runCycle } from '../dist/io/build/cycle.js';
import { openArchive } from '../dist/io/archive/archive.js';
import { ArchiveReader } from '../dist/io/archive/reader.js';
import { cryptoAssets, writeBenchProject } from './generate.js';

const [count = 10000, builds = 240, moving = 0.2] = process.argv.slice(2).map(Number);
const dir = await mkdtemp(join(tmpdir(), 'ratefile-archive-bench-'));
const directions = await writeBenchProject(dir, count);
const config = await loadConfig(join(dir, 'ratefile.config.yaml'));
const quotesPath = join(dir, 'quotes.json');
const base = JSON.parse(await readFile(quotesPath, 'utf8')).quotes;
const legs = [...base].sort((a, b) => crypto(b) - crypto(a));
const moves = new Set(legs.slice(0, Math.round(base.length * moving)).map((q) => q.pair));
function crypto(quote) {
  return cryptoAssets.has(quote.pair.split('/')[0]) ? 1 : 0;
}
// Guards off, as in bench/cycle.js: every move is published, none held back by the jump guard.
const benchConfig = { ...config, guards: { ...config.guards, maxJump: config.guards.maxJump.plus(1) } };
const log = { warn: (line) => console.error(line), info: () => undefined };
const archive = await openArchive(benchConfig, { env: {}, log });
const start = Date.parse('2026-12-02T00:00:00Z');
let clock = start;
const now = () => new Date(clock);
const records = [];
const recordMs = [];
for (let build = 0; build < builds; build++) {
  clock = start + build * 1000;
  const factor = 1 + (((build + 10) % 7) - 3) / 1000;
  const quotes = base.map((q) =>
    moves.has(q.pair)
      ? {
          ...q,
          bid: (Number(q.bid) * factor).toFixed(6),
          ask: (Number(q.ask) * factor).toFixed(6),
          time: now().toISOString(),
        }
      : { ...q, time: now().toISOString() },
  );
  await writeFile(quotesPath, JSON.stringify({ quotes }));
  const before = archive.status().bytes;
  const timed = {
    ...archive,
    published: async (cycle) => {
      const started = performance.now();
      const outcome = await archive.published(cycle);
      recordMs.push(performance.now() - started);
      return outcome;
    },
  };
  await runCycle(benchConfig, join(dir, 'public'), { now, env: {}, archive: timed });
  const last = archive.status().last;
  records.push({ bytes: archive.status().bytes - before, whole: last && isWhole(await lastHeader()) });
}
async function lastHeader() {
  const reader = await ArchiveReader.open(archive.store);
  return (await reader.last()).record.header;
}
function isWhole(header) {
  return Object.values(header.exports).every((entry) => entry.how === 'key') && header.state?.how === 'key';
}
// A rebuild as `ratefile at` does it: the export at the newest record, as far from its whole record as it gets.
const reader = await ArchiveReader.open(archive.store);
const lastAt = await reader.last();
const rebuildStarted = performance.now();
const rebuilt = await reader.stream(lastAt, 'parserfile.xml');
const rebuildMs = performance.now() - rebuildStarted;
const diffs = records
  .slice(1)
  .filter((r) => !r.whole)
  .map((r) => r.bytes);
const wholes = records.filter((r) => r.whole).map((r) => r.bytes);
const mean = (values) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
// At a 1 s schedule: a whole record every 200 records (the 15-minute rule is looser: 900 builds).
const perBuild = (mean(diffs) * 199 + mean(wholes)) / 200;
await archive.close();
await rm(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    directions,
    builds,
    moving: { share: moving, quotes: moves.size, of: base.length },
    exportBytes: rebuilt?.length,
    diffRecordBytes: { median: Math.round(median(diffs)), mean: Math.round(mean(diffs)) },
    wholeRecordBytes: Math.round(mean(wholes)),
    bytesPerBuild: Math.round(perBuild),
    bytesPerDayAt1s: Math.round(perBuild * 86_400),
    bytesFor30DaysAt1s: Math.round(perBuild * 86_400 * 30),
    recordMs: { median: Number(median(recordMs).toFixed(1)), max: Number(Math.max(...recordMs).toFixed(1)) },
    rebuildMs: Number(rebuildMs.toFixed(1)),
    recordsSinceWhole: records.length - 1 - records.findLastIndex((r) => r.whole),
  }),
);
