// Loopback HTTP servers made by a test and closed after it: `listen(handler)` answers every request with 200 and
// what the handler returns for the request and its body.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export type Handler = (request: IncomingMessage, body: string) => Buffer | string;

/** Call at the top of a test file: the servers each test starts are closed after it. */
export function serversPerTest(): (handler: Handler) => Promise<string> {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
  });
  return async (handler) => {
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => response.writeHead(200).end(handler(request, body)));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
}
