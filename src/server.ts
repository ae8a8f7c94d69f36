// The built-in server: only the export files of the output folder, as application/xml, with ETag and 304.
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import serveHandler from 'serve-handler';

/** Export file names: no folders, no dotfiles (temporary files are dotfiles), nothing but `.xml`. */
const exportPath = /^\/[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*\.xml$/;

type HandlerConfig = NonNullable<Parameters<typeof serveHandler>[2]>;
type HandlerMethods = NonNullable<Parameters<typeof serveHandler>[3]>;

const handlerConfig = (dir: string): HandlerConfig => ({
  public: dir,
  cleanUrls: false,
  directoryListing: false,
  symlinks: false,
  etag: true,
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

/**
 * File access for one request, from a single open file descriptor: serve-handler stats a file and then
 * opens it by name, and a rebuild renaming a new file into place between the two would mix the old
 * length with the new bytes. Reading through one descriptor gives one consistent version.
 */
function snapshotHandlers() {
  const snapshots = new Map<string, { stats: Stats; bytes?: Buffer }>();
  return {
    async lstat(path: string): Promise<Stats> {
      const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const stats = await handle.stat();
        snapshots.set(path, { stats, ...(stats.isFile() ? { bytes: await handle.readFile() } : {}) });
        return stats;
      } finally {
        await handle.close();
      }
    },
    createReadStream(path: string, options?: { start?: number; end?: number }): Readable {
      const bytes = snapshots.get(path)?.bytes ?? Buffer.alloc(0);
      const start = options?.start ?? 0;
      const end = options?.end === undefined ? bytes.length : options.end + 1;
      return Readable.from([bytes.subarray(start, end)]);
    },
  };
}

function reply(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache', ...headers });
  response.end(`${message}\n`);
}

/** An extra page of the server (a status or preview page), by exact path; GET and HEAD only. */
export type Route = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

export function exportRequestHandler(dir: string, routes: Readonly<Record<string, Route>> = {}) {
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
      await serveHandler(request, response, config, snapshotHandlers() as unknown as HandlerMethods);
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
