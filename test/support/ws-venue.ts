// A venue's WebSocket stream on 127.0.0.1 (random port, `ws`'s server), replaying recorded sessions from
// test/fixtures/streams/: each test says how the venue behaves with each connection; every connection, what it was
// sent and when it opened are recorded. Protocol pings are answered only by the behaviour (a silent venue does not).
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type WebSocket, WebSocketServer } from 'ws';

export const streamFixturesDir = fileURLToPath(new URL('../fixtures/streams/', import.meta.url));

/** A recorded session's frames: `test/fixtures/streams/<name>`, one frame per line. */
export function streamFixture(name: string): string[] {
  return readFileSync(`${streamFixturesDir}${name}`, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

export interface VenueConnection {
  socket: WebSocket;
  /** The path and query it connected to. */
  path: string;
  /** Text frames it sent, in order. */
  received: string[];
  /** Protocol pings it sent. */
  pings: number;
  /** performance.now() when it opened. */
  openedAt: number;
  /** Resolves when it closed, with the close code the venue saw. */
  closed: Promise<number>;
  isClosed: boolean;
}

export type Behaviour = (connection: VenueConnection) => void;

export interface WsVenue {
  /** `ws://127.0.0.1:<port>` */
  url: string;
  connections: VenueConnection[];
  /** What the venue does with each new connection (and with its messages). */
  behave(behaviour: Behaviour): void;
  close(): Promise<void>;
}

export async function startWsVenue(): Promise<WsVenue> {
  // autoPong off: a venue that has gone silent must not answer pings by itself.
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, autoPong: false });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const connections: VenueConnection[] = [];
  let behaviour: Behaviour = () => undefined;
  server.on('connection', (socket, request) => {
    let resolveClosed: (code: number) => void = () => undefined;
    const connection: VenueConnection = {
      socket,
      path: request.url ?? '/',
      received: [],
      pings: 0,
      openedAt: performance.now(),
      closed: new Promise<number>((resolve) => (resolveClosed = resolve)),
      isClosed: false,
    };
    socket.on('message', (data, isBinary) => {
      if (!isBinary) connection.received.push(data.toString());
    });
    socket.on('ping', () => connection.pings++);
    socket.on('close', (code) => {
      connection.isClosed = true;
      resolveClosed(code);
    });
    socket.on('error', () => undefined);
    connections.push(connection);
    behaviour(connection);
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections,
    behave(next) {
      behaviour = next;
    },
    async close() {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends `frames` on `connection` if it is still open. */
export function sendAll(connection: VenueConnection, frames: readonly string[]): void {
  for (const frame of frames)
    if (connection.socket.readyState === connection.socket.OPEN) connection.socket.send(frame);
}

/** Polls `condition` (every 5 ms) until it holds; fails after `timeoutMs` naming `what`. Waits on state, not on time. */
export async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
