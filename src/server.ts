// The built-in server: only the export files of the output folder, as application/xml, with ETag and 304.
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import serveHandler from 'serve-handler';

/** Export file names: no folders, no dotfiles (temporary files are dotfiles), nothing but `.xml`. */
const exportPath = /^\/[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*\.xml$/;

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
    {
      source: '**/*.xml',
      headers: [
        { key: 'Content-Type', value: 'application/xml' },
        { key: 'Cache-Control', value: 'no-cache' },
        { key: 'X-Content-Type-Options', value: 'nosniff' },
      ],
    },
  ],
});

interface Snapshot {
  stats: Stats;
  bytes: Buffer;
  etag: string;
}

/** ETags by file identity: a publish renames a new file into place, so inode + change time (ns) + size name one version. */
const etagCache = new Map<string, string>();

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
    if (['ENOENT', 'ELOOP', 'ENOTDIR', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
  try {
    const identity = await handle.stat({ bigint: true });
    if (!identity.isFile()) return undefined;
    const stats = await handle.stat();
    const bytes = await handle.readFile();
    const key = `${path}:${identity.ino}:${identity.ctimeNs}:${identity.size}`;
    let etag = etagCache.get(key);
    if (etag === undefined) {
      etag = `"${createHash('sha1').update(bytes).digest('base64url')}"`;
      if (etagCache.size > 1000) etagCache.clear();
      etagCache.set(key, etag);
    }
    return { stats, bytes, etag };
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

function reply(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache', ...headers });
  response.end(`${message}\n`);
}

/** An extra page of the server (a status or preview page), by exact path; GET and HEAD only. */
export type Route = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

export function exportRequestHandler(folder: string, routes: Readonly<Record<string, Route>> = {}) {
  const dir = resolve(folder);
  const config = handlerConfig(dir);
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      reply(response, 405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    } catch {
      reply(response, 400, 'Bad Request');
      return;
    }
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
    if (!exportPath.test(path)) {
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
      response.setHeader('ETag', snapshot.etag);
      response.setHeader('Last-Modified', snapshot.stats.mtime.toUTCString());
      if (notModified(request, snapshot)) {
        response.writeHead(304, { 'Cache-Control': 'no-cache' });
        response.end();
        return;
      }
      await serveHandler(request, response, config, snapshotHandlers(file, snapshot) as unknown as HandlerMethods);
    } catch {
      if (!response.headersSent) reply(response, 500, 'Internal Server Error');
      else response.destroy();
    }
  };
}

export function createExportServer(dir: string, routes: Readonly<Record<string, Route>> = {}): Server {
  const handle = exportRequestHandler(dir, routes);
  return createServer((request, response) => void handle(request, response));
}

/** Listen and resolve with the port actually bound (0 asks the system for a free one). */
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
