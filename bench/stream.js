// Freshness from a stream: `ratefile start` on a generated exchanger whose crypto legs come from a `binance` source in
// stream mode (`minInterval: 0s`), fed by a loopback WebSocket venue that moves every book ticker 10 times a second;
// per tick, the time until all three exports and their .gz/.br copies are served over HTTP with a rate at least as
// new as the tick's. The first direction of the config, BTC → USDTTRC20, is the marker: its bid rises a little with
// every tick, so the first item of each file tells which tick it was built from (read from the first bytes, the
// compressed copies read as they are decoded). parserfile.xml's HEAD is polled every 10 ms; when its ETag changes,
// every file is read, again every 10 ms while any lags behind it.
// Usage: node bench/stream.js [DIRECTIONS=10000] [SECONDS=30] → prints one JSON line.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocketServer } from 'ws';
import { cryptoAssets, writeBenchProject } from './generate.js';

const [count = 10000, seconds = 30] = process.argv.slice(2).map(Number);
const tickMs = 100;
const margin = 0.015;
const files = [
  { file: 'parserfile.xml', markup: 0 },
  { file: 'reffile.xml', markup: 0 },
  { file: 'affiliatefile.xml', markup: 0.005 },
];
const encodings = ['identity', 'gzip', 'br'];

const dir = await mkdtemp(join(tmpdir(), 'ratefile-stream-'));
const directions = await writeBenchProject(dir, count);
const quotes = JSON.parse(readFileSync(join(dir, 'quotes.json'), 'utf8')).quotes;
const streamed = quotes.filter((q) => cryptoAssets.has(q.pair.split('/')[0]));
const book = new Map(streamed.map((q) => [q.pair.replace('/', ''), { bid: Number(q.bid), ask: Number(q.ask) }]));
const marker = book.get('BTCUSDT');

// The loopback venue: book tickers on the combined stream, and the REST answer the source falls back to.
const venue = new WebSocketServer({ host: '127.0.0.1', port: 0 });
await new Promise((resolve) => venue.once('listening', resolve));
const sockets = new Set();
venue.on('connection', (socket) => {
  socket.on('message', (data) => {
    const request = JSON.parse(data.toString());
    socket.send(JSON.stringify({ result: null, id: request.id }));
    sockets.add(socket);
  });
  socket.on('close', () => sockets.delete(socket));
});
const rest = createServer((request, response) => {
  const body = [...book].map(([symbol, q]) => ({ symbol, bidPrice: q.bid.toFixed(8), askPrice: q.ask.toFixed(8) }));
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
});
await new Promise((resolve) => rest.listen(0, '127.0.0.1', resolve));

