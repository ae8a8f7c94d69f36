// A loopback TCP proxy that can stop forwarding without closing anything: what a leader sees when the network
// path to its database stalls (a cable pulled, a firewall dropping packets) rather than failing loudly.
import { createServer, Socket, type Server } from 'node:net';

export interface StallProxy {
  port: number;
  /** From now on nothing passes either way, and new connections are accepted but never forwarded. */
  stall(): void;
  close(): Promise<void>;
}

export async function startStallProxy(targetPort: number): Promise<StallProxy> {
  let stalled = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    client.on('close', () => sockets.delete(client));
    if (stalled) return client.pause();
    const upstream = new Socket();
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => sockets.delete(upstream));
    client.on('close', () => {
      if (!stalled) upstream.destroy();
    });
    upstream.connect(targetPort, '127.0.0.1');
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (!stalled) to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    stall: () => {
      stalled = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
