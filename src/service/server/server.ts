// The built-in server: only the export files of the output folder, as application/xml, application/json or text/plain (Premium's files), with ETag and 304.
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import serveHandler from 'serve-handler';
import { contentTypeOf, exportFileName } from '../../model/formats.js';
import { exportHeaders, type ExportHeaders } from '../../pure/edge/headers.js';
import { exportEtag } from '../../pure/watch/judge.js';

/** Export file names: no folders, no dotfiles (temporary files are dotfiles), nothing but `.xml`, `.json` and `.txt` (compressed copies are sent by content negotiation, not by name). */
const exportPath = new RegExp(`^/${exportFileName.source.slice(1)}`);

type HandlerConfig = NonNullable<Parameters<typeof serveHandler>[2]>;
type HandlerMethods = NonNullable<Parameters<typeof serveHandler>[3]>;

// ETags are computed here from the bytes served, not by serve-handler, whose cache is keyed by a
// millisecond mtime and can keep an old ETag for new bytes written within the same millisecond.
const handlerConfig = (dir: string): HandlerConfig => ({
  public: dir,
  cleanUrls: false,
  directoryListing: false,
  symlinks: false,
  etag: false,
  headers: [
    ...(['xml', 'json', 'txt'] as const).map((extension) => ({
      source: `**/*.${extension}`,
      headers: [
        { key: 'Content-Type', value: contentTypeOf(`.${extension}`) },
        { key: 'X-Content-Type-Options', value: 'nosniff' },
      ],
    })),
  ],
});

interface Snapshot {
  stats: Stats;
  bytes: Buffer;
  etag: string;
}

/**
 * The last version read of each file, by identity: a publish renames a new file into place, so inode +
 * change time (ns) + size name one version. A poll of an unchanged file costs an open and a stat, not a
 * read and a hash.
 */
const versions = new Map<string, { identity: string; snapshot: Snapshot }>();

/**
 * One consistent version of a file, read through a single descriptor: serve-handler stats a file and
 * then opens it by name, and a rebuild renaming a new file into place between the two would mix the
 * old length with the new bytes. Undefined when there is no regular file (missing, folder, symlink).
 */
async function readSnapshot(path: string): Promise<Snapshot | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if (['ENOENT', 'ELOOP', 'ENOTDIR', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? ''))
      return undefined;
    throw error;
  }
  try {
    const id = await handle.stat({ bigint: true });
    if (!id.isFile()) return undefined;
    const identity = `${id.dev}:${id.ino}:${id.ctimeNs}:${id.size}`;
    const known = versions.get(path);
    if (known?.identity === identity) return known.snapshot;
    const stats = await handle.stat();
    const bytes = await handle.readFile();
    // The same validator the watch from outside matches a public copy by (src/pure/watch/judge.ts).
    const snapshot = { stats, bytes, etag: exportEtag(bytes) };
    // Only export files are ever read here (the path filter allows nothing else), so this stays small.
    versions.set(path, { identity, snapshot });
    return snapshot;
  } finally {
    await handle.close();
  }
}

/** File access for serve-handler from the snapshot already read. */
function snapshotHandlers(path: string, snapshot: Snapshot) {
  return {
    async lstat(requested: string): Promise<Stats> {
      if (requested !== path) throw Object.assign(new Error('not found'), { code: 'ENOENT' });
      return snapshot.stats;
    },
    createReadStream(_requested: string, options?: { start?: number; end?: number }): Readable {
      const start = options?.start ?? 0;
      const end = options?.end === undefined ? snapshot.bytes.length : options.end + 1;
      return Readable.from([snapshot.bytes.subarray(start, end)]);
    },
  };
}

/** RFC 9110: If-None-Match wins over If-Modified-Since; dates compare at one-second resolution. */
function notModified(request: IncomingMessage, snapshot: Snapshot): boolean {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === snapshot.etag || tag.trim() === '*');
  }
  const since = Date.parse(request.headers['if-modified-since'] ?? '');
  return !Number.isNaN(since) && Math.floor(snapshot.stats.mtimeMs / 1000) * 1000 <= since;
}

/**
 * RFC 9110 §13.1.5: a Range is served only when If-Range, if sent, names the version being served, so a
 * resuming client never splices two builds. An entity-tag matches only strongly (ours are strong; a weak
 * one never matches). A date never does: a date is a strong validator only if the file cannot have
 * changed twice within that second, and builds can (a schedule of seconds, `ratefile build` by hand
 * beside `start`), unseen by the server. Otherwise the whole current file goes out with 200.
 */
function rangeApplies(request: IncomingMessage, snapshot: Snapshot): boolean {
  const ifRange = request.headers['if-range'];
  return ifRange === undefined || (typeof ifRange === 'string' && ifRange.trim() === snapshot.etag);
}

/** The best encoding the client accepts that the build precompressed: brotli, then gzip, else none. */
export function chooseEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | undefined {
  if (!acceptEncoding) return undefined;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [token = '', ...parameters] = part.trim().split(';');
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(token.trim(), q ? Number(q.slice(2)) : 1);
  }
  const weight = (name: string) => accepted.get(name) ?? accepted.get('*') ?? 0;
  if (weight('br') > 0) return 'br';
  if (weight('gzip') > 0) return 'gzip';
  return undefined;
}

const extensions = { br: 'br', gzip: 'gz' } as const;

