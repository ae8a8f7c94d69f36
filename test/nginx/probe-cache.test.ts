// nginx as the CDN stand-in: a proxy_cache in front of ratefile's own server with a rule that caches too long
// (`proxy_cache_valid 200 1h` and `proxy_ignore_headers Cache-Control`). `ratefile probe`, beside the config, passes
// while the cached copy is the latest build, and once a newer build has been published for longer than one
// schedule period it names the copy as older than one build, with nginx's rule to change. Run by `npm run test:nginx`.
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli.js';
import { createExportServer, listen } from '../../src/service/server/server.js';
import { makeProject, type Project } from '../support/project.js';
import { findNginx, startNginx, type Nginx } from './nginx.js';

const offlineFetch: typeof globalThis.fetch = (input) =>
  Promise.reject(new Error(`network disabled in tests: ${String(input)}`));

let project: Project;
let scratch: string;
let origin: Server;
let nginx: Nginx;

async function ratefile(...args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const code = await run(['node', 'ratefile', ...args], {
    stdout: { write: (text: string) => ((stdout += text), true) },
    stderr: { write: () => true },
    env: {},
    cwd: project.dir,
    now: () => new Date(),
    fetch: offlineFetch,
    waitForStop: () => new Promise(() => undefined),
  });
  return { code, stdout };
}

const workerUser = () => (/^nogroup:/m.test(readFileSync('/etc/group', 'utf8')) ? 'nobody nogroup' : 'nobody nobody');

beforeAll(async () => {
  project = await makeProject();
  await chmod(project.dir, 0o755);
  expect((await ratefile('build')).code).toBe(0);
  origin = createExportServer(join(project.dir, 'public'), {}, undefined, {
    headers: () => ({ cacheControl: 'no-cache', cdnCacheControl: 'max-age=30' }),
  });
  const originPort = await listen(origin, 0, '127.0.0.1');
  scratch = await mkdtemp(join(tmpdir(), 'ratefile-nginx-cdn-'));
  await chmod(scratch, 0o755);
  nginx = await startNginx({
    binary: findNginx(),
    dir: scratch,
    root: join(project.dir, 'public'),
    ...(process.getuid?.() === 0 ? { user: workerUser() } : {}),
    // The shipped site's listen line, and a caching proxy in place of the rest: the rule that keeps copies too long.
    adjustSite: (site) => {
      const listen = /listen 127\.0\.0\.1:\d+;/.exec(site)?.[0];
      expect(listen).toBeDefined();
      return `proxy_cache_path ${join(scratch, 'cache')} levels=1 keys_zone=ratefile_cdn:1m max_size=10m inactive=1h use_temp_path=off;
server {
    ${listen}
    location / {
        proxy_pass http://127.0.0.1:${originPort};
        proxy_cache ratefile_cdn;
        proxy_cache_valid 200 1h;
        proxy_ignore_headers Cache-Control Expires;
        add_header X-Cache-Status $upstream_cache_status always;
    }
}
`;
    },
  });
});

afterAll(async () => {
  await nginx?.stop();
  if (origin) {
    origin.closeAllConnections();
    await new Promise<void>((resolve) => origin.close(() => resolve()));
  }
  await project?.remove();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('probe through an nginx proxy_cache that caches too long', () => {
  it('passes on the latest build, then names the copy older than one build and nginx rule to change', async () => {
    const url = `http://127.0.0.1:${nginx.port}/parserfile.xml`;
    // The build nginx caches was published twenty minutes ago. Its precompressed copies go: the origin then serves
    // the plain file, the one this test rewrites as the next build.
    await rm(join(project.dir, 'public', 'parserfile.xml.gz'), { force: true });
    await rm(join(project.dir, 'public', 'parserfile.xml.br'), { force: true });
    const file = join(project.dir, 'public', 'parserfile.xml');
    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    await utimes(file, minutesAgo(20), minutesAgo(20));
    const fresh = await ratefile('probe', url, '-n', '3');
    expect(fresh.stdout).toContain('Copy against parserfile.xml as published here: 3 fetches the latest build.');
    // The conditional re-fetches too: nginx answers them from its copy.
    expect(fresh.stdout).toContain('Cache: fetches 2, 3, 4, 5 came from a cache; X-Cache-Status MISS,');
    expect(fresh.code).toBe(0);

    // A newer build, published ten minutes ago (the schedule runs every 30 s); nginx still has the old copy.
    await writeFile(file, (await readFile(file, 'utf8')).replace(/<amount>(\d+)/, '<amount>$19'));
    await utimes(file, minutesAgo(10), minutesAgo(10));
    const stale = await ratefile('probe', url, '-n', '2');
    expect(stale.stdout).toContain(
      'FAIL a cached copy older than one build: not the build of parserfile.xml published',
    );
    expect(stale.stdout).toContain('Copy against parserfile.xml as published here: 1, 2 older than one build.');
    expect(stale.stdout).toContain(
      "→ a cache in front keeps a copy: with nginx's proxy_cache, `proxy_cache_valid 200 30s;`",
    );
    expect(stale.code).toBe(1);
  });
});
