// A real HTTP server on 127.0.0.1 (random port) replaying recorded source responses from test/fixtures/sources/,
// so adapters are tested through fetch, sockets and all, without the internet. Requests are recorded.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { fileURLToPath } from 'node:url';

export const fixturesDir = fileURLToPath(new URL('../fixtures/sources/', import.meta.url));

/** A recorded response: `test/fixtures/sources/<name>` as bytes. */
export function fixture(name: string): Buffer {
  return readFileSync(`${fixturesDir}${name}`);
}

/**
 * A fixture with `from` replaced by `to`, byte for byte outside the replaced part (so windows-1251 stays
 * windows-1251); throws if `from` is not there, so a test cannot silently stop testing anything.
 */
export function fixtureWith(name: string, from: string | RegExp, to: string): Buffer {
  const text = fixture(name).toString('latin1');
  if (typeof from === 'string' ? !text.includes(from) : !from.test(text))
    throw new Error(`${name}: ${String(from)} not found`);
  return Buffer.from(text.replace(from, to), 'latin1');
}

export interface ReplayResponse {
  status?: number;
  headers?: Record<string, string>;
  /** A fixture file under test/fixtures/sources/ (its extension sets the content type)… */
  fixture?: string;
  /** …or the body itself, which wins over the fixture's. */
  body?: string | Buffer;
  /** Wait this long before answering (for timeouts). */
  delayMs?: number;
}

export interface ReplayRoute {
  path: string;
  /** Query parameters the request must have (a string: that value; null: absent). */
  query?: Record<string, string | null>;
  /** Fields a JSON request body (a POST's) must have, compared as JSON (a search's asset, side…). */
  body?: Record<string, unknown>;
  /** Served in turn; the last one is repeated. */
  responses: ReplayResponse[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** The request's body as text ('' for a GET). */
  body: string;
}

export interface ReplayServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Replace the routes (e.g. to serve an error next). */
  setRoutes(routes: ReplayRoute[]): void;
  close(): Promise<void>;
}

const contentTypes: Record<string, string> = {
  json: 'application/json;charset=UTF-8',
  xml: 'text/xml',
  asp: 'application/xml; charset=windows-1251',
  html: 'text/html; charset=utf-8',
};

function bodyField(body: string, key: string): string | undefined {
  try {
    return JSON.stringify((JSON.parse(body) as Record<string, unknown>)[key]);
  } catch {
    return undefined;
  }
}

function matches(route: ReplayRoute, path: string, query: URLSearchParams, body: string): boolean {
  if (route.path !== path) return false;
  const fields = Object.entries(route.body ?? {});
  return (
    Object.entries(route.query ?? {}).every(([key, value]) =>
      value === null ? !query.has(key) : query.get(key) === value,
    ) && fields.every(([key, value]) => bodyField(body, key) === JSON.stringify(value))
  );
}

export async function startReplay(initial: ReplayRoute[]): Promise<ReplayServer> {
  let routes = initial;
  const served = new Map<ReplayRoute, number>();
  const requests: RecordedRequest[] = [];
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // Recorded on arrival, its body filled in once read: a test counting requests sees one the client gave up on.
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
      body: '',
    };
    requests.push(recorded);
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of request) chunks.push(chunk as Buffer);
    } catch {
      return; // the client went away mid-body
    }
    const text = Buffer.concat(chunks).toString('utf8');
    recorded.body = text;
    const route = routes.find((candidate) => matches(candidate, url.pathname, url.searchParams, text));
    if (!route) {
      response
        .writeHead(404, { 'content-type': 'text/plain' })
        .end(`replay: no route for ${request.method} ${url.pathname}${url.search}`);
      return;
    }
    const turn = served.get(route) ?? 0;
    served.set(route, turn + 1);
    const planned = route.responses[Math.min(turn, route.responses.length - 1)]!;
    const body = planned.body ?? (planned.fixture !== undefined ? fixture(planned.fixture) : '');
    const extension = planned.fixture?.split('.').pop() ?? 'json';
    const send = () => {
      if (response.destroyed) return;
      response.writeHead(planned.status ?? 200, {
        'content-type': contentTypes[extension] ?? 'application/octet-stream',
        ...planned.headers,
      });
      response.end(body);
    };
    if (planned.delayMs) {
      const timer = setTimeout(send, planned.delayMs);
      response.on('close', () => clearTimeout(timer));
    } else {
      send();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setRoutes(next) {
      routes = next;
      served.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** One replay server for a describe block: started before its tests, closed after; the getter reads it in a test. */
export function replayPerSuite(): () => ReplayServer {
  let server: ReplayServer | undefined;
  beforeAll(async () => {
    server = await startReplay([]);
  });
  afterAll(() => server?.close());
  return () => server!;
}
