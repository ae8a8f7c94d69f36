// What the server of a standby answers: every export path 503 (its files may be stale; a load balancer sends
// readers to the leader), and /healthz 503 with `role: "standby"`, so a health-checked pool holds only the leader.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HaStatus } from '../../pure/status/report.js';

/**
 * The answer for a path of the export folder while standby; undefined: serve it as usual. `role` is read at each
 * request (the standby logic's own view), so a leader that loses the lock stops serving at once, not at its next build.
 */
export function standbyRefusal(role: () => HaStatus, bare = false) {
  return (_path: string) => {
    const now = role();
    if (now.role === 'leader') return undefined;
    return (_request: IncomingMessage, response: ServerResponse) => {
      const { holder } = now;
      response.writeHead(503, {
        'Content-Type': 'application/json; charset=utf-8',
        'Cache-Control': 'no-store',
        'Retry-After': '5',
      });
      // `bare`: on an address others reach (src/service/server/listeners.ts), no instance names and no reason (it may name the lock's host).
      response.end(
        `${JSON.stringify(bare ? { role: 'standby' } : { role: 'standby', ...(holder === undefined ? {} : { holder }), reason: now.reason ?? 'not the holder' })}\n`,
      );
    };
  };
}
