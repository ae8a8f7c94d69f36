// `npm run bench`: full build cycles at 1k, 10k, 50k and 100k directions, each size in a fresh process.
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';

// BENCH_SIZES=1k,10k,50k picks the sizes (the default adds 100k); cycles per size fall as sizes grow.
const cyclesAt = { 1000: 21, 10000: 15, 50000: 5, 100000: 3 };
const sizes = process.env.BENCH_CHECK_ONLY
  ? []
  : (process.env.BENCH_SIZES ?? '1k,10k,50k,100k')
      .split(',')
      .map((size) => Number(size.trim().replace(/k$/i, '000')))
      .map((count) => {
        if (!Number.isInteger(count) || count <= 0) throw new Error(`BENCH_SIZES: expected sizes like 1k,10k,50k,100k`);
        return [count, cyclesAt[count] ?? 5];
      });
// Targets are ratios within one run (absolute times move 2× between machines) and memory bounds.
const targets = {
  floorRatio: 2,
  rssMb: { 50000: 300, 100000: 450 },
  linearSpread: 0.2,
  freshnessP99Ms: 1000,
  streamP99Ms: 250,
  consensusRatio: 1.3,
  movingShare: 0.2,
  movingRatio: 1.5,
};
// The machine is too busy for the figures to count when its load average per core, before the bench or after
// a size (the bench itself keeps about one core busy), is above these.
const busy = { before: 0.5, after: 1.25 };
const cores = cpus().length;
const perCore = () => loadavg()[0] / cores;
const loadText = (value) => `${(value * cores).toFixed(2)} (${value.toFixed(2)} per core)`;
const loads = [];
/** The 1-minute load average per core now, remembered with what it is said of; true when it is too high. */
function noteLoad(when, limit) {
  const value = perCore();
  loads.push({ when, value, tooBusy: value > limit });
  return value;
}
noteLoad('before the bench', busy.before);
console.log(
  `ratefile build benchmark — Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB`,
);
console.log('median milliseconds per full cycle (3 exports); price includes guards, render includes selecting items;');
console.log(
  "floor = the same run's final bytes written as the three exports with their .gz/.br copies at the configured levels",
);
console.log(
  '(the unavoidable work for the same output); writer = the items written by a bare template-literal writer.',
);
console.log(
  'The config has a bestchange source (every tenth direction competes in its field, refresh 30 s) served on loopback;',
);
console.log(
  'the cycles keep a QuoteCache as `start` does. config RSS = the process before its first build (Node + the loaded config).',
);
console.log(
  `cycle/floor: each cycle against the floor measured right after it on its bytes, min / median / max over the cycles.`,
);
console.log(`load average before the bench: ${loadText(perCore())}\n`);
const header = [
  'directions',
  'items',
  'cycle',
  'fetch',
  'price',
  'render',
  'publish',
  'floor',
  'cycle/floor (min / med / max)',
  'CPU cycle/floor',
  'writer',
  'config RSS MB',
  'peak RSS MB',
  'load before → after',
];
console.log(`| ${header.join(' | ')} |`);
console.log(`|${header.map(() => '---').join('|')}|`);
const results = [];
for (const [count, cycles] of sizes) {
  const before = perCore();
  const out = execFileSync(
    process.execPath,
    ['--max-old-space-size=4096', new URL('./cycle.js', import.meta.url).pathname, String(count), String(cycles)],
    {
      encoding: 'utf8',
    },
  );
  const after = noteLoad(`after ${count / 1000}k`, busy.after);
  const r = JSON.parse(out.trim().split('\n').pop());
  results.push(r);
  const m = r.medianMs;
  const items = r.items.reduce((a, b) => a + b, 0);
  console.log(
    `| ${[r.directions, items, m.cycle, m.fetch, m.price, m.render, m.publish, m.floor, r.ratio.join(' / '), r.cpuRatio[1], m.limit, r.configRssMb, r.peakRssMb, `${(before * cores).toFixed(2)} → ${(after * cores).toFixed(2)}`].join(' | ')} |`,
  );
}
const verdict = (ok) => (ok ? 'holds' : 'MISSED');
// BENCH_CHECK_ONLY=1 skips the build cycles (minutes) for the export check alone.
const at = (count) => results.find((r) => r.directions === count);
if (results.length > 0) {
  console.log('\ntargets:');
  for (const r of [10000, 50000, 100000].map(at).filter(Boolean)) {
    const [low, ratio, high] = r.ratio;
    console.log(
      `- ${r.directions / 1000}k directions: cycle / floor ≤ ${targets.floorRatio}: median ${ratio} (min ${low}, max ${high}; ${r.medianMs.cycle} / ${r.medianMs.floor} ms) → ${verdict(ratio <= targets.floorRatio)}`,
    );
    // CPU of all the process's threads: the floor's compression runs on libuv's pool, so on few cores the wall
    // ratio cannot fall much below the CPU ratio however well the phases overlap.
    console.log(`  CPU (all threads), cycle / floor: ${r.cpuRatio.join(' / ')} (min / median / max)`);
  }
  for (const [count, limit] of Object.entries(targets.rssMb)) {
    const r = at(Number(count));
    if (!r) continue;
    // The target is the default environment's; beside it, the same size as deploy/ratefile.service and the image
    // run it (glibc's allocator told to return large freed buffers), in a process of its own with fewer cycles.
    const deployed = JSON.parse(
      execFileSync(
        process.execPath,
        ['--max-old-space-size=4096', new URL('./cycle.js', import.meta.url).pathname, count, '5'],
        {
          encoding: 'utf8',
          env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '131072' },
        },
      )
        .trim()
        .split('\n')
        .pop(),
    );
    console.log(
      `- ${Number(count) / 1000}k peak RSS ≤ ${limit} MB: ${r.peakRssMb} MB → ${verdict(r.peakRssMb <= limit)} (as deployed, MALLOC_MMAP_THRESHOLD_=131072: ${deployed.peakRssMb} MB)`,
    );
  }
  // The feed's parse: the loopback server answers every fetch with a new feed (no ETag), so fetches = parses.
  for (const r of results) {
    const { builds, fetched, seconds, competing } = r.feed;
    console.log(
      `- ${r.directions / 1000}k: bestchange feed fetched and parsed ${fetched}× in ${builds} builds over ${seconds} s (${competing} directions competing; once per 30 s refresh, not per build) → ${verdict(fetched <= Math.ceil(seconds / 30) + 1 && fetched < builds)}`,
    );
  }
  // Linear: every size's cost per direction within ±20% of their mean.
  if (results.length > 1) {
    const perDirection = results.map((r) => r.medianMs.cycle / r.directions);
    const mean = perDirection.reduce((a, b) => a + b, 0) / perDirection.length;
    const spread = Math.max(...perDirection.map((v) => Math.abs(v / mean - 1)));
    console.log(
      `- linear: ms per direction ${perDirection.map((v) => v.toFixed(4)).join(' / ')} (${results.map((r) => `${r.directions / 1000}k`).join(' / ')}), at most ${(spread * 100).toFixed(0)}% from their mean (≤ ±${targets.linearSpread * 100}%) → ${verdict(spread <= targets.linearSpread)}`,
    );
  }
}

