// A loopback port free at the moment of asking, for servers that must be told their port up front
// (nginx, PostgreSQL, MariaDB, a `ratefile start` restarted on the same port).
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
