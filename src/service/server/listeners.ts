// The service's listeners and what each answers. The dashboard, its JSON, /metrics and the full /healthz show
// margins, floors, reserves, market quotes, sources, HA instances and the lock database's host: on an address other
// machines reach (`--host 0.0.0.0`, a LAN address) only the exports and a bare /healthz answer. The pages answer on a
// loopback address, the main one or `server.private` (a second listener, e.g. 127.0.0.1:9090 for an SSH tunnel
// and a local Prometheus).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isIPv4 } from 'node:net';
import { assessHealth, healthBody } from '../../pure/status/health.js';
import type { HaStatus, Status } from '../../pure/status/report.js';
import { RatefileError } from '../../base/errors.js';
import { boundUrl, createExportServer, listen, type Route, type ServeOptions } from './server.js';

/**
 * Whether an address to listen on reaches this machine only: 127.0.0.0/8, ::1 (also as an IPv4-mapped or
 * bracketed address) and `localhost`. Anything else (0.0.0.0, ::, a LAN address, any other host name) may be
 * reached from elsewhere.
 */
export function isLoopbackHost(host: string): boolean {
  const address = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (address === 'localhost' || address === '::1' || address === '0:0:0:0:0:0:0:1') return true;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return isIPv4(v4) && v4.startsWith('127.');
}

export interface Address {
  host: string;
  port: number;
}

export interface ListenerOptions extends ServeOptions {
  outDir: string;
  main: Address;
  /** `server.private`: a second listener answering everything the main one does, and the pages. */
  private?: Address | undefined;
  /** The dashboard's routes, /metrics and the full /healthz. */
  pages: Readonly<Record<string, Route>>;
  /** What a non-loopback main listener answers besides the exports (the bare /healthz). */
  publicRoutes: Readonly<Record<string, Route>>;
  /** A standby's answer in place of a file (ha/serve.ts); `exposed`: for an address others reach, saying less. */
  refuse?: ((exposed: boolean) => (path: string) => Route | undefined) | undefined;
  /** Every request of either listener, with the routes that listener answers (for the request metrics and readers). */
  onRequest(routes: Readonly<Record<string, Route>>, request: IncomingMessage, response: ServerResponse): void;
}

export interface Listeners {
  main: Server;
  /** The port the main listener bound. */
  port: number;
  private: Server | undefined;
  /** Where the pages answer (`http://127.0.0.1:9090/`), or undefined when nowhere. */
  pagesUrl: string | undefined;
  close(): Promise<void>;
}

function serverFor(options: ListenerOptions, routes: Readonly<Record<string, Route>>, exposed: boolean): Server {
  const server = createExportServer(options.outDir, routes, options.refuse?.(exposed), {
    ...(options.declared ? { declared: options.declared } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) =>
    options.onRequest(routes, request, response),
  );
  return server;
}

/** The port a listening server bound. */
export function portOfServer(server: Server): number | undefined {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : undefined;
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

/**
 * A taken `server.private` port is a config mistake (most often the main port again): said as one, naming the key,
 * rather than as the main listener's "choose another with --port".
 */
function privateListenProblem(error: unknown, address: Address, mainPort: number): unknown {
  if ((error as NodeJS.ErrnoException | undefined)?.code !== 'EADDRINUSE') return error;
  const main = address.port === mainPort ? ", the main listener's port" : '';
  return new RatefileError(
    'E_CONFIG',
    `server.private: port ${address.port} on ${address.host} is in use${main}: choose another port for server.private`,
    { cause: error },
  );
}

/** Listen on the main address and, when set, the private one; on a failure nothing stays bound. */
export async function openListeners(options: ListenerOptions): Promise<Listeners> {
  const mainPages = isLoopbackHost(options.main.host);
  const main = serverFor(options, mainPages ? options.pages : options.publicRoutes, !mainPages);
  const port = await listen(main, options.main.port, options.main.host);
  let second: Server | undefined;
  if (options.private) {
    second = serverFor(options, options.pages, false);
    try {
      await listen(second, options.private.port, options.private.host);
    } catch (error) {
      await closeServer(main);
      throw privateListenProblem(error, options.private, port);
    }
  }
  return {
    main,
    port,
    private: second,
    pagesUrl: second ? boundUrl(second) : mainPages ? boundUrl(main) : undefined,
    async close() {
      await Promise.all([main, ...(second ? [second] : [])].map(closeServer));
    },
  };
}

/** A line for the start-up log when the pages are not where the exports are; undefined when they are. */
export function pagesNoteOf(listeners: Listeners, host: string): string | undefined {
  if (listeners.private) return `dashboard, /metrics and the full /healthz at ${listeners.pagesUrl} (server.private)`;
  if (listeners.pagesUrl) return undefined;
  return `${host} is not a loopback address: only the exports and a bare /healthz answer there; for the dashboard and /metrics, set server.private (e.g. "server: { private: { port: 9090 } }" for 127.0.0.1:9090)`;
}

export interface HealthInput {
  status(): Status | undefined;
  now(): Date;
  /** With `ha:`, this instance's role. */
  ha?: () => HaStatus;
  /** What the dashboard may show (no paths, no secrets, controls escaped). */
  shown<T>(value: T): T;
}

/**
 * `/healthz`: 200 for ok and degraded (what is published is right), 503 for failing and for a standby (a load
 * balancer routes readers to the leader). `full`: the reasons, the status and `ha`, for loopback and
 * `server.private`; `bare`: the level and the role only, for an address others reach.
 */
export function healthRoutes(input: HealthInput): { full: Route; bare: Route } {
  const assess = () => {
    // The role as the standby logic sees it now, not as the last build left it: a leader that took the lock in a
    // build still publishing is judged as a leader (src/pure/status/health.ts: not ok before its first publish).
    const ha = input.ha?.();
    const status = input.status();
    const health = assessHealth(status && ha ? { ...status, ha } : status, input.now());
    return { health, ha, code: health.level === 'failing' || (ha && ha.role !== 'leader') ? 503 : 200 };
  };
  const json = (response: ServerResponse, code: number, body: unknown) => {
    response.writeHead(code, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache' });
    response.end(`${JSON.stringify(body, null, 2)}\n`);
  };
  return {
    full: (_request, response) => {
      const { health, ha, code } = assess();
      json(response, code, input.shown({ ...healthBody(health, input.status()), ...(ha ? { ha } : {}) }));
    },
    bare: (_request, response) => {
      const { health, ha, code } = assess();
      json(response, code, { level: health.level, ...(ha ? { role: ha.role } : {}) });
    },
  };
}
