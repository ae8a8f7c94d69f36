// A webhook receiver on loopback for alert tests: it keeps every body it is sent, in order.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One event of an alert webhook's body. */
export interface AlertEvent {
  kind: string;
  key: string;
  text: string;
}

export interface Webhook {
  /** Where to send: the config's `alerts.webhook.url`. */
  url: string;
  /** Every request body received, in order. */
  bodies: string[];
  /** Every alert event received, in order. */
  alerts(): AlertEvent[];
  /** The alert events received, as `kind key`, keeping those whose key starts with `prefix`. */
  events(prefix?: string): string[];
  close(): Promise<void>;
}

export async function webhook(): Promise<Webhook> {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      bodies.push(body);
      response.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const alerts = () => bodies.flatMap((body) => (JSON.parse(body) as { events: AlertEvent[] }).events);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    bodies,
    alerts,
    events: (prefix = '') =>
      alerts()
        .filter((e) => e.key.startsWith(prefix))
        .map((e) => `${e.kind} ${e.key}`),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
