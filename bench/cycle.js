// One benchmark size in its own process (so peak RSS is this size's alone): full build cycles over the
// `file` source with quotes moving every cycle, phase timings, and two yardsticks measured in the same run:
// the floor (the unavoidable work for the same output: the final bytes of the three exports written to
// files and compressed at the configured gzip and brotli levels) and the bare template-literal writer.
// The config has a `bestchange` source (every tenth direction competes in its field), served from a file on
// loopback, and the cycles keep a QuoteCache as the service does: the feed is fetched and parsed once per
// refresh (30 s), not per build, and the output counts both.
// Usage: node bench/cycle.js DIRECTIONS CYCLES  → prints one JSON line.
import { createServer } from 'node:http';
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBenchProject } from './generate.js';
import { writeFile as writeBytes } from 'node:fs/promises';
import { loadConfig } from '../dist/config/load.js';
import { runCycle } from '../dist/cycle.js';
import { QuoteCache } from '../dist/quotes.js';
import { itemElements, selectExports } from '../dist/exports/select.js';
import { compress } from '../dist/publish.js';

const [count = 10000, cycles = 15] = process.argv.slice(2).map(Number);
const dir = await mkdtemp(join(tmpdir(), 'ratefile-bench-'));
const directions = await writeBenchProject(dir, count, { bestchange: true });
// BestChange's info.zip from a loopback server that counts what it sends (no ETag: every fetch is a new feed, parsed).
const infoZip = await readFile(join(dir, 'info.zip'));
let feedFetches = 0;
const feedServer = createServer((request, response) => {
  feedFetches += 1;
  response.writeHead(200, { 'content-type': 'application/zip', 'content-length': infoZip.length }).end(infoZip);
});
await new Promise((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
const env = { ...process.env, RATEFILE_BESTCHANGE_URL: `http://127.0.0.1:${feedServer.address().port}` };
const quoteCache = new QuoteCache();
const config = await loadConfig(join(dir, 'ratefile.config.yaml'));
// What the process holds before any build: Node itself, the generator's text and the loaded config.
const configRssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
const quotesPath = join(dir, 'quotes.json');
const baseQuotes = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(quotesPath, 'utf8'))).quotes;

/** Move every price by a small step so each cycle prices and writes new numbers, as with live quotes. */
async function moveQuotes(cycle) {
  const factor = 1 + ((cycle % 7) - 3) / 1000;
  const quotes = baseQuotes.map((q) => ({ ...q, bid: (Number(q.bid) * factor).toFixed(6), ask: (Number(q.ask) * factor).toFixed(6) }));
  await writeFile(quotesPath, JSON.stringify({ quotes }));
}

/** The limit: the same items written by the plainest template-literal writer, no checks, no escaping. */
function bareWriter(items) {
  let text = '<?xml version="1.0" encoding="UTF-8"?>\n<rates>';
  for (const item of items) {
    text += '\n  <item>';
    for (const name of itemElements) if (item[name] !== undefined) text += `\n    <${name}>${item[name]}</${name}>`;
    text += '\n  </item>';
  }
  return `${text}\n</rates>\n`;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rows = { cycle: [], fetch: [], price: [], render: [], publish: [], floor: [], limit: [] };
// Guards off: every cycle's quotes move, and the bench measures the work, not the jump guard holding items back.
const benchConfig = { ...config, guards: { ...config.guards, maxJump: config.guards.maxJump.plus(1) } };
let last;
const cyclesStarted = performance.now();
for (let cycle = -2; cycle < cycles; cycle++) {
  await moveQuotes(cycle + 10);
  // The previous cycle's files are let go first: the service keeps a build's report, never its files.
  last = undefined;
  last = await runCycle(benchConfig, join(dir, 'public'), { now: () => new Date(), env, quoteCache });
  if (cycle < 0) continue; // warm-up
  const t = last.build.report.timings;
  rows.cycle.push(last.durationMs);
  rows.fetch.push(t.fetchMs);
  rows.price.push(t.priceMs);
  rows.render.push(t.renderMs);
  rows.publish.push(last.publishMs);
}
const feed = { builds: cycles + 2, fetched: feedFetches, seconds: Math.round((performance.now() - cyclesStarted) / 1000), competing: last.build.report.competition?.size ?? 0 };
feedServer.close();
// Peak RSS of the cycles alone: the bare writer's own garbage below is not ratefile's.
const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
// The limit, after the cycles so that its garbage is not collected inside a measured cycle: the last
// cycle's items written by the bare writer, as many times as there were cycles.
const models = selectExports(last.build.report.priced, config.exports);
for (let round = -2; round < cycles; round++) {
  const started = performance.now();
  for (const model of models) Buffer.from(bareWriter(model.items), 'utf8');
  if (round >= 0) rows.limit.push(performance.now() - started);
}
// The floor: the last cycle's final bytes, written as the three files and their .gz/.br copies made with
// publish's own compress() (the configured levels, on libuv's pool as publish does), into a folder of its own.
const floorDir = join(dir, 'floor');
await import('node:fs/promises').then((fs) => fs.mkdir(floorDir));
for (let round = -2; round < cycles; round++) {
  const started = performance.now();
  await Promise.all(
    last.build.files.map(async ({ file, bytes }) => {
      const { gzipped, brotli } = await compress(bytes);
      const path = join(floorDir, file);
      await Promise.all([writeBytes(path, bytes), writeBytes(`${path}.gz`, gzipped), writeBytes(`${path}.br`, brotli)]);
    }),
  );
  if (round >= 0) rows.floor.push(performance.now() - started);
}
const items = last.build.report.exports.map((e) => e.items);
await rm(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    directions,
    items,
    cycles,
    medianMs: Object.fromEntries(Object.entries(rows).map(([name, values]) => [name, Number(median(values).toFixed(1))])),
    peakRssMb,
    configRssMb,
    feed,
  }),
);
