// `npm run bench`: full build cycles at 1k, 10k and 50k directions, each size in a fresh process.
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';

const sizes = process.env.BENCH_CHECK_ONLY
  ? []
  : [
      [1000, 21],
      [10000, 15],
      [50000, 5],
    ];
// Targets are ratios within one run (absolute times move 2× between machines) and one memory bound.
const targets = { floorRatio: 2, rss50k: 300, linearSpread: 0.3 };

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
  'the cycles keep a QuoteCache as `start` does. config RSS = the process before its first build (Node + the loaded config).\n',
);
const header = [
  'directions',
  'items',
  'cycle',
  'fetch',
  'price',
  'render',
  'publish',
  'floor',
  'cycle/floor',
  'writer',
  'config RSS MB',
  'peak RSS MB',
];
console.log(`| ${header.join(' | ')} |`);
console.log(`|${header.map(() => '---').join('|')}|`);
const results = [];
for (const [count, cycles] of sizes) {
  const out = execFileSync(
    process.execPath,
    ['--max-old-space-size=4096', new URL('./cycle.js', import.meta.url).pathname, String(count), String(cycles)],
    {
      encoding: 'utf8',
    },
  );
  const r = JSON.parse(out.trim().split('\n').pop());
  results.push(r);
  const m = r.medianMs;
  const items = r.items.reduce((a, b) => a + b, 0);
  console.log(
    `| ${[r.directions, items, m.cycle, m.fetch, m.price, m.render, m.publish, m.floor, (m.cycle / m.floor).toFixed(2), m.limit, r.configRssMb, r.peakRssMb].join(' | ')} |`,
  );
}
const verdict = (ok) => (ok ? 'holds' : 'MISSED');
// BENCH_CHECK_ONLY=1 skips the build cycles (minutes) for the export check alone.
if (results.length === sizes.length && results.length > 0) {
  const [, ten, fifty] = results;
  console.log('\ntargets:');
  for (const r of [ten, fifty]) {
    const ratio = r.medianMs.cycle / r.medianMs.floor;
    console.log(
      `- ${r.directions / 1000}k directions: cycle / floor ≤ ${targets.floorRatio}: ${r.medianMs.cycle} / ${r.medianMs.floor} ms = ${ratio.toFixed(2)} → ${verdict(ratio <= targets.floorRatio)}`,
    );
    // CPU of all the process's threads: the floor's compression runs on libuv's pool, so on few cores the wall
    // ratio cannot fall much below the CPU ratio however well the phases overlap.
    console.log(
      `  CPU (all threads): cycle ${r.medianMs.cycleCpu} ms, floor ${r.medianMs.floorCpu} ms = ${(r.medianMs.cycleCpu / r.medianMs.floorCpu).toFixed(2)}`,
    );
  }
  console.log(
    `- 50k peak RSS ≤ ${targets.rss50k} MB: ${fifty.peakRssMb} MB → ${verdict(fifty.peakRssMb <= targets.rss50k)}`,
  );
  // The same size once more with the malloc setting deploy/ratefile.service gives the service (glibc only).
  const unitEnv = { ...process.env, MALLOC_MMAP_THRESHOLD_: '131072' };
  const tuned = JSON.parse(
    execFileSync(
      process.execPath,
      ['--max-old-space-size=4096', new URL('./cycle.js', import.meta.url).pathname, '50000', '3'],
      { encoding: 'utf8', env: unitEnv },
    )
      .trim()
      .split('\n')
      .pop(),
  );
  console.log(
    `  with deploy/ratefile.service's MALLOC_MMAP_THRESHOLD_=131072: ${tuned.peakRssMb} MB (cycle ${tuned.medianMs.cycle} ms) → ${verdict(tuned.peakRssMb <= targets.rss50k)}`,
  );
  // The feed's parse: the loopback server answers every fetch with a new feed (no ETag), so fetches = parses.
  for (const r of results) {
    const { builds, fetched, seconds, competing } = r.feed;
    console.log(
      `- ${r.directions / 1000}k: bestchange feed fetched and parsed ${fetched}× in ${builds} builds over ${seconds} s (${competing} directions competing; once per 30 s refresh, not per build) → ${verdict(fetched <= Math.ceil(seconds / 30) + 1 && fetched < builds)}`,
    );
  }
  // Linear: every size's cost per direction within ±30% of their mean.
  const perDirection = results.map((r) => r.medianMs.cycle / r.directions);
  const mean = perDirection.reduce((a, b) => a + b, 0) / perDirection.length;
  const spread = Math.max(...perDirection.map((v) => Math.abs(v / mean - 1)));
  console.log(
    `- linear: ms per direction ${perDirection.map((v) => v.toFixed(4)).join(' / ')} (1k / 10k / 50k), at most ${(spread * 100).toFixed(0)}% from their mean (≤ ±${targets.linearSpread * 100}%) → ${verdict(spread <= targets.linearSpread)}`,
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
    `\nfreshness: a quotes-file change served over HTTP, ${latency.directions / 1000}k directions, schedule every 1 s, ${latency.changes} changes: p50 ${latency.p50Ms} ms, p99 ${latency.p99Ms} ms (max ${latency.maxMs})`,
  );
}

// Fast start (issue 24): `ratefile --version` and `--help` against a bare `node -e 0`, and the modules each loads.
const startup = execFileSync(process.execPath, [new URL('./startup.js', import.meta.url).pathname, '21'], {
  encoding: 'utf8',
})
  .trim()
  .split('\n');
console.log(`\n${startup.slice(0, -1).join('\n')}`);
