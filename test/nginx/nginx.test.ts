// deploy/nginx.conf under a real nginx on 127.0.0.1, over a fresh `ratefile build`: the headers the monitors
// and caches get, what it refuses, and no torn response while ratefile republishes. Run by `npm run test:nginx`;
// fails (never skips) without nginx, since CI installs it.
import { Agent } from 'node:http';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli.js';
import { publishFiles } from '../../src/io/build/publish.js';
import { rawRequest, type RawResponse } from '../support/http.js';
import { makeProject, type Project } from '../support/project.js';
import { xmlErrors } from '../support/xml.js';
import { debianMimeTypes, findNginx, nginxVersion, startNginx, type Nginx } from './nginx.js';

const marker = 'TOP-SECRET-NOT-AN-EXPORT';
const exportFiles = ['affiliatefile.xml', 'parserfile.xml', 'reffile.xml'];
const now = () => new Date('2026-11-21T12:00:30Z');
const offlineFetch: typeof globalThis.fetch = (input) =>
  Promise.reject(new Error(`network disabled in tests: ${String(input)}`));

let project: Project;
let out: string;
let nginx: Nginx;
let scratch: string;

/** Root runs nginx's workers as nobody, as Debian runs them as www-data: the files must be readable by others. */
async function workerUser(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const groups = await readFile('/etc/group', 'utf8');
  return /^nogroup:/m.test(groups) ? 'nobody nogroup' : 'nobody nobody';
}

beforeAll(async () => {
  const binary = findNginx();
  expect(nginxVersion(binary)).toMatch(/nginx version: nginx\/\d+\.\d+/);
  // Beside the three classic exports, an EREF 1.1, a JSON and a Premium one (format: in their templates).
  project = await makeProject({
    'templates/rates11.yaml': 'format: eref-1.1\nfile: rates-1.1.xml\n',
    'templates/rates.yaml': 'format: json\n',
    'templates/premium.yaml': 'format: premium-rates\n',
  });
  scratch = await mkdtemp(join(tmpdir(), 'ratefile-nginx-'));
  // Folders as a deployment has them (0755), not mkdtemp's 0700, so unprivileged workers can reach the files.
  await chmod(project.dir, 0o755);
  await chmod(scratch, 0o755);

  let stderr = '';
  const code = await run(['node', 'ratefile', 'build'], {
    stdout: { write: () => true },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    cwd: project.dir,
    now,
    fetch: offlineFetch,
    waitForStop: () => new Promise(() => undefined),
  });
  if (code !== 0) throw new Error(`ratefile build failed (${code}):\n${stderr}`);
  out = join(project.dir, 'public');

  // What else may lie in or around a served folder, none of which may ever be served.
  await writeFile(join(project.dir, 'secret.xml'), `<secret>${marker}</secret>\n`);
  await mkdir(join(out, 'sub'));
  await mkdir(join(out, 'folder.xml'));
  await writeFile(join(out, 'notes.md'), `notes ${marker}\n`);
  await writeFile(join(out, 'index.html'), `<html>${marker}</html>\n`);
  await writeFile(join(out, '.parserfile.xml.0123456789ab.tmp'), `<rates>${marker}</rates>\n`);
  await writeFile(join(out, '.hidden.xml'), `<rates>${marker}</rates>\n`);
  await writeFile(join(out, 'sub', 'x.xml'), `<rates>${marker}</rates>\n`);
  await writeFile(join(out, 'folder.xml', 'inner.xml'), `<rates>${marker}</rates>\n`);
  await symlink('../secret.xml', join(out, 'link.xml'));

  const user = await workerUser();
  nginx = await startNginx({ binary, dir: join(scratch, 'nginx'), root: out, ...(user ? { user } : {}) });
});

