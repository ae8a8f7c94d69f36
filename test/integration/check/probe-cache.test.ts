// `ratefile probe` and a cache in front: the caching headers it names (Age, cf-cache-status, X-Cache, Via), and run
// beside the config, a public copy older than one build (its bytes are not the export as last published here, and
// that was more than one schedule period ago) is a failure whose advice names the cache rule to change. Against a
// loopback "CDN" serving an old or the current copy, and against ratefile's own server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeSummary } from '../../../src/pure/probe/summary.js';
import { exportEtag, sha256Of } from '../../../src/pure/watch/judge.js';
import { createExportServer, listen } from '../../../src/service/server/server.js';
import { makeProject, sampleConfig, type Project } from '../../support/project.js';
import { fixedNow, runRatefile } from '../../support/run-cli.js';

let project: Project;
let published: Buffer;
let older: Buffer;
let cdn: Server;
let cdnBase: string;
let empty: string;
const servers: Server[] = [];

beforeAll(async () => {
  project = await makeProject();
  expect((await runRatefile(['build'], project.dir)).code).toBe(0);
  const file = join(project.dir, 'public', 'parserfile.xml');
  published = await readFile(file);
  // The build before: another reserve, the same shape.
  older = Buffer.from(published.toString('utf8').replace(/<amount>(\d+)/, '<amount>$19'));
  expect(older.equals(published)).toBe(false);
  // Published ten minutes before the probe's clock: the schedule runs every 30 s.
  const tenMinutesAgo = new Date(fixedNow().getTime() - 600_000);
  await utimes(file, tenMinutesAgo, tenMinutesAgo);
  cdn = createServer((request, response) => {
    const current = request.url?.startsWith('/current/');
    response
      .writeHead(200, {
        'content-type': 'application/xml',
        'cf-cache-status': 'HIT',
        age: current ? '20' : '3400',
        'cache-control': 'no-cache',
        'cdn-cache-control': 'max-age=30',
      })
      .end(current ? published : older);
  });
  await new Promise<void>((resolve) => cdn.listen(0, '127.0.0.1', resolve));
  cdnBase = `http://127.0.0.1:${(cdn.address() as AddressInfo).port}`;
  empty = await mkdtemp(join(tmpdir(), 'ratefile-probe-cache-'));
});

afterAll(async () => {
  for (const server of [cdn, ...servers]) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await project?.remove();
  if (empty) await rm(empty, { recursive: true, force: true });
});

describe('probe names a cached copy', () => {
  it('beside the config: a copy older than one build fails, and the advice names the Cloudflare rule', async () => {
    const { code, stdout } = await runRatefile(['probe', `${cdnBase}/parserfile.xml`, '-n', '2'], project.dir);
    expect(stdout).toMatch(
      / {3}1 {2}200 .*FAIL a cached copy older than one build: not the build of parserfile\.xml published 600 s ago: older than one build \(the schedule runs every 30 s\), from a cache \(HIT, Age 3400 s\)/,
    );
    expect(stdout).toContain(
      'Cache: fetches 1, 2 came from a cache (Age up to 3400 s); cf-cache-status HIT, Cache-Control no-cache, CDN-Cache-Control max-age=30.',
    );
    expect(stdout).toContain('Copy against parserfile.xml as published here: 1, 2 older than one build.');
    expect(stdout).toMatch(
      /→ Cloudflare keeps a copy: for the export paths, no "Cache Everything" rule and no Edge TTL "Ignore cache-control header/,
    );
    expect(code).toBe(1);
  });

  it('beside the config, rates moving at every build: a copy minutes old is stale by the builds outside.json keeps', async () => {
    // The local file published 4 s ago, as at every build; the copy the cache keeps is three minutes old and
    // `.ratefile/outside.json` (the watch from outside) keeps the builds since, every 10 s.
    const moving = await makeProject({ 'ratefile.config.yaml': `${sampleConfig}schedule: "*/10 * * * * *"\n` });
    try {
      expect((await runRatefile(['build'], moving.dir)).code).toBe(0);
      const file = join(moving.dir, 'public', 'parserfile.xml');
      const latest = await readFile(file);
      const now = fixedNow().getTime();
      await utimes(file, new Date(now - 4_000), new Date(now - 4_000));
      const at = (ago: number) => new Date(now - ago).toISOString();
      const between = Array.from({ length: 17 }, (_, i) => {
        const bytes = Buffer.from(`${i}`);
        return { sha256: sha256Of(bytes), etag: exportEtag(bytes), at: at(170_000 - i * 10_000) };
      });
      const versions = [
        { sha256: sha256Of(older), etag: exportEtag(older), at: at(180_000) },
        ...between,
        { sha256: sha256Of(latest), etag: exportEtag(latest), at: at(4_500) },
      ];
      await mkdir(join(moving.dir, '.ratefile'), { recursive: true });
      await writeFile(
        join(moving.dir, '.ratefile', 'outside.json'),
        JSON.stringify({ version: 1, versions: { 'parserfile.xml': versions }, checks: {} }),
      );
      const { code, stdout } = await runRatefile(['probe', `${cdnBase}/parserfile.xml`, '-n', '1'], moving.dir);
      expect(stdout).toContain(
        `FAIL a cached copy older than one build: 18 builds of parserfile.xml behind, replaced by the build of ${at(170_000)} (170 s ago): older than one build (the schedule runs every 10 s)`,
      );
      expect(stdout).toContain('Copy against parserfile.xml as published here: 1 older than one build.');
      expect(code).toBe(1);
    } finally {
      await moving.remove();
    }
  });

  it('beside the config: the current bytes from a cache pass', async () => {
    const { code, stdout } = await runRatefile(['probe', `${cdnBase}/current/parserfile.xml`, '-n', '2'], project.dir);
    expect(stdout).toContain('Copy against parserfile.xml as published here: 2 fetches the latest build.');
    expect(stdout).not.toContain('→ Cloudflare');
    expect(code).toBe(0);
  });

  it('without a config: the cache is named, the copy not judged; --json has the same', async () => {
    const { code, stdout } = await runRatefile(['probe', `${cdnBase}/parserfile.xml`, '-n', '1', '--json'], empty);
    const { summary } = JSON.parse(stdout) as { summary: ProbeSummary };
    expect(summary.cache).toMatchObject({ layer: 'cloudflare', hits: [1], maxAge: 3400 });
    expect(summary.cache.local).toBeUndefined();
    expect(code).toBe(0);
  });

  it("ratefile's own server, beside its config: the latest build, the caching headers it sends, exit 0", async () => {
    const server = createExportServer(join(project.dir, 'public'), {}, undefined, {
      headers: () => ({ cacheControl: 'no-cache', cdnCacheControl: 'max-age=30' }),
    });
    servers.push(server);
    const port = await listen(server, 0, '127.0.0.1');
    const { code, stdout } = await runRatefile(
      ['probe', `http://127.0.0.1:${port}/parserfile.xml`, '-n', '3'],
      project.dir,
    );
    expect(stdout).toContain(
      'Cache: no fetch came from a cache; Cache-Control no-cache, CDN-Cache-Control max-age=30.',
    );
    expect(stdout).toContain('Copy against parserfile.xml as published here: 3 fetches the latest build.');
    expect(stdout).toContain('Every fetch was readable.');
    expect(code).toBe(0);
  });
});
