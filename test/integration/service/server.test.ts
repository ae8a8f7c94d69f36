// createExportServer in-process on 127.0.0.1:0, against a real folder: what it serves, what it refuses,
// and that a republish never hands a client a torn file.
import { Agent, type Server } from 'node:http';
import { link, mkdir, mkdtemp, readFile, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { publishFiles } from '../../../src/io/build/publish.js';
import { createExportServer, listen, type Route } from '../../../src/service/server/server.js';
import { rawRequest, type RawResponse } from '../../support/http.js';
import { xmlErrors } from '../../support/xml.js';

const marker = 'TOP-SECRET-OUTSIDE-THE-OUTPUT-FOLDER';

/** A valid export with `count` items whose text is `label`, so two documents differ all the way through. */
function exportDocument(count: number, label: string): Buffer {
  const items = Array.from(
    { length: count },
    (_, index) =>
      `  <item>\n    <from>${label}${index}</from>\n    <to>USDTTRC20</to>\n    <in>1</in>\n    <out>${index}.5</out>\n  </item>\n`,
  );
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n${items.join('')}</rates>\n`);
}

interface Running {
  server: Server;
  port: number;
  base: string;
}

const servers: Server[] = [];
const dirs: string[] = [];

async function serve(dir: string, routes: Readonly<Record<string, Route>> = {}): Promise<Running> {
  const server = createExportServer(dir, routes);
  servers.push(server);
  const port = await listen(server, 0, '127.0.0.1');
  return { server, port, base: `http://127.0.0.1:${port}/` };
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-server-'));
  dirs.push(dir);
  return dir;
}

let out: string;
let parserfile: Buffer;
let main: Running;

beforeAll(async () => {
  const root = await tempDir();
  out = join(root, 'out');
  parserfile = exportDocument(3, 'BTC');
  await mkdir(join(out, 'sub'), { recursive: true });
  await mkdir(join(out, 'folder.xml'));
  await writeFile(join(root, 'secret.xml'), `<secret>${marker}</secret>\n`);
  await writeFile(join(out, 'parserfile.xml'), parserfile);
  await writeFile(join(out, 'notes.md'), `notes ${marker}\n`);
  await writeFile(join(out, 'index.html'), `<html>${marker}</html>\n`);
  await writeFile(join(out, '.parserfile.xml.abc.tmp'), `<rates>${marker}</rates>\n`);
  await writeFile(join(out, 'sub', 'x.xml'), `<rates>${marker}</rates>\n`);
  await writeFile(join(out, 'folder.xml', 'inner.xml'), `<rates>${marker}</rates>\n`);
  await symlink('../secret.xml', join(out, 'link.xml'));
  main = await serve(out);
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const get = (path: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<RawResponse> =>
  rawRequest({ port: main.port, path, ...init });

describe('the export server: what it serves', () => {
  it('serves an export as application/xml, no-cache, with an ETag and the exact bytes', async () => {
    const response = await get('/parserfile.xml');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/xml');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-length']).toBe(String(parserfile.length));
    expect(response.headers.etag).toMatch(/^"[^"]+"$/);
    expect(response.body.equals(parserfile)).toBe(true);
    expect(await xmlErrors(response.body)).toEqual([]);
  });

  it('answers If-None-Match with the current ETag by 304 and no body, and another ETag by 200', async () => {
    const { headers } = await get('/parserfile.xml');
    const etag = headers.etag ?? '';
    expect(etag).not.toBe('');
    const cached = await get('/parserfile.xml', { headers: { 'If-None-Match': etag } });
    expect(cached.status).toBe(304);
    expect(cached.body.length).toBe(0);
    const stale = await get('/parserfile.xml', { headers: { 'If-None-Match': '"not-the-current-one"' } });
    expect(stale.status).toBe(200);
    expect(stale.body.equals(parserfile)).toBe(true);
  });

  it('answers HEAD with the headers of GET and an empty body', async () => {
    const response = await get('/parserfile.xml', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/xml');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-length']).toBe(String(parserfile.length));
    expect(response.headers.etag).toBe((await get('/parserfile.xml')).headers.etag);
    expect(response.body.length).toBe(0);
  });

  it('serves through fetch too (query strings ignored)', async () => {
    const response = await fetch(new URL('parserfile.xml?cache=bust', main.base));
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(parserfile)).toBe(true);
  });
});