const configPath = join(dir, 'ratefile.config.yaml');
const pairs = streamed.map((q) => q.pair).join(', ');
const config = readFileSync(configPath, 'utf8')
  .replace(
    'feed: { type: file, path: quotes.json }',
    `feed: { type: file, path: quotes.json, maxAge: 1h }\n  binance: { type: binance, priority: 10, pairs: [${pairs}], stream: { url: "ws://127.0.0.1:${venue.address().port}", minInterval: 0s } }`,
  )
  .replace(/ {2}- \{ from: BTC, to: USDTTRC20,[^\n]*\n/, '')
  .replace('directions:\n', 'directions:\n  - { from: BTC, to: USDTTRC20, tags: [ref] }\n');
await writeFile(configPath, `${config}schedule: "0 0 * * * *"\nguards: { maxJump: 50% }\n`);

const bin = new URL('../bin/ratefile.js', import.meta.url).pathname;
const child = spawn(
  process.execPath,
  [
    ...(process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : []),
    bin,
    'start',
    '--config',
    configPath,
    '--port',
    '0',
    '--host',
    '127.0.0.1',
  ],
  {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, RATEFILE_BINANCE_URL: `http://127.0.0.1:${rest.address().port}` },
  },
);
let log = '';
child.stderr.setEncoding('utf8');
child.stderr.on('data', (chunk) => {
  log = (log + chunk).slice(-20_000);
});
const until = async (test, timeoutMs, what) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await test();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; log:\n${log.slice(-2000)}`);
    await sleep(10);
  }
};

/**
 * The marker direction's published `out` in the first bytes of a served file; fetch undoes the Content-Encoding of a
 * compressed copy as it reads, so the start of the stream is enough.
 */
async function servedOut(url, encoding) {
  const response = await fetch(url, { headers: { 'accept-encoding': encoding } });
  const sent = response.headers.get('content-encoding') ?? 'identity';
  if (sent !== encoding) throw new Error(`${url} served ${sent} to a client asking for ${encoding}`);
  const reader = response.body.getReader();
  let text = '';
  while (!/<out>[\d.]+<\/out>/.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString();
  }
  await reader.cancel();
  const out = /<out>([\d.]+)<\/out>/.exec(text)?.[1];
  return out === undefined ? undefined : Number(out);
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const loadBefore = loadavg()[0];
try {
  const base = await until(() => /serving .+ at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(log)?.[1], 300_000, 'the server');
  await until(() => sockets.size > 0, 120_000, 'the stream');
  const targets = files.flatMap(({ file, markup }) =>
    encodings.map((encoding) => ({ url: new URL(file, base), encoding, markup, etag: '', out: 0 })),
  );
  // Per tick: when it was sent and the marker bid it set; resolved once every file serves it (or a later one).
  const pending = [];
  const latencies = [];
  let ticking = true;
  const read = async (target) => {
    const head = await fetch(target.url, { method: 'HEAD', headers: { 'accept-encoding': target.encoding } });
    const etag = head.headers.get('etag') ?? '';
    if (etag === target.etag) return false;
    target.etag = etag;
    target.out = (await servedOut(target.url, target.encoding)) ?? 0;
    return true;
  };
  const [first, ...others] = targets;
  const poll = (async () => {
    while (ticking || pending.length > 0) {
      // One HEAD every 10 ms while nothing changes (the probe must not steal the builds' CPU); the other eight files
      // are read once the first changed, and while any of them lags behind it.
      const changed = await read(first);
      if (changed && process.env.BENCH_DEBUG) {
        const status = JSON.parse(readFileSync(join(dir, '.ratefile', 'status.json'), 'utf8'));
        console.error(
          `served at ${Math.round(performance.now())}: build ${status.lastBuild.durationMs} ms, pending ${pending.length}`,
        );
      }
      if (changed || others.some((t) => t.out < first.out * (1 - t.markup) * (1 - 2e-6)))
        await Promise.all(others.map(read));
      const now = performance.now();
      while (pending.length > 0) {
        const tick = pending[0];
        // A file built from this tick or a later one prints at least the marker's rate at this tick's bid, rounded
        // down to 4 places (2e-6 of it is far below the 1e-5 a tick moves it by, far above the rounding).
        const served = targets.every((t) => t.out >= tick.bid * (1 - margin) * (1 - t.markup) * (1 - 2e-6));
        if (!served) {
          if (process.env.BENCH_DEBUG)
            console.error(
              'waiting',
              tick.bid,
              targets.map((t) => `${t.url.pathname}:${t.encoding}=${t.out}`).join(' '),
            );
          break;
        }
        latencies.push(now - tick.sentAt);
        pending.shift();
      }
      await sleep(10);
    }
  })();
  const ticks = Math.round((seconds * 1000) / tickMs);
  for (let k = 1; k <= ticks; k++) {
    // Every book ticker moves; the marker's bid rises by 1e-5 of itself each tick, the others swing ±0.1%.
    const swing = k % 2 === 0 ? 1.001 : 1 / 1.001;
    for (const [symbol, q] of book) {
      if (q === marker) {
        q.bid = marker.bid * 1.00001;
        q.ask = q.bid * 1.0005;
      } else [q.bid, q.ask] = [q.bid * swing, q.ask * swing];
    }
    const frames = [...book].map(([symbol, q]) =>
      JSON.stringify({
        stream: `${symbol.toLowerCase()}@bookTicker`,
        data: { u: k, s: symbol, b: q.bid.toFixed(8), B: '1.0', a: q.ask.toFixed(8), A: '1.0' },
      }),
    );
    const sentAt = performance.now();
    for (const socket of sockets) for (const frame of frames) socket.send(frame);
    pending.push({ sentAt, bid: Number(marker.bid.toFixed(8)) });
    await sleep(Math.max(0, tickMs - (performance.now() - sentAt)));
  }
  ticking = false;
  await Promise.race([poll, sleep(120_000).then(() => Promise.reject(new Error('ticks never served')))]);
  const sorted = [...latencies].sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      directions,
      ticks: latencies.length,
      streamedPairs: book.size,
      p50Ms: Math.round(percentile(sorted, 50)),
      p99Ms: Math.round(percentile(sorted, 99)),
      maxMs: Math.round(sorted.at(-1)),
      loadBefore: Number(loadBefore.toFixed(2)),
      loadAfter: Number(loadavg()[0].toFixed(2)),
    }),
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('close', resolve));
  for (const socket of venue.clients) socket.terminate();
  venue.close();
  rest.close();
  await rm(dir, { recursive: true, force: true });
}