// Redo only what changed: 10k directions where a fifth of the quotes (crypto legs) move each cycle and the rest
// hold, against the floor of that cycle's changed files (bench/cycle.js with its MOVING argument).
if (sizes.length > 0) {
  const moving = JSON.parse(
    execFileSync(
      process.execPath,
      [
        '--max-old-space-size=4096',
        new URL('./cycle.js', import.meta.url).pathname,
        '10000',
        '15',
        String(targets.movingShare),
      ],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .pop(),
  );
  const [low, ratio, high] = moving.ratio;
  const m = moving.medianMs;
  console.log(
    `\n${targets.movingShare * 100}% moving: ${moving.directions / 1000}k directions, ${moving.moving.quotes} of ${moving.moving.of} quotes move each cycle (crypto legs), ${moving.moving.written} of ${moving.items.length} exports changed: cycle ${m.cycle} ms (price ${m.price}, render ${m.render}, publish ${m.publish}) against the floor of the changed files ${m.floor} ms: median ${ratio} (min ${low}, max ${high}; ≤ ${targets.movingRatio}) → ${verdict(ratio <= targets.movingRatio)}`,
  );
  noteLoad('after the moving row', busy.after);
}

// Consensus (docs/formulas.md): 10k directions whose every pair is the median of three sources against the same
// exchanger priced from one source, cycles alternating in one process (bench/consensus.js).
if (!process.env.BENCH_CHECK_ONLY) {
  const c = JSON.parse(
    execFileSync(
      process.execPath,
      ['--max-old-space-size=4096', new URL('./consensus.js', import.meta.url).pathname, '10000', '15'],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .pop(),
  );
  console.log(
    `\nconsensus: ${c.directions} directions, ${c.pairs} pairs each the median of 3 sources (${c.missing} missing; ${c.published.consensus} published, ${c.published.single} with one source): median cycle ${c.medianMs.consensus} ms against ${c.medianMs.single} ms, ${c.ratio}× (≤ ${targets.consensusRatio}×) → ${verdict(c.ratio <= targets.consensusRatio)}`,
  );
}

// The archive's cost (issue 47): bytes per build at 10k directions, a fifth of the quotes moving, at a 1 s schedule,
// and the disk for 30 days of it; bytes, so the load does not move them (bench/archive.js).
if (!process.env.BENCH_CHECK_ONLY) {
  const a = JSON.parse(
    execFileSync(process.execPath, [new URL('./archive.js', import.meta.url).pathname, '10000', '240', '0.2'], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop(),
  );
  const gb = (bytes) => (bytes / 1e9).toFixed(1);
  console.log(
    `\narchive: ${a.directions} directions, ${a.moving.quotes} of ${a.moving.of} quotes moving, ${a.builds} builds a second apart: ${a.diffRecordBytes.median} bytes a record (median; a whole record ${a.wholeRecordBytes}), ${a.bytesPerBuild} bytes a build → ${gb(a.bytesPerDayAt1s)} GB a day, ${gb(a.bytesFor30DaysAt1s)} GB for 30 days; recording ${a.recordMs.median} ms (median), \`ratefile at\` rebuild ${a.rebuildMs} ms`,
  );
}

// The export check alone (`ratefile check`'s checker) on a generated 16,000-item file of about 3 MB, in its own process.
const checked = JSON.parse(
  execFileSync(process.execPath, [new URL('./check.js', import.meta.url).pathname, '16000', '7'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop(),
);
console.log('\nexport check, 16,000 items (median of 7; CPU time beside the wall clock):');
for (const [shape, r] of Object.entries(checked)) {
  console.log(
    `- ${shape === 'ours' ? "ratefile's shape" : 'real-file shape (suffixed limits, order, 1:0.96)'}: ${r.items} items, ${r.megabytes} MB, ${r.medianMs} ms (CPU ${r.medianCpuMs} ms), ${r.errors} errors, ${r.warnings} warnings`,
  );
}
const slowest = Math.max(...Object.values(checked).map((r) => r.medianMs));
console.log(`- a 3 MB, 16,000-item file checked in under 1 s: ${slowest} ms → ${slowest < 1000 ? 'holds' : 'MISSED'}`);

// The BestChange feed (issue 13): the real dump of test/fixtures/bestchange, parsed in its own process.
const feedBench = new URL('./bestchange.js', import.meta.url).pathname;
try {
  const feed = JSON.parse(
    execFileSync(process.execPath, ['--expose-gc', feedBench], { encoding: 'utf8' }).trim().split('\n').pop(),
  );
  console.log(
    `\nbestchange feed: ${feed.rows} rows parsed in ${feed.medianMs} ms median (target well under 1000), the feed holds ${feed.heldMb} MB of heap; parsing raises RSS by ${feed.parseRssMb} MB (target under 100; peak ${feed.peakRssMb} MB with Node itself) → ${feed.medianMs < 1000 && feed.parseRssMb < 100 ? 'holds' : 'MISSED'}`,
  );
} catch (error) {
  console.log(`\nbestchange feed: not measured (${error.message.split('\n')[0]})`);
}

// Freshness: quote-to-publish latency under `ratefile start` with a one-second schedule (BENCH_LATENCY=0 skips it).
if (process.env.BENCH_LATENCY !== '0' && !process.env.BENCH_CHECK_ONLY) {
  const latency = JSON.parse(
    execFileSync(process.execPath, [new URL('./latency.js', import.meta.url).pathname, '10000', '100'], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop(),
  );
  console.log(
    `\nfreshness: a quotes-file change served over HTTP, ${latency.directions / 1000}k directions, schedule every 1 s, ${latency.changes} changes: p50 ${latency.p50Ms} ms, p99 ${latency.p99Ms} ms (max ${latency.maxMs}); p99 ≤ ${targets.freshnessP99Ms} ms → ${verdict(latency.p99Ms <= targets.freshnessP99Ms)}`,
  );
  noteLoad('after the freshness line', busy.after);
}

// Following the market (issue 46): a tick of a streamed venue (loopback WebSocket, every book ticker moving 10 times a
// second) until all three exports and their .gz/.br copies serve it, 10k directions for 30 s (bench/stream.js).
if (process.env.BENCH_LATENCY !== '0' && !process.env.BENCH_CHECK_ONLY) {
  const stream = JSON.parse(
    execFileSync(process.execPath, [new URL('./stream.js', import.meta.url).pathname, '10000', '30'], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop(),
  );
  console.log(
    `\nstreamed tick → served: ${stream.directions / 1000}k directions, ${stream.streamedPairs} streamed pairs, ${stream.ticks} ticks: p50 ${stream.p50Ms} ms, p99 ${stream.p99Ms} ms (max ${stream.maxMs}); p99 ≤ ${targets.streamP99Ms} ms → ${verdict(stream.p99Ms <= targets.streamP99Ms)}`,
  );
  noteLoad('after the streamed line', busy.after);
}

// Soak: `ratefile start` on 3,000 directions rebuilding every second, quotes moving every build, RSS sampled
// (BENCH_SOAK_MINUTES, default 30; 0 skips it). RSS at the end within +20% of RSS at a sixth of the run (5 min of 30).
const soakMinutes = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
if (soakMinutes > 0 && !process.env.BENCH_CHECK_ONLY) {
  const soak = JSON.parse(
    execFileSync(process.execPath, [new URL('./soak.js', import.meta.url).pathname, '3000', String(soakMinutes)], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop(),
  );
  const grown = soak.endRssMb / soak.referenceRssMb - 1;
  console.log(
    `\nsoak: ${soak.directions} directions, schedule every 1 s, ${soak.minutes} min, ${soak.builds} builds: RSS ${soak.firstRssMb} MB after the first build, ${soak.referenceRssMb} MB at ${soak.referenceMinutes} min, ${soak.endRssMb} MB at the end (max ${soak.maxRssMb}); history holds ${soak.historyBuilds} builds; end within +20% of ${soak.referenceMinutes} min: ${(grown * 100).toFixed(0)}% → ${verdict(grown <= 0.2)}`,
  );
  noteLoad('after the soak', busy.after);
}

// Fast start (issue 24): `ratefile --version` and `--help` against a bare `node -e 0`, and the modules each loads.
const startup = execFileSync(process.execPath, [new URL('./startup.js', import.meta.url).pathname, '21'], {
  encoding: 'utf8',
})
  .trim()
  .split('\n');
console.log(`\n${startup.slice(0, -1).join('\n')}`);

// Where the memory goes, stage by stage, at 50k and 100k (BENCH_MEMORY=1; minutes, so off by default).
if (process.env.BENCH_MEMORY === '1' && !process.env.BENCH_CHECK_ONLY) {
  for (const count of [50000, 100000]) {
    const memory = JSON.parse(
      execFileSync(process.execPath, ['--expose-gc', new URL('./memory.js', import.meta.url).pathname, String(count)], {
        encoding: 'utf8',
      })
        .trim()
        .split('\n')
        .pop(),
    );
    console.log(`\nmemory by stage, ${count / 1000}k directions (MB; a full collection after each stage):`);
    console.log(
      '| stage | live heap | heap with garbage | V8 heap total | buffers outside the heap | export files | RSS | peak RSS |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const s of memory.stages)
      console.log(
        `| ${[s.stage, s.heapMb, s.heapWithGarbageMb, s.heapTotalMb, s.outsideHeapMb, s.filesMb, s.rssMb, s.peakRssMb].join(' | ')} |`,
      );
  }
}

// Whether the figures count: a machine busy with other work stretches every figure above (the 10k ratio was 2.48
// on a quiet machine and 5.50 with another job running).
noteLoad('at the end', busy.after);
const tooBusy = loads.filter((load) => load.tooBusy);
console.log(`\nload average: ${loads.map((load) => `${load.when} ${loadText(load.value)}`).join('; ')}`);
console.log(
  tooBusy.length === 0
    ? `the machine was quiet enough (per core ≤ ${busy.before} before, ≤ ${busy.after} after each part): the figures count.`
    : `the machine was too busy (${tooBusy.map((load) => `${load.when} ${load.value.toFixed(2)} per core`).join('; ')}; limits ${busy.before} before, ${busy.after} after): the figures do not count.`,
);
