// What a hostile 10 MB JSON answer costs a source (issue 33 item 5): for each shape, a fresh child process serves
// it from another process on loopback to a `json` source (or reads it as a `file` source's quotes.json), and reports
// the rise of its peak RSS over its state before the fetch and the longest event-loop stall while it was read.
// Usage: npm run build && node --expose-gc bench/hostile-json.js [SHAPE json|file]  → one JSON line per shape and reader.
import { spawn } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measuredRead } from './measured-read.js';

const size = 10_000_010;
/** Each shape as bytes of at most `size`: the nesting, and wide ones a depth bound does not stop. */
const shapes = {
  deep: () => `{"rates":${'['.repeat(4_999_995)}${']'.repeat(4_999_995)}}`,
  'deep-in-strings': () => `{"a":"${'[\\"'.repeat(3_333_330)}"}`,
  'wide-numbers': () => `{"rates":[${'12,'.repeat(3_333_330)}1]}`,
  'wide-objects': () => `{"rates":[${'{},'.repeat(3_333_330)}{}]}`,
  'wide-keys': () => `{${Array.from({ length: 700_000 }, (_, i) => `"k${i}":1`).join(',')}}`,
};

const [shape, reader, url] = process.argv.slice(2);
const bodyOf = (name) => Buffer.from(shapes[name]().padEnd(size, ' '));
if (!shape) {
  // The hostile server is a third party: it runs here, each measuring child on its own.
  let body;
  const server = createServer((_request, response) => response.end(body));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = `http://127.0.0.1:${server.address().port}/rates`;
  const self = new URL(import.meta.url).pathname;
  for (const name of Object.keys(shapes)) {
    body = bodyOf(name);
    for (const how of ['json', 'file']) {
      const child = spawn(process.execPath, ['--expose-gc', self, name, how, address], { stdio: 'inherit' });
      await new Promise((resolve) => child.on('exit', resolve));
    }
  }
  server.close();
} else {
  const dir = mkdtempSync(join(tmpdir(), 'ratefile-hostile-'));
  if (reader === 'file') writeFileSync(join(dir, 'quotes.json'), bodyOf(shape));
  const { sourceDefinition } = await import('../dist/io/sources/index.js');
  const options =
    reader === 'json'
      ? { type: 'json', url, pairs: { 'BTC/USDT': 'rates.bid' }, retries: 0, timeout: '60s' }
      : { type: 'file', path: 'quotes.json' };
  const definition = sourceDefinition(reader);
  const parsed = definition.options.parse(options);
  const context = {
    name: 'hostile',
    configDir: dir,
    fetch: globalThis.fetch,
    signal: new AbortController().signal,
    now: () => new Date(),
    env: {},
  };
  globalThis.gc();
  const before = process.memoryUsage().rss;
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  const { stallMs, cpuMs, ms, outcome } = await measuredRead(async () => {
    await definition.fetchQuotes(parsed, context);
    return 'read';
  });
  const peak = process.resourceUsage().maxRSS * 1024;
  const mb = (bytes) => Math.round(bytes / 2 ** 20);
  console.log(
    JSON.stringify({
      shape,
      reader,
      rssRiseMb: mb(peak - Math.max(before, peakBefore)),
      stallMs,
      cpuMs,
      ms,
      outcome,
    }),
  );
  rmSync(dir, { recursive: true, force: true });
}