describe('the export server: the caching headers (server.headers)', () => {
  it('sends Cache-Control: no-cache and CDN-Cache-Control: max-age=30 by default, on 200 and 304', async () => {
    const response = await get('/parserfile.xml');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['cdn-cache-control']).toBe('max-age=30');
    const cached = await get('/parserfile.xml', { headers: { 'If-None-Match': response.headers.etag ?? '' } });
    expect(cached.status).toBe(304);
    expect(cached.headers['cache-control']).toBe('no-cache');
    expect(cached.headers['cdn-cache-control']).toBe('max-age=30');
  });

  it("sends the config's values, read at each request, on the plain and the precompressed copy", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'parserfile.xml'), parserfile);
    await writeFile(join(dir, 'parserfile.xml.gz'), gzipSync(parserfile));
    let headers = { cacheControl: 'no-store', cdnCacheControl: 'max-age=5' };
    const server = createExportServer(dir, {}, undefined, { headers: () => headers });
    servers.push(server);
    const port = await listen(server, 0, '127.0.0.1');
    const plain = await rawRequest({ port, path: '/parserfile.xml' });
    expect([plain.headers['cache-control'], plain.headers['cdn-cache-control']]).toEqual(['no-store', 'max-age=5']);
    headers = { cacheControl: 'no-cache', cdnCacheControl: 'no-store' };
    const gzipped = await rawRequest({ port, path: '/parserfile.xml', headers: { 'Accept-Encoding': 'gzip' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect([gzipped.headers['cache-control'], gzipped.headers['cdn-cache-control']]).toEqual(['no-cache', 'no-store']);
  });
});

describe('the export server: every format with its content type', () => {
  it('serves .json as application/json (no charset: JSON is UTF-8), an EREF 1.1 .xml as application/xml and a Premium .txt as UTF-8 text, plain and precompressed', async () => {
    const dir = await tempDir();
    const json = Buffer.from(
      `{"version": "1.3", "currencies": {"list": {"1": "BTC", "2": "SBERRUB"}}, "exchange": {"1": {"to": {"2": {"xr": -5, "amount": "${'1'.repeat(400)}"}}}}}\n`,
    );
    await publishFiles(
      [
        { file: 'rates.json', bytes: json },
        { file: 'rates-1.1.xml', bytes: exportDocument(20, 'EREF') },
        {
          file: 'premium-rates.txt',
          bytes: Buffer.from(Array.from({ length: 40 }, (_, k) => `BTCCARD${k} : 1 = ${9000000 + k}\n`).join('')),
        },
      ],
      dir,
    );
    const { port } = await serve(dir);
    for (const [path, type] of [
      ['/rates.json', 'application/json'],
      ['/rates-1.1.xml', 'application/xml'],
      ['/premium-rates.txt', 'text/plain; charset=utf-8'],
    ] as const) {
      for (const encoding of [undefined, 'gzip', 'br']) {
        const response = await rawRequest({
          port,
          path,
          ...(encoding ? { headers: { 'Accept-Encoding': encoding } } : {}),
        });
        expect(response.status, `${path} ${encoding}`).toBe(200);
        expect(response.headers['content-type'], `${path} ${encoding}`).toBe(type);
        expect(response.headers['content-encoding'], `${path} ${encoding}`).toBe(encoding);
        expect(response.headers['x-content-type-options']).toBe('nosniff');
      }
    }
    expect((await rawRequest({ port, path: '/rates.json' })).body.equals(json)).toBe(true);
  });
});

