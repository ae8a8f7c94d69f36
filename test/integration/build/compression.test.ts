// Precompressed exports: publish writes .gz and .br copies once per build; the server picks one by Accept-Encoding.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishFiles } from '../../../src/io/build/publish.js';
import { chooseEncoding, createExportServer, listen } from '../../../src/service/server/server.js';
import { rawRequest } from '../../support/http.js';

const xml = Buffer.from(
  `<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n${'  <item>\n    <from>BTC</from>\n  </item>\n'.repeat(200)}</rates>\n`,
);

let dir: string;
let server: Server;
let port: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ratefile-compression-'));
  await publishFiles([{ file: 'parserfile.xml', bytes: xml }], dir);
  server = createExportServer(dir);
  port = await listen(server, 0, '127.0.0.1');
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

const get = (headers: Record<string, string> = {}, method = 'GET', path = '/parserfile.xml') =>
  rawRequest({ port, path, method, headers });

describe('precompressed exports', () => {
  it('publish writes the export with gzip and brotli copies of the same bytes', async () => {
    expect((await readdir(dir)).sort()).toEqual(['parserfile.xml', 'parserfile.xml.br', 'parserfile.xml.gz']);
  });

  it.each([
    ['br', 'br', (body: Buffer) => brotliDecompressSync(body)],
    ['gzip, deflate, br', 'br', (body: Buffer) => brotliDecompressSync(body)],
    ['gzip', 'gzip', (body: Buffer) => gunzipSync(body)],
    ['br;q=0, gzip', 'gzip', (body: Buffer) => gunzipSync(body)],
  ])(
    'Accept-Encoding %j → %s, application/xml, Vary, and the exact document once decompressed',
    async (accept, encoding, decode) => {
      const response = await get({ 'Accept-Encoding': accept });
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding']).toBe(encoding);
      expect(response.headers['content-type']).toBe('application/xml');
      expect(response.headers.vary).toBe('Accept-Encoding');
      expect(Number(response.headers['content-length'])).toBe(response.body.length);
      expect(response.body.length).toBeLessThan(xml.length / 5);
      expect(decode(response.body).equals(xml)).toBe(true);
    },
  );

  it('sends the plain document when the client accepts no compression', async () => {
    for (const headers of [{}, { 'Accept-Encoding': 'identity' }, { 'Accept-Encoding': 'gzip;q=0, br;q=0' }]) {
      const response = await get(headers);
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.headers.vary).toBe('Accept-Encoding');
      expect(response.body.equals(xml)).toBe(true);
    }
  });

  it('gives each encoding its own ETag and answers it with 304', async () => {
    const plain = await get();
    const brotli = await get({ 'Accept-Encoding': 'br' });
    expect(brotli.headers.etag).toBeDefined();
    expect(brotli.headers.etag).not.toBe(plain.headers.etag);
    const again = await get({ 'Accept-Encoding': 'br', 'If-None-Match': brotli.headers.etag ?? '' });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('answers If-Modified-Since with 304 when the file is not newer, 200 when it is', async () => {
    const plain = await get();
    const lastModified = plain.headers['last-modified'] ?? '';
    expect(lastModified).not.toBe('');
    expect((await get({ 'If-Modified-Since': lastModified })).status).toBe(304);
    expect((await get({ 'If-Modified-Since': new Date(Date.parse(lastModified) - 60_000).toUTCString() })).status).toBe(
      200,
    );
  });

  it('answers HEAD for a compressed representation with its headers and no body', async () => {
    const response = await get({ 'Accept-Encoding': 'gzip' }, 'HEAD');
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.body.length).toBe(0);
  });

  it('does not serve the compressed copies by name', async () => {
    expect((await get({}, 'GET', '/parserfile.xml.gz')).status).toBe(404);
    expect((await get({}, 'GET', '/parserfile.xml.br')).status).toBe(404);
  });
});

describe('chooseEncoding', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, br', 'br'],
    ['*', 'br'],
    ['*;q=0, gzip', 'gzip'],
    ['deflate', undefined],
  ])('%j → %s', (header, expected) => {
    expect(chooseEncoding(header)).toBe(expected);
  });
});
