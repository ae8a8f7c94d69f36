// `ratefile edge nginx` under a real nginx: the generated lines go into a full nginx.conf (Part 1 in http { }, Part
// 2 in the server block of deploy/nginx.conf, before its export location), `nginx -t` accepts it (startNginx runs
// it and fails on a refusal), and nginx then does what the lines say: the caching headers of `server.headers` on
// the exports, a monitor's address never rate limited, anyone else limited. Run by `npm run test:nginx`.
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli.js';
import { rawRequest, type RawResponse } from '../support/http.js';
import { makeProject, sampleConfig, type Project } from '../support/project.js';
import { findNginx, startNginx, type Nginx } from './nginx.js';

const now = () => new Date('2026-11-21T12:00:30Z');
const offlineFetch: typeof globalThis.fetch = (input) =>
  Promise.reject(new Error(`network disabled in tests: ${String(input)}`));

const projects: Project[] = [];
const running: Nginx[] = [];
let scratch: string;

async function ratefile(dir: string, ...args: string[]): Promise<string> {
  let stdout = '';
  let stderr = '';
  const code = await run(['node', 'ratefile', ...args], {
    stdout: { write: (text: string) => ((stdout += text), true) },
    stderr: { write: (text: string) => ((stderr += text), true) },
    env: {},
    cwd: dir,
    now,
    fetch: offlineFetch,
    waitForStop: () => new Promise(() => undefined),
  });
  if (code !== 0) throw new Error(`ratefile ${args.join(' ')} failed (${code}):\n${stderr}`);
  return stdout;
}

/** A built project whose config has these monitors, and nginx serving it with `ratefile edge nginx`'s lines. */
async function edgeNginx(name: string, monitors: string): Promise<{ nginx: Nginx; recipe: string }> {
  const project = await makeProject({
    'ratefile.config.yaml': `${sampleConfig}${monitors}server: { headers: { CDN-Cache-Control: "max-age=20" } }\n`,
  });
  projects.push(project);
  await chmod(project.dir, 0o755);
  await ratefile(project.dir, 'build');
  const recipe = await ratefile(project.dir, 'edge', 'nginx');
  const at = recipe.indexOf('# --- Part 2');
  expect(at).toBeGreaterThan(0);
  const [httpPart, serverPart] = [recipe.slice(0, at), recipe.slice(at)];
  const nginx = await startNginx({
    binary: findNginx(),
    dir: join(scratch, name),
    root: join(project.dir, 'public'),
    ...(process.getuid?.() === 0 ? { user: workerUser() } : {}),
    // Part 1 sits in http { } (the site is included there), Part 2 in the server, before the export location.
    adjustSite: (site) => {
      const first = site.indexOf('    location / {');
      expect(first).toBeGreaterThan(0);
      return `${httpPart}\n${site.slice(0, first)}${serverPart}\n${site.slice(first)}`;
    },
  });
  running.push(nginx);
  return { nginx, recipe };
}

/** Root runs nginx's workers as nobody, as Debian runs them as www-data (nginx.test.ts does the same). */
const workerUser = () => (/^nogroup:/m.test(readFileSync('/etc/group', 'utf8')) ? 'nobody nogroup' : 'nobody nobody');

/** Statuses of `count` GETs one right after another. */
async function burst(nginx: Nginx, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++)
    statuses.push((await rawRequest({ port: nginx.port, path: '/parserfile.xml' })).status);
  return statuses;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'ratefile-edge-nginx-'));
  await chmod(scratch, 0o755);
});

afterAll(async () => {
  for (const nginx of running) await nginx.stop();
  for (const project of projects) await project.remove();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('ratefile edge nginx under a real nginx', () => {
  it('passes nginx -t in a full nginx.conf, sends the caching headers, and never limits a monitor', async () => {
    const { nginx, recipe } = await edgeNginx(
      'monitor',
      'monitors:\n  loopback: { address: [127.0.0.1, "::1"] }\n  robot: { agent: "/^Robot/" }\n',
    );
    expect(recipe).toContain('127.0.0.1 1; # loopback');
    const response = await rawRequest({ port: nginx.port, path: '/parserfile.xml' });
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['cdn-cache-control']).toBe('max-age=20');
    expect(response.headers['content-type']).toBe('application/xml');
    expect(new Set(await burst(nginx, 30))).toEqual(new Set([200]));
  });

  it('limits anyone who is no monitor: past the burst, 429', async () => {
    const { nginx } = await edgeNginx('other', 'monitors:\n  bestchange: { address: 162.19.29.225 }\n');
    const statuses = await burst(nginx, 30);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses).toContain(429);
  });

  it('keeps on the export paths what deploy/nginx.conf gives them: gzip, Vary, Allow, no ranges, the one spelling', async () => {
    const { nginx: edge } = await edgeNginx('same', 'monitors:\n  loopback: { address: [127.0.0.1, "::1"] }\n');
    const project = projects.at(-1)!;
    const shipped = await startNginx({
      binary: findNginx(),
      dir: join(scratch, 'shipped'),
      root: join(project.dir, 'public'),
      ...(process.getuid?.() === 0 ? { user: workerUser() } : {}),
    });
    running.push(shipped);
    const requests: { path: string; method?: string; headers?: Record<string, string> }[] = [
      { path: '/parserfile.xml' },
      { path: '/parserfile.xml', headers: { 'Accept-Encoding': 'gzip' } },
      { path: '/reffile.xml', headers: { 'Accept-Encoding': 'gzip, br' } },
      { path: '/parserfile.xml', method: 'HEAD', headers: { 'Accept-Encoding': 'gzip' } },
      { path: '/parserfile.xml', headers: { Range: 'bytes=0-99' } },
      { path: '/parserfile.xml', headers: { Range: 'bytes=0-99', 'Accept-Encoding': 'gzip' } },
      { path: '/parserfile.xml', method: 'POST' },
      { path: '/parserfile.xml', method: 'OPTIONS' },
      { path: '//parserfile.xml' },
      { path: '/%70arserfile.xml' },
      { path: '/parserfile.xml?x=1' },
    ];
    // What may differ: the date, and CDN-Cache-Control, which the recipe adds (server.headers).
    const seen = (response: RawResponse) => {
      const { date: _date, 'cdn-cache-control': _cdn, ...headers } = response.headers;
      return { status: response.status, headers, bytes: response.body.length };
    };
    for (const request of requests) {
      const [want, got] = await Promise.all(
        [shipped, edge].map((server) => rawRequest({ port: server.port, ...request })),
      );
      expect(seen(got!), `${request.method ?? 'GET'} ${request.path} ${JSON.stringify(request.headers ?? {})}`).toEqual(
        seen(want!),
      );
    }
    const polled = await rawRequest({
      port: edge.port,
      path: '/parserfile.xml',
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(polled.headers['content-encoding']).toBe('gzip');
    expect(polled.headers.vary).toBe('Accept-Encoding');
    expect(polled.headers.allow).toBe('GET, HEAD');
    expect(polled.headers['cdn-cache-control']).toBe('max-age=20');
  });
});