describe('the export server: what it refuses', () => {
  it.each([
    ['the root, no listing', '/'],
    ['a missing export', '/nothing.xml'],
    ['an existing file of no export format', '/notes.md'],
    ['an existing html file', '/index.html'],
    ['a temporary dotfile of publish', '/.parserfile.xml.abc.tmp'],
    ['a file in a subfolder', '/sub/x.xml'],
    ['a subfolder, no listing', '/sub/'],
    ['a folder named like an export, no listing', '/folder.xml'],
    ['a folder named like an export, with a slash', '/folder.xml/'],
    ['an export with a trailing slash', '/parserfile.xml/'],
    ['a differently cased name', '/PARSERFILE.XML'],
    ['an encoded slash into a subfolder', '/sub%2fx.xml'],
    ['a NUL byte', '/parserfile.xml%00'],
  ])('404 for %s (%s)', async (_name, path) => {
    const response = await get(path);
    expect(response.status).toBe(404);
    const body = response.body.toString('utf8');
    expect(body).not.toContain(marker);
    for (const name of ['parserfile.xml', 'notes.md', 'inner.xml', 'x.xml', 'link.xml'])
      expect(body).not.toContain(name);
  });

  it.each([
    '/../secret.xml',
    '/%2e%2e/secret.xml',
    '/%2E%2E/secret.xml',
    '/..%2fsecret.xml',
    '/%2e%2e%2fsecret.xml',
    '/sub/../../secret.xml',
    '/sub/%2e%2e/%2e%2e/secret.xml',
    '/sub%2f..%2f..%2fsecret.xml',
    '/..\\secret.xml',
    '/%5c..%5csecret.xml',
    '/./../secret.xml',
  ])('never serves a file outside the folder: %s → 400 or 404', async (path) => {
    const response = await get(path);
    expect([400, 404]).toContain(response.status);
    expect(response.body.toString('utf8')).not.toContain(marker);
  });

  it('never serves what a symlink points to', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const response = await get('/link.xml');
    expect(response.status).not.toBe(200);
    expect(response.body.toString('utf8')).not.toContain(marker);
  });

  // KNOWN BUG (src/service/server/server.ts, snapshotHandlers().lstat): opening with O_NOFOLLOW fails with ELOOP on a
  // symlink, which serve-handler turns into a 500 and a stack trace on stderr instead of its 404.
  it('answers a symlink named like an export with 404', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const response = await get('/link.xml');
    expect(response.status).toBe(404);
    expect(logged).not.toHaveBeenCalled();
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])('%s → 405 with Allow: GET, HEAD', async (method) => {
    const response = await get('/parserfile.xml', { method });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
    // The file is still there and unchanged.
    expect((await readFile(join(out, 'parserfile.xml'))).equals(parserfile)).toBe(true);
  });
});

describe('the export server: only the listed paths, spelled exactly', () => {
  /** `/` and `/healthz` as `start` has them: a page that names the path it was reached by. */
  const page: Route = (request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/plain' });
    response.end(`page for ${request.url}`);
  };
  let routed: Running;
  beforeAll(async () => {
    await writeFile(join(out, '..', 'outside.xml'), `<rates>${marker}</rates>\n`);
    routed = await serve(out, { '/': page, '/healthz': page });
  });
  const routedGet = (path: string) => rawRequest({ port: routed.port, path });

  it.each([
    ['/', 'page'],
    ['/healthz', 'page'],
    ['/parserfile.xml', 'export'],
    // A query string is ignored, as it always was (cache busters); it never changes the path.
    ['/?x=1/../secret.xml', 'page'],
    ['/healthz?verbose', 'page'],
    ['/parserfile.xml?cache=bust', 'export'],
    // The absolute form a server must accept (RFC 9112 §3.2.2).
    ['http://127.0.0.1/parserfile.xml', 'export'],
    ['http://127.0.0.1/healthz', 'page'],
  ])('200 for %s', async (path, what) => {
    const response = await routedGet(path);
    expect(response.status).toBe(200);
    if (what === 'export') expect(response.body.equals(parserfile)).toBe(true);
    else expect(response.body.toString('utf8')).toMatch(/^page for /);
  });

  it.each([
    // The ones reported: `//host/path` was read as a host and a path.
    '//outside.xml',
    '///parserfile.xml',
    '/parserfile.xml/..',
    '//x/healthz',
    // Repeated slashes, dot segments, percent-encoding, backslashes, case, trailing slashes.
    '//parserfile.xml',
    '//healthz',
    '//',
    '//x/',
    '/./parserfile.xml',
    '/sub/../parserfile.xml',
    '/parserfile.xml/.',
    '/./healthz',
    '/x/../healthz',
    '/healthz/.',
    '/healthz/..',
    '/.',
    '/%2e',
    '/%70arserfile.xml',
    '/parserfile%2exml',
    '/%68ealthz',
    '/healthz%2f',
    '/%2f',
    '/\\parserfile.xml',
    '/\\healthz',
    '/healthz/',
    '/HEALTHZ',
    '/healthz;x',
    'http://x//healthz',
    'http://x/./parserfile.xml',
  ])('404 for %s', async (path) => {
    const response = await routedGet(path);
    expect(response.status).toBe(404);
    const body = response.body.toString('utf8');
    expect(body).not.toContain(marker);
    expect(body).not.toContain('page for');
  });
});

