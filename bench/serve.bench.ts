// Serving benchmark: ratefile's server against nginx (the shipped deploy/nginx.conf) on the same files, with
// autocannon on loopback: plain, gzip, and conditional (If-None-Match) requests for a 10k-direction export.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { expect, it } from 'vitest';
import { loadConfig } from '../src/io/config/load.js';
import { runCycle } from '../src/io/build/cycle.js';
import { findNginx, startNginx } from '../test/nginx/nginx.js';
// @ts-expect-error plain JavaScript module of the build benchmark
import { writeBenchProject } from './generate.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = 8;

async function startRatefile(out: string): Promise<{ port: number; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    ['bin/ratefile.js', 'serve', '--out', out, '--port', '0', '--host', '127.0.0.1'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      const match = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', () => reject(new Error(`ratefile serve exited: ${stderr}`)));
  });
  return {
    port,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Requests per second answered with `expected` (200, or 304 for conditional requests); anything else counts as an error. */
async function load(url: string, headers: Record<string, string>, expected = 200) {
  const result = await autocannon({ url, connections, duration: seconds, headers });
  const answered = result.statusCodeStats?.[String(expected)]?.count ?? 0;
  const total = result.requests.total;
  return {
    rps: Math.round((result.requests.average * answered) / Math.max(total, 1)),
    mbps: result.throughput.average / 2 ** 20,
    p99: result.latency.p99,
    errors: result.errors + (total - answered),
  };
}

it('serves exports at least as fast as the targets say', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-serve-bench-'));
  const running: { stop(): Promise<void> }[] = [];
  try {
    await (writeBenchProject as (dir: string, count: number) => Promise<number>)(dir, 10_000);
    const config = await loadConfig(join(dir, 'ratefile.config.yaml'));
    const out = join(dir, 'public');
    // nginx's workers may run as another user: the folders must be traversable, as in a real deployment.
    await chmod(dir, 0o755);
    await runCycle(config, out, { now: () => new Date() });
    const size = (await readFile(join(out, 'parserfile.xml'))).length;
    const gzSize = (await readFile(join(out, 'parserfile.xml.gz'))).length;

    const binary = findNginx();
    const ours = await startRatefile(out);
    const shipped = await startNginx({ binary, dir: join(dir, 'nginx-static'), root: out });
    // nginx compressing every response itself: the shipped config with gzip_static off.
    const withoutStatic = (site: string) => {
      if (!site.includes('gzip_static on;'))
        throw new Error('deploy/nginx.conf no longer has "gzip_static on;": update the benchmark');
      return site.replace('gzip_static on;', 'gzip_static off;');
    };
    const onTheFly = await startNginx({ binary, dir: join(dir, 'nginx-fly'), root: out, adjustSite: withoutStatic });
    running.push(ours, shipped, onTheFly);

    const scenarios = [
      { server: 'ratefile serve', port: ours.port, kinds: ['plain', 'gzip', 'conditional'] },
      { server: 'nginx, deploy/nginx.conf (gzip_static)', port: shipped.port, kinds: ['plain', 'gzip', 'conditional'] },
      { server: 'nginx, on-the-fly gzip', port: onTheFly.port, kinds: ['gzip'] },
    ] as const;
    const rows: string[] = [];
    const results = new Map<string, number>();
    for (const scenario of scenarios) {
      const url = `http://127.0.0.1:${scenario.port}/parserfile.xml`;
      const gzipEtag = (await fetch(url, { headers: { 'Accept-Encoding': 'gzip' } })).headers.get('etag') ?? '';
      for (const kind of scenario.kinds) {
        const headers: Record<string, string> =
          kind === 'plain'
            ? {}
            : kind === 'gzip'
              ? { 'Accept-Encoding': 'gzip' }
              : { 'Accept-Encoding': 'gzip', 'If-None-Match': gzipEtag };
        const r = await load(url, headers, kind === 'conditional' ? 304 : 200);
        results.set(`${scenario.server}/${kind}`, r.rps);
        rows.push(`| ${scenario.server} | ${kind} | ${r.rps} | ${r.mbps.toFixed(1)} | ${r.p99} | ${r.errors} |`);
      }
    }
    const fly = { rps: results.get('nginx, on-the-fly gzip/gzip') ?? 0 };

    const ourPlain = results.get('ratefile serve/plain') ?? 0;
    const nginxPlain = results.get('nginx, deploy/nginx.conf (gzip_static)/plain') ?? 1;
    const ourGzip = results.get('ratefile serve/gzip') ?? 0;
    console.log(
      [
        `\nserving benchmark: parserfile.xml of 10k directions, ${(size / 2 ** 20).toFixed(2)} MB (${(gzSize / 2 ** 10).toFixed(0)} KB gzip), autocannon ${connections} connections × ${seconds} s on loopback`,
        '',
        '| server | request | req/s | MB/s | p99 ms | errors |',
        '|---|---|---|---|---|---|',
        ...rows,
        '',
        'targets:',
        `- gzip ≥ nginx on-the-fly gzip: ${ourGzip} vs ${fly.rps} req/s → ${ourGzip >= fly.rps ? 'holds' : 'MISSED'}`,
        `- plain ≥ 50% of nginx: ${ourPlain} vs ${nginxPlain} req/s (${Math.round((100 * ourPlain) / nginxPlain)}%) → ${ourPlain >= nginxPlain / 2 ? 'holds' : 'MISSED'}`,
      ].join('\n'),
    );
    expect(ourPlain).toBeGreaterThan(0);
  } finally {
    for (const server of running) await server.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
});