afterAll(async () => {
  await nginx?.stop();
  await project?.remove();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const get = (
  path: string,
  init: { method?: string; headers?: Record<string, string>; agent?: Agent } = {},
): Promise<RawResponse> => rawRequest({ port: nginx.port, path, ...init });

/** nginx's ETag is "<mtime hex>-<size hex>": the size it names must be the size of the bytes it describes. */
function etagSize(etag: string | undefined): number | undefined {
  const match = /^(?:W\/)?"[0-9a-f]+-([0-9a-f]+)"$/.exec(etag ?? '');
  return match?.[1] === undefined ? undefined : Number.parseInt(match[1], 16);
}

describe('nginx serving the exports', () => {
  it('runs Debian’s nginx with Debian’s mime.types, where xml is text/xml (what the config must override)', async () => {
    expect(await readFile(debianMimeTypes, 'utf8')).toMatch(/^\s*text\/xml\s+xml;/m);
  });

  it.each(exportFiles)(
    '%s: 200, exactly application/xml, no-cache, ETag, Last-Modified, the bytes of the build',
    async (file) => {
      const bytes = await readFile(join(out, file));
      const response = await get(`/${file}`);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/xml');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['content-length']).toBe(String(bytes.length));
      expect(response.headers.etag).toMatch(/^"[^"]+"$/);
      expect(etagSize(response.headers.etag)).toBe(bytes.length);
      expect(response.headers['last-modified']).toBe((await stat(join(out, file))).mtime.toUTCString());
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.body.equals(bytes)).toBe(true);
      expect(await xmlErrors(response.body, file)).toEqual([]);
    },
  );

  it('answers HEAD with the headers of GET and no body, and names no version', async () => {
    const full = await get('/parserfile.xml');
    const head = await get('/parserfile.xml', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const header of ['content-type', 'content-length', 'cache-control', 'etag', 'last-modified'])
      expect(head.headers[header]).toBe(full.headers[header]);
    expect(head.headers.server).toBe('nginx');
  });

  it('answers If-None-Match and If-Modified-Since with 304 and no body; a stale validator gets 200', async () => {
    const { headers } = await get('/parserfile.xml');
    const etag = headers.etag ?? '';
    const lastModified = headers['last-modified'] ?? '';
    for (const conditional of [
      { 'If-None-Match': etag },
      { 'If-Modified-Since': lastModified },
      { 'If-None-Match': `"other", ${etag}` },
    ]) {
      const response = await get('/parserfile.xml', { headers: conditional });
      expect(response.status, JSON.stringify(conditional)).toBe(304);
      expect(response.body.length).toBe(0);
      expect(response.headers.etag).toBe(etag);
      expect(response.headers['cache-control']).toBe('no-cache');
    }
    const earlier = new Date(Date.parse(lastModified) - 3_600_000).toUTCString();
    for (const stale of [{ 'If-None-Match': '"0-0"' }, { 'If-Modified-Since': earlier }]) {
      const response = await get('/parserfile.xml', { headers: stale });
      expect(response.status, JSON.stringify(stale)).toBe(200);
      expect(response.body.equals(await readFile(join(out, 'parserfile.xml')))).toBe(true);
    }
  });

  it('gzips for clients that accept it (the build’s .xml.gz when there is one), Vary: Accept-Encoding, 304 on its ETag', async () => {
    const bytes = await readFile(join(out, 'parserfile.xml'));
    const precompressed = await readFile(join(out, 'parserfile.xml.gz')).catch(() => undefined);
    const response = await get('/parserfile.xml', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.headers['content-type']).toBe('application/xml');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers.vary).toMatch(/Accept-Encoding/i);
    expect(gunzipSync(response.body).equals(bytes)).toBe(true);
    if (precompressed) {
      // gzip_static: the build's file as it is, with its own strong ETag.
      expect(response.body.equals(precompressed)).toBe(true);
      expect(etagSize(response.headers.etag)).toBe(precompressed.length);
    } else {
      expect(response.headers.etag).toMatch(/^W\//);
    }
    const cached = await get('/parserfile.xml', {
      headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': response.headers.etag ?? '' },
    });
    expect(cached.status).toBe(304);
    // Without Accept-Encoding, never compressed.
    expect((await get('/parserfile.xml')).headers['content-encoding']).toBeUndefined();
  });
});

describe('nginx serving the other formats', () => {
  it.each([
    ['rates.json', 'application/json'],
    ['rates-1.1.xml', 'application/xml'],
    ['premium.txt', 'text/plain; charset=utf-8'],
  ])('%s: 200, exactly %s, no-cache, the bytes of the build, gzip on request', async (file, type) => {
    const bytes = await readFile(join(out, file));
    const response = await get(`/${file}`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(type);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.body.equals(bytes)).toBe(true);
    const gzipped = await get(`/${file}`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['content-type']).toBe(type);
    expect(gunzipSync(gzipped.body).equals(bytes)).toBe(true);
    expect((await get(`//${file}`)).status).toBe(404);
  });
});

describe('nginx refusing everything else', () => {
  it.each([
    ['the root, no listing', '/'],
    ['a missing export', '/nothing.xml'],
    ['an existing file of no export format', '/notes.md'],
    ['an existing html file', '/index.html'],
    ['a temporary dotfile of publish', '/.parserfile.xml.0123456789ab.tmp'],
    ['a dotfile named like an export', '/.hidden.xml'],
    ['the compressed copy by name', '/parserfile.xml.gz'],
    ['the brotli copy by name', '/parserfile.xml.br'],
    ['a file in a subfolder', '/sub/x.xml'],
    ['a subfolder, no listing', '/sub/'],
    ['a folder named like an export, no redirect to a listing', '/folder.xml'],
    ['a folder named like an export, with a slash', '/folder.xml/'],
    ['an export with a trailing slash', '/parserfile.xml/'],
    ['a differently cased name', '/PARSERFILE.XML'],
    ['a symlink named like an export', '/link.xml'],
    ['an encoded slash into a subfolder', '/sub%2fx.xml'],
  ])('404 for %s (%s)', async (_name, path) => {
    const response = await get(path);
    expect(response.status).toBe(404);
    const body = response.body.toString('utf8');
    expect(body).not.toContain(marker);
    for (const name of ['parserfile.xml', 'notes.md', 'inner.xml', 'x.xml', 'link.xml', 'Index of'])
      expect(body).not.toContain(name);
  });

  it.each([
    '//parserfile.xml',
    '///parserfile.xml',
    '/./parserfile.xml',
    '/sub/../parserfile.xml',
    '/parserfile.xml/.',
    '/%70arserfile.xml',
    '/parserfile%2exml',
    '/\\parserfile.xml',
  ])('404 for another spelling of an export: %s', async (path) => {
    const response = await get(path);
    expect(response.status).toBe(404);
    expect(response.body.toString('utf8')).not.toContain('<rates>');
  });

  it.each(['/parserfile.xml?cache=bust', '/parserfile.xml?x=/../secret.xml'])(
    '200 for an export with a query string, which is ignored: %s',
    async (path) => {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.body.equals(await readFile(join(out, 'parserfile.xml')))).toBe(true);
    },
  );

  it.each([
    '/../secret.xml',
    '/%2e%2e/secret.xml',
    '/..%2fsecret.xml',
    '/sub/../../secret.xml',
    '/sub/%2e%2e/%2e%2e/secret.xml',
    '/%5c..%5csecret.xml',
  ])('never serves a file outside the folder: %s → 400 or 404', async (path) => {
    const response = await get(path);
    expect([400, 404]).toContain(response.status);
    expect(response.body.toString('utf8')).not.toContain(marker);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])(
    '%s → 405 with Allow: GET, HEAD, the file untouched',
    async (method) => {
      const before = await readFile(join(out, 'parserfile.xml'));
      const response = await get('/parserfile.xml', { method });
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('GET, HEAD');
      expect((await readFile(join(out, 'parserfile.xml'))).equals(before)).toBe(true);
    },
  );
});