describe('the export server: Range and If-Range across a rebuild', () => {
  const range = 'bytes=100-109';
  let port: number;
  let dir: string;
  let before: { plain: RawResponse; gzip: RawResponse; br: RawResponse };
  const second = exportDocument(300, 'SECOND');

  /** One GET of parserfile.xml, plain or as a precompressed copy. */
  const fetchVersion = (encoding: 'identity' | 'gzip' | 'br', headers: Record<string, string> = {}) =>
    rawRequest({ port, path: '/parserfile.xml', headers: { 'Accept-Encoding': encoding, ...headers } });

  beforeAll(async () => {
    dir = await tempDir();
    await publishFiles([{ file: 'parserfile.xml', bytes: exportDocument(300, 'FIRST') }], dir);
    ({ port } = await serve(dir));
    before = { plain: await fetchVersion('identity'), gzip: await fetchVersion('gzip'), br: await fetchVersion('br') };
    // The rebuild the resuming client has not seen.
    await publishFiles([{ file: 'parserfile.xml', bytes: second }], dir);
  });

  /** The whole current version: 200, no Content-Range, every byte. */
  function expectWhole(response: RawResponse, bytes: Buffer): void {
    expect(response.status).toBe(200);
    expect(response.headers['content-range']).toBeUndefined();
    expect(response.headers['content-length']).toBe(String(bytes.length));
    expect(response.body.equals(bytes)).toBe(true);
  }

  it('serves the range of the current file when If-Range is its ETag, or absent', async () => {
    const now = await fetchVersion('identity');
    expectWhole(now, second);
    for (const headers of [{ Range: range }, { Range: range, 'If-Range': now.headers.etag ?? '' }]) {
      const part = await fetchVersion('identity', headers);
      expect(part.status).toBe(206);
      expect(part.headers['content-range']).toBe(`bytes 100-109/${second.length}`);
      expect(part.body.equals(second.subarray(100, 110))).toBe(true);
    }
  });

  it('sends the whole new file with 200 when If-Range is the ETag from before the rebuild', async () => {
    expect(before.plain.body.subarray(100, 110).equals(second.subarray(100, 110))).toBe(false);
    expectWhole(await fetchVersion('identity', { Range: range, 'If-Range': before.plain.headers.etag ?? '' }), second);
  });

  it('never matches a weak ETag, even of the current file', async () => {
    const etag = (await fetchVersion('identity')).headers.etag ?? '';
    expectWhole(await fetchVersion('identity', { Range: range, 'If-Range': `W/${etag}` }), second);
  });

  it('never matches a date, even the current Last-Modified, nor a date after it (a second can hold two builds)', async () => {
    const lastModified = (await fetchVersion('identity')).headers['last-modified'] ?? '';
    expect(Date.parse(lastModified)).not.toBeNaN();
    for (const date of [
      lastModified,
      new Date(Date.parse(lastModified) + 60_000).toUTCString(),
      before.plain.headers['last-modified'] ?? '',
    ]) {
      expectWhole(await fetchVersion('identity', { Range: range, 'If-Range': date }), second);
    }
  });

  it('compares If-Range with the ETag of the copy served: a gzip or brotli ETag never ranges the plain file', async () => {
    for (const etag of [
      before.gzip.headers.etag,
      (await fetchVersion('gzip')).headers.etag,
      (await fetchVersion('br')).headers.etag,
    ]) {
      expect(etag).toMatch(/^"[^"]+"$/);
      expectWhole(await fetchVersion('identity', { Range: range, 'If-Range': etag ?? '' }), second);
    }
  });

  it.each(['gzip', 'br'] as const)(
    'sends the %s copy whole, never a part, whatever If-Range says',
    async (encoding) => {
      const current = await fetchVersion(encoding);
      expect(current.headers['content-encoding']).toBe(encoding);
      const compressed = await readFile(join(dir, `parserfile.xml.${encoding === 'gzip' ? 'gz' : 'br'}`));
      expectWhole(current, compressed);
      const old = before[encoding].headers.etag ?? '';
      expect(old).not.toBe(current.headers.etag);
      for (const ifRange of [old, current.headers.etag ?? '', before.plain.headers.etag ?? '']) {
        const response = await fetchVersion(encoding, { Range: range, 'If-Range': ifRange });
        expect(response.headers['content-encoding']).toBe(encoding);
        expectWhole(response, compressed);
      }
    },
  );
});

