// The cost of consensus: the same 10k-direction exchanger built twice in one process, once priced from one source
// and once with every pair the median of three sources (`rates:`, bench/generate.js --consensus), cycles
// alternating so both see the same machine. Quotes move every cycle in all three files. Guards off, as in cycle.js.
// Usage: node bench/consensus.js DIRECTIONS CYCLES → prints one JSON line: the median cycle of each and their ratio.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../dist/io/config/load.js';
import { runCycle } from '../dist/io/build/cycle.js';
import { QuoteCache } from '../dist/io/quotes/quotes.js';
import { movedQuotes, writeBenchProject } from './generate.js';

const [count = 10000, cycles = 15] = process.argv.slice(2).map(Number);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One project, loaded, with what moves its quotes. */
async function project(consensus) {
  const dir = await mkdtemp(join(tmpdir(), `ratefile-bench-${consensus ? 'median' : 'single'}-`));
  const directions = await writeBenchProject(dir, count, { consensus });
  const loaded = await loadConfig(join(dir, 'ratefile.config.yaml'));
  const config = { ...loaded, guards: { ...loaded.guards, maxJump: loaded.guards.maxJump.plus(1) } };
  const files = consensus ? ['quotes.json', 'quotes2.json', 'quotes3.json'] : ['quotes.json'];
  const base = files.map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')).quotes);
  const move = (cycle) =>
    Promise.all(
      files.map((file, index) =>
        writeFile(join(dir, file), JSON.stringify({ quotes: movedQuotes(base[index], 1 + ((cycle % 7) - 3) / 1000) })),
      ),
    );
  return { dir, directions, config, move, cache: new QuoteCache(), times: [] };
}

const single = await project(false);
const consensus = await project(true);
for (let cycle = -2; cycle < cycles; cycle++) {
  for (const run of cycle % 2 === 0 ? [single, consensus] : [consensus, single]) {
    await run.move(cycle + 10);
    const done = await runCycle(run.config, join(run.dir, 'public'), {
      now: () => new Date(),
      env: process.env,
      quoteCache: run.cache,
    });
    if (cycle >= 0) run.times.push(done.durationMs);
    run.last = done;
  }
}
const made = consensus.last.build.report.rates;
const published = (run) => run.last.build.report.directions.published.length;
for (const run of [single, consensus]) await rm(run.dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    directions: single.directions,
    cycles,
    pairs: made.length,
    missing: made.filter((d) => d.missing !== undefined).length,
    published: { single: published(single), consensus: published(consensus) },
    medianMs: {
      single: Number(median(single.times).toFixed(1)),
      consensus: Number(median(consensus.times).toFixed(1)),
    },
    ratio: Number((median(consensus.times) / median(single.times)).toFixed(3)),
  }),
);