/** A valid export with `count` items whose text is `label`, so two documents differ all the way through. */
function exportDocument(count: number, label: string): Buffer {
  const items = Array.from(
    { length: count },
    (_, index) =>
      `  <item>\n    <from>${label}${index}</from>\n    <to>USDTTRC20</to>\n    <in>1</in>\n    <out>${index}.5</out>\n  </item>\n`,
  );
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n${items.join('')}</rates>\n`);
}

describe('nginx while ratefile republishes', () => {
  it('never serves a torn file: every response is one whole version, its length and ETag agreeing with its bytes', async () => {
    const small = exportDocument(3, 'SMALL');
    const large = exportDocument(400, 'LARGE');
    expect(await xmlErrors(large)).toEqual([]);
    await publishFiles([{ file: 'reffile.xml', bytes: small }], out);

    const republishes = 300;
    const maxRequests = 6_000;
    let writing = true;
    const writer = (async () => {
      try {
        for (let i = 0; i < republishes; i++)
          await publishFiles([{ file: 'reffile.xml', bytes: i % 2 === 0 ? large : small }], out);
      } finally {
        writing = false;
      }
    })();

    const agent = new Agent({ keepAlive: true, maxSockets: 6 });
    const seen = { small: 0, large: 0, gzip: 0 };
    const problems: string[] = [];
    let requests = 0;
    const reader = async (gzip: boolean) => {
      while (writing && requests < maxRequests) {
        requests++;
        let response: RawResponse;
        try {
          response = await get('/reffile.xml', { agent, headers: gzip ? { 'Accept-Encoding': 'gzip' } : {} });
        } catch (error) {
          problems.push(`request failed: ${(error as Error).message}`);
          continue;
        }
        if (response.status !== 200) {
          problems.push(`status ${response.status}`);
          continue;
        }
        const length = response.headers['content-length'];
        if (length !== undefined && length !== String(response.body.length)) {
          problems.push(`Content-Length ${length} for a body of ${response.body.length} bytes`);
          continue;
        }
        const encoded = response.headers['content-encoding'] === 'gzip';
        let body: Buffer;
        try {
          body = encoded ? gunzipSync(response.body) : response.body;
        } catch (error) {
          problems.push(`a gzip body that does not decompress: ${(error as Error).message}`);
          continue;
        }
        const weak = response.headers.etag?.startsWith('W/') ?? false;
        const named = etagSize(response.headers.etag);
        if (named !== (weak ? body.length : response.body.length))
          problems.push(`ETag ${response.headers.etag} for ${response.body.length} bytes sent`);
        if (encoded) seen.gzip++;
        if (body.equals(small)) seen.small++;
        else if (body.equals(large)) seen.large++;
        else problems.push(`a body of ${body.length} bytes that is neither version`);
      }
    };
    try {
      await Promise.all([writer, reader(false), reader(false), reader(true), reader(true)]);
    } finally {
      agent.destroy();
    }
    expect(problems.slice(0, 10), `${problems.length} bad responses of ${requests}`).toEqual([]);
    expect(seen.small).toBeGreaterThan(0);
    expect(seen.large).toBeGreaterThan(0);
    expect(seen.gzip).toBeGreaterThan(0);
    // Republishing left nothing servable behind: only the exports (and their compressed copies) and the planted files.
    const names = (await readdir(out)).filter((name) => !name.startsWith('.'));
    expect(names.filter((name) => name.endsWith('.xml')).sort()).toEqual(
      [...exportFiles, 'rates-1.1.xml', 'folder.xml', 'link.xml'].sort(),
    );
  });

  // nginx's validators are the mtime in seconds and the size: two builds of the same length within one
  // second share them, so If-Range cannot tell them apart and a resumed download would splice the two.
  it('never answers a Range with a part: the whole current file with 200, whatever If-Range says', async () => {
    const first = exportDocument(300, 'FIRST');
    const later = exportDocument(300, 'LATER');
    expect(later.length).toBe(first.length);
    await publishFiles([{ file: 'reffile.xml', bytes: first }], out);
    const { atime, mtime } = await stat(join(out, 'reffile.xml'));
    const before = await get('/reffile.xml');
    const beforeGzip = await get('/reffile.xml', { headers: { 'Accept-Encoding': 'gzip' } });
    await publishFiles([{ file: 'reffile.xml', bytes: later }], out);
    await utimes(join(out, 'reffile.xml'), atime, mtime);
    await utimes(join(out, 'reffile.xml.gz'), atime, mtime);
    const current = await get('/reffile.xml');
    expect(current.headers.etag).toBe(before.headers.etag); // the hazard: same mtime second, same size
    const gzipped = await readFile(join(out, 'reffile.xml.gz'));
    for (const headers of [
      { Range: 'bytes=100-109' },
      { Range: 'bytes=100-109', 'If-Range': before.headers.etag ?? '' },
      { Range: 'bytes=100-109', 'If-Range': before.headers['last-modified'] ?? '' },
      { Range: 'bytes=100-109', 'If-Range': beforeGzip.headers.etag ?? '', 'Accept-Encoding': 'gzip' },
    ]) {
      const response = await get('/reffile.xml', { headers });
      expect(response.status, JSON.stringify(headers)).toBe(200);
      expect(response.headers['content-range']).toBeUndefined();
      expect(response.headers['accept-ranges']).toBeUndefined();
      expect(response.body.equals(headers['Accept-Encoding'] ? gzipped : later), JSON.stringify(headers)).toBe(true);
    }
  });

  it('a changed export gets a new ETag: the old one is answered with 200 and the new bytes', async () => {
    const first = exportDocument(1, 'FIRST');
    const second = exportDocument(2, 'SECOND');
    await publishFiles([{ file: 'affiliatefile.xml', bytes: first }], out);
    const before = await get('/affiliatefile.xml');
    expect(before.body.equals(first)).toBe(true);
    await publishFiles([{ file: 'affiliatefile.xml', bytes: second }], out);
    const after = await get('/affiliatefile.xml', { headers: { 'If-None-Match': before.headers.etag ?? '' } });
    expect(after.status).toBe(200);
    expect(after.body.equals(second)).toBe(true);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('logged nothing worse than a warning, apart from refusing the planted symlink', () => {
    const serious = nginx
      .stderr()
      .split('\n')
      .filter((line) => /\[(error|crit|alert|emerg)\]/.test(line))
      .filter((line) => !/openat\(\) "[^"]*\/link\.xml" failed \(40: Too many levels of symbolic links\)/.test(line));
    expect(serious).toEqual([]);
  });
});