describe('the export server during republishing', () => {
  it('never serves a torn file: every GET gets one of the two documents whole, with a matching Content-Length', async () => {
    const dir = await tempDir();
    const small = exportDocument(2, 'SMALL');
    const large = exportDocument(400, 'LARGE');
    expect(await xmlErrors(small)).toEqual([]);
    expect(await xmlErrors(large)).toEqual([]);
    await publishFiles([{ file: 'parserfile.xml', bytes: small }], dir);
    const { port } = await serve(dir);

    // Bounded in count and time: at least 60 republishes, up to 300 while 8 s last (a loaded machine is slower).
    const republishes = { min: 60, max: 300, budgetMs: 8_000 };
    // Readers run until the last republish; the cap only bounds a run on a machine where reads are far faster than writes.
    const maxRequests = 4_000;
    let writing = true;
    const writer = (async () => {
      const start = performance.now();
      try {
        for (
          let i = 0;
          i < republishes.max && (i < republishes.min || performance.now() - start < republishes.budgetMs);
          i++
        ) {
          await publishFiles([{ file: 'parserfile.xml', bytes: i % 2 === 0 ? large : small }], dir);
        }
      } finally {
        writing = false;
      }
    })();

    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const seen = { small: 0, large: 0 };
    const problems: string[] = [];
    let requests = 0;
    const reader = async () => {
      while (writing && requests < maxRequests) {
        requests++;
        let response: RawResponse;
        try {
          response = await rawRequest({ port, path: '/parserfile.xml', agent });
        } catch (error) {
          // A body longer or shorter than its Content-Length breaks the connection's framing.
          problems.push(`request failed: ${(error as Error).message}`);
          continue;
        }
        const { body } = response;
        if (response.status !== 200) problems.push(`status ${response.status}`);
        else if (response.headers['content-length'] !== String(body.length)) {
          problems.push(`Content-Length ${response.headers['content-length']} for a body of ${body.length} bytes`);
        } else if (body.equals(small)) seen.small++;
        else if (body.equals(large)) seen.large++;
        else problems.push(`a body of ${body.length} bytes that is neither document`);
      }
    };
    try {
      await Promise.all([writer, ...Array.from({ length: 4 }, reader)]);
    } finally {
      agent.destroy();
    }
    expect(problems.slice(0, 10), `${problems.length} bad responses of ${requests}`).toEqual([]);
    // The readers really ran alongside the writer and saw both versions.
    expect(seen.small).toBeGreaterThan(0);
    expect(seen.large).toBeGreaterThan(0);
  }, 60_000);

  // KNOWN BUG (src/service/server/server.ts via serve-handler's `etag: true`): the ETag is a hash cached per path and
  // keyed by the file's mtime in milliseconds, so a file republished with different bytes but the same
  // mtime keeps the old ETag, and a client sending If-None-Match gets 304 for content it has not seen.
  // Two publishes in the same millisecond do this (about 1 in 10 in a tight republish loop here), and
  // so does any rebuild within the timestamp granularity of a coarse file system. utimes makes it certain.
  it('gives changed bytes a new ETag even when the mtime is the same', async () => {
    const dir = await tempDir();
    const first = exportDocument(1, 'FIRST');
    const second = exportDocument(2, 'SECOND');
    await publishFiles([{ file: 'reffile.xml', bytes: first }], dir);
    const { port } = await serve(dir);
    const before = await rawRequest({ port, path: '/reffile.xml' });
    expect(before.body.equals(first)).toBe(true);
    const { atime, mtime } = await stat(join(dir, 'reffile.xml'));

    await publishFiles([{ file: 'reffile.xml', bytes: second }], dir);
    await utimes(join(dir, 'reffile.xml'), atime, mtime);

    const after = await rawRequest({ port, path: '/reffile.xml' });
    expect(after.body.equals(second)).toBe(true);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const conditional = await rawRequest({
      port,
      path: '/reffile.xml',
      headers: { 'If-None-Match': before.headers.etag ?? '' },
    });
    expect(conditional.status).toBe(200);
  });

  it("serves build N+2 when it comes back under build N's inode (ext4 hands a freed inode out again)", async () => {
    // Two links to one inode: its bytes rewritten in place and renamed back over the export, as a rename can reuse a
    // freed inode. The same size, so only the change time tells the versions apart; build N+1 is not asked for, so
    // what the server last read of the path is build N's.
    const dir = await tempDir();
    const [n, n1, n2] = ['AAAA', 'BBBB', 'CCCC'].map((label) => exportDocument(2, label));
    const path = join(dir, 'reffile.xml');
    await writeFile(path, n!);
    await link(path, join(dir, 'keep'));
    const { port } = await serve(dir);
    expect((await rawRequest({ port, path: '/reffile.xml' })).body.equals(n!)).toBe(true);
    await writeFile(join(dir, 'next'), n1!);
    await rename(join(dir, 'next'), path);
    const inode = (await stat(join(dir, 'keep'))).ino;
    await writeFile(join(dir, 'keep'), n2!);
    await rename(join(dir, 'keep'), path);
    expect((await stat(path)).ino).toBe(inode);
    const served = await rawRequest({ port, path: '/reffile.xml' });
    expect(served.body.toString()).toBe(n2!.toString());
  });
});