/** Send a precompressed copy (`.xml.br`, `.xml.gz`) as it is: compressed once per build, never per request. */
async function sendCompressed(
  request: IncomingMessage,
  response: ServerResponse,
  file: string,
  encoding: 'br' | 'gzip',
  caching: ExportHeaders,
): Promise<boolean> {
  const snapshot = await readSnapshot(`${file}.${extensions[encoding]}`);
  if (!snapshot) return false;
  // Set on the response rather than passed to writeHead, which writes them without keeping them: what a hook reads
  // once the answer is sent (who fetched, and how many bytes: src/service/readers/tracker.ts) sees what went out.
  const headers = {
    'Content-Type': contentTypeOf(file),
    'Content-Encoding': encoding,
    ...cachingHeaders(caching),
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Accept-Encoding',
    ETag: snapshot.etag,
    'Last-Modified': snapshot.stats.mtime.toUTCString(),
  };
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  if (notModified(request, snapshot)) {
    response.writeHead(304);
    response.end();
    return true;
  }
  response.setHeader('Content-Length', String(snapshot.bytes.length));
  response.writeHead(200);
  response.end(request.method === 'HEAD' ? undefined : snapshot.bytes);
  return true;
}

/** `server.headers`, as header fields: Cache-Control and CDN-Cache-Control. */
const cachingHeaders = (caching: ExportHeaders) => ({
  'Cache-Control': caching.cacheControl,
  'CDN-Cache-Control': caching.cdnCacheControl,
});

/** Without a config (`serve --out`): the defaults for a schedule of 30 s. */
const defaultHeaders = exportHeaders({}, 30_000);

function reply(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache', ...headers });
  response.end(`${message}\n`);
}

/**
 * The path of a request as sent, without its query (ignored): not decoded, dot segments and repeated
 * slashes not folded, so only the one spelling of a listed path matches and `//x/healthz`,
 * `/parserfile.xml/..` or `/%70arserfile.xml` are 404 (`new URL` would read `//x/healthz` as host `x`,
 * path `/healthz`). No listed path has a character that needs percent-encoding. The absolute form
 * (`GET http://host/parserfile.xml`), which a server must accept (RFC 9112 §3.2.2), is its path.
 */
export function requestPath(target: string): string {
  const authority = /^https?:\/\/[^/?#]*/i.exec(target)?.[0] ?? '';
  const path = target.slice(authority.length).split('?', 1)[0] ?? '';
  return authority && path === '' ? '/' : path;
}

/** An extra page of the server (the dashboard, its JSON, /healthz, /metrics), by exact path; GET and HEAD only. */
export type Route = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

/** Which files of the folder are served. */
export interface ServeOptions {
  /**
   * The export files the config declares (names, as in `exports[].file`), read at each request so a reload's
   * set applies at once. Anything else in the folder (an old export, notes, a file another tool left) is 404,
   * even with an export's extension. Unset (`serve --out` without a config): every export-named file.
   */
  declared?: () => ReadonlySet<string>;
  /** The caching headers of every export (`server.headers`), read at each request so a reload's apply at once. */
  headers?: () => ExportHeaders;
}

export function exportRequestHandler(
  folder: string,
  routes: Readonly<Record<string, Route>> = {},
  options: ServeOptions = {},
) {
  const dir = resolve(folder);
  const config = handlerConfig(dir);
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      reply(response, 405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
      return;
    }
    const path = requestPath(request.url ?? '');
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (route) {
      try {
        await route(request, response);
      } catch {
        if (!response.headersSent) reply(response, 500, 'Internal Server Error');
        else response.destroy();
      }
      return;
    }
    if (!exportPath.test(path) || (options.declared && !options.declared().has(path.slice(1)))) {
      reply(response, 404, 'Not Found');
      return;
    }
    try {
      const file = join(dir, path);
      const snapshot = await readSnapshot(file);
      if (!snapshot) {
        reply(response, 404, 'Not Found');
        return;
      }
      const caching = options.headers?.() ?? defaultHeaders;
      const encoding = chooseEncoding(request.headers['accept-encoding']);
      if (encoding && (await sendCompressed(request, response, file, encoding, caching))) return;
      for (const [name, value] of Object.entries(cachingHeaders(caching))) response.setHeader(name, value);
      response.setHeader('Vary', 'Accept-Encoding');
      response.setHeader('ETag', snapshot.etag);
      response.setHeader('Last-Modified', snapshot.stats.mtime.toUTCString());
      if (notModified(request, snapshot)) {
        response.writeHead(304);
        response.end();
        return;
      }
      // serve-handler honours Range but not If-Range (its "TODO ? if-range"): without the Range header it
      // sends the whole file. The precompressed copies are always sent whole, so If-Range cannot splice them.
      if (!rangeApplies(request, snapshot)) delete request.headers.range;
      await serveHandler(request, response, config, snapshotHandlers(file, snapshot) as unknown as HandlerMethods);
    } catch {
      if (!response.headersSent) reply(response, 500, 'Internal Server Error');
      else response.destroy();
    }
  };
}

/** `refuse`: an answer in place of a file of the folder (a standby's 503); the routes are always served. */
export function createExportServer(
  dir: string,
  routes: Readonly<Record<string, Route>> = {},
  refuse?: (path: string) => Route | undefined,
  options: ServeOptions = {},
): Server {
  const handle = exportRequestHandler(dir, routes, options);
  return createServer((request, response) => {
    const path = requestPath(request.url ?? '');
    const refusal = Object.hasOwn(routes, path) ? undefined : refuse?.(path);
    void (refusal ? refusal(request, response) : handle(request, response));
  });
}

/** Listen and resolve with the port actually bound (0 asks the system for a free one). */
/** The address a listening server is bound to, as a URL (`http://127.0.0.1:8080/`, `http://[::1]:8080/`): what it really listens on. */
export function boundUrl(server: Server): string {
  const address = server.address();
  if (typeof address !== 'object' || address === null) return `http://${String(address)}/`;
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/`;
}

export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
