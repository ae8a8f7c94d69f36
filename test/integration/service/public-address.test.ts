// What the service answers, and to whom (issue 33, items 11 and 13): on an address other machines reach, only the
// declared exports and a bare /healthz; the dashboard, its JSON, /metrics and the full /healthz on loopback or on
// `server.private`; nothing in the output folder that the config does not declare.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { standbyRefusal } from '../../../src/service/ha/serve.js';
import { isLoopbackHost, openListeners } from '../../../src/service/server/listeners.js';
import type { HaStatus } from '../../../src/pure/status/report.js';
import { sampleConfig, projectsPerTest } from '../../support/project.js';
import { servicesPerTest } from '../../support/service.js';

const project = projectsPerTest();
const start = servicesPerTest();

const pages = ['/', '/dashboard.json', '/dashboard.json?part=head', '/dashboard.js', '/metrics'];

describe('isLoopbackHost', () => {
  it('is true for 127.0.0.0/8, ::1 and localhost only', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [
      '0.0.0.0',
      '::',
      '[::]',
      '10.0.0.5',
      '192.168.1.2',
      '::ffff:10.0.0.1',
      'example.com',
      '128.0.0.1',
    ])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});

describe('a service listening on 0.0.0.0', () => {
  it('answers the exports and a bare /healthz; the dashboard, its JSON and /metrics are 404', async () => {
    const lines: string[] = [];
    const service = await start(await project(), { host: '0.0.0.0', log: (text) => lines.push(text) });
    const base = `http://127.0.0.1:${service.port}`;
    expect(lines.join('')).toContain(
      '0.0.0.0 is not a loopback address: only the exports and a bare /healthz answer there; for the dashboard and /metrics, set server.private',
    );
    expect((await fetch(`${base}/parserfile.xml`)).status).toBe(200);
    for (const path of pages) {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.text(), path).toBe('Not Found\n');
    }
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    // The level and nothing else: no sources, exports, instances or hosts.
    expect(await health.json()).toEqual({ level: 'ok' });
  });

  it('says failing with 503 on the bare /healthz too', async () => {
    const made = await project({ 'quotes.json': '{"quotes": [' });
    const service = await start(made, { host: '0.0.0.0' });
    const health = await fetch(`http://127.0.0.1:${service.port}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ level: 'failing' });
  });

  it('serves the pages and the full /healthz on server.private, not on the public address', async () => {
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}server: { private: { host: 127.0.0.1, port: 0 } }\n`,
    });
    const service = await start(made, { host: '0.0.0.0' });
    expect(service.privatePort).toBeGreaterThan(0);
    const inside = `http://127.0.0.1:${service.privatePort}`;
    const outside = `http://127.0.0.1:${service.port}`;
    for (const path of pages) {
      expect((await fetch(`${inside}${path}`)).status, path).toBe(200);
      expect((await fetch(`${outside}${path}`)).status, path).toBe(404);
    }
    expect(await (await fetch(`${inside}/healthz`)).json()).toHaveProperty('sources');
    expect(await (await fetch(`${outside}/healthz`)).json()).not.toHaveProperty('sources');
    expect((await fetch(`${inside}/parserfile.xml`)).status).toBe(200);
  });
});

describe("a standby's refusal", () => {
  it('names no instance and no reason on an address others reach; in full on server.private', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-listeners-'));
    await writeFile(join(dir, 'parserfile.xml'), '<rates></rates>\n');
    const role: HaStatus = {
      role: 'standby',
      instance: 'rates-2',
      holder: 'rates-1',
      reason: 'lock database db.internal:5432 unreachable',
      configHash: '0123456789abcdef',
    };
    const listeners = await openListeners({
      outDir: dir,
      main: { host: '0.0.0.0', port: 0 },
      private: { host: '127.0.0.1', port: 0 },
      pages: {},
      publicRoutes: {},
      refuse: (exposed) => standbyRefusal(() => role, exposed),
      declared: () => new Set(['parserfile.xml']),
      onRequest: () => undefined,
    });
    try {
      const outside = await fetch(`http://127.0.0.1:${listeners.port}/parserfile.xml`);
      expect(outside.status).toBe(503);
      expect(await outside.json()).toEqual({ role: 'standby' });
      const inside = await fetch(new URL('parserfile.xml', listeners.pagesUrl));
      expect(inside.status).toBe(503);
      expect(await inside.json()).toEqual({ role: 'standby', holder: 'rates-1', reason: role.reason });
    } finally {
      await listeners.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a taken server.private port', () => {
  it('is a config error naming server.private, and leaves nothing listening', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-listeners-'));
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const main = { host: '127.0.0.1', port: 0 };
    const options = { outDir: dir, main, pages: {}, publicRoutes: {}, onRequest: () => undefined };
    try {
      const opening = openListeners({ ...options, private: { host: '127.0.0.1', port } });
      await expect(opening).rejects.toMatchObject({
        code: 'E_CONFIG',
        message: `server.private: port ${port} on 127.0.0.1 is in use: choose another port for server.private`,
      });
      // The main listener was closed again: the same options without `private` open at once.
      const alone = await openListeners(options);
      await alone.close();
    } finally {
      taken.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a service on 127.0.0.1', () => {
  it('keeps the dashboard, /metrics and the full /healthz', async () => {
    const service = await start(await project());
    for (const path of pages) expect((await fetch(`${service.base}${path.slice(1)}`)).status, path).toBe(200);
    expect(await (await fetch(`${service.base}healthz`)).json()).toHaveProperty('sources');
  });
});

describe('only declared exports answer', () => {
  it('is 404 for undeclared files of the folder with an export extension, for GET, HEAD and conditional requests', async () => {
    const made = await project();
    const service = await start(made);
    const out = join(made.dir, 'public');
    await writeFile(join(out, 'undeclared.xml'), '<rates></rates>\n');
    await writeFile(join(out, 'notes.txt'), 'notes\n');
    await writeFile(join(out, 'notes.json'), '{}\n');
    for (const file of ['undeclared.xml', 'notes.txt', 'notes.json']) {
      for (const method of ['GET', 'HEAD']) {
        const response = await fetch(`${service.base}${file}`, { method, headers: { 'If-None-Match': '*' } });
        expect(response.status, `${method} ${file}`).toBe(404);
      }
      expect((await fetch(`${service.base}${file}`, { headers: { 'Accept-Encoding': 'gzip' } })).status).toBe(404);
    }
    const declared = await fetch(`${service.base}parserfile.xml`);
    expect(declared.status).toBe(200);
    expect((await fetch(`${service.base}parserfile.xml`, { method: 'HEAD' })).status).toBe(200);
    const etag = declared.headers.get('etag') ?? '';
    expect((await fetch(`${service.base}parserfile.xml`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
  });

  it('follows a reload of the config: a dropped export is 404 at once, a new one answers', async () => {
    const made = await project();
    const service = await start(made);
    expect((await fetch(`${service.base}reffile.xml`)).status).toBe(200);
    await rm(join(made.dir, 'templates', 'reffile.yaml'));
    await made.write('templates/extra.yaml', 'description: a new export\n');
    await service.rebuild();
    // The build removes the file it no longer declares; one put back by hand stays unserved.
    await writeFile(join(made.dir, 'public', 'reffile.xml'), '<rates></rates>\n');
    expect((await fetch(`${service.base}reffile.xml`)).status).toBe(404);
    expect((await fetch(`${service.base}extra.xml`)).status).toBe(200);
    expect((await fetch(`${service.base}parserfile.xml`)).status).toBe(200);
  });
});
