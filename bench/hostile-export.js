// What a hostile export file costs the `exportfile` source (issue 45 item 1): 80,000 items in 5 MB, inside every
// bound (10 MB, 64 levels, 500,000 values), each item drawing six findings of the check. The file is served from
// this process on loopback; a fresh child reads it once through the source and reports the longest event-loop stall
// while it was read (how long `start` could answer neither the exports nor /healthz), the CPU time, the wall time,
// and its RSS before, at the peak and after the read (after a GC).
// Usage: npm run build && node --expose-gc bench/hostile-export.js [DIST]  → one JSON line (DIST: another build's
// dist/ folder, to measure it the same way: the "before").
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { measuredRead } from './measured-read.js';

const items = Number(process.env.BENCH_EXPORT_ITEMS ?? 80_000);
const [dist = fileURLToPath(new URL('../dist/', import.meta.url)), url] = process.argv.slice(2);

/** Every item: unknown codes, a zero `in`, an `out` that is no number, no amount: six findings. */
function hostileFile() {
  const lines = Array.from(
    { length: items },
    (_, i) => `<item><from>Q${i % 997}</from><to>W${i % 991}</to><in>0</in><out>x</out></item>`,
  );
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n${lines.join('\n')}\n</rates>\n`);
}

if (url === undefined) {
  // The hostile upstream is a third party: it runs here, the measured reader on its own.
  const body = hostileFile();
  const server = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'application/xml' }).end(body),
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = `http://127.0.0.1:${server.address().port}/export.xml`;
  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ['--expose-gc', self, dist, address], { stdio: 'inherit' });
  await new Promise((resolve) => child.on('exit', resolve));
  console.error(`(${body.length} bytes, ${items} items)`);
  server.close();
} else {
  const { sourceDefinition } = await import(pathToFileURL(`${dist}/io/sources/index.js`).href);
  const definition = sourceDefinition('exportfile');
  const options = definition.options.parse({
    type: 'exportfile',
    url,
    pairs: { 'BTC/USDT': { bid: 'BTC>USDTTRC20', ask: 'USDTTRC20>BTC' } },
    retries: 0,
    timeout: '60s',
  });
  const context = {
    name: 'hostile',
    configDir: '.',
    fetch: globalThis.fetch,
    userAgent: 'ratefile-bench',
    signal: new AbortController().signal,
    now: () => new Date(),
    env: {},
  };
  globalThis.gc();
  const mb = (bytes) => Math.round(bytes / 2 ** 20);
  const before = process.memoryUsage().rss;
  const { stallMs, cpuMs, ms, outcome } = await measuredRead(async () => {
    const result = await definition.fetchQuotes(options, context);
    return `read: ${result.quotes.length} quotes, ${result.problems.length} problems`;
  });
  const peak = process.resourceUsage().maxRSS * 1024;
  globalThis.gc();
  await new Promise((resolve) => setTimeout(resolve, 100));
  globalThis.gc();
  const after = process.memoryUsage().rss;
  console.log(
    JSON.stringify({
      dist,
      rssBeforeMb: mb(before),
      rssPeakMb: mb(peak),
      rssAfterMb: mb(after),
      stallMs,
      cpuMs,
      ms,
      outcome,
    }),
  );
}
