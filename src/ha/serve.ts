// What the server of a standby answers: every export path 503 (its files may be stale; a load balancer sends
// readers to the leader), and /healthz 503 with `role: "standby"`, so a health-checked pool holds only the leader.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Status } from '../report.js';

/** True while this instance is not the `ha:` lock's holder (before its first build too). */
export const isStandby = (status: Status | undefined): boolean => status?.ha?.role !== 'leader';

/** The answer for a path of the export folder while standby; undefined: serve it as usual. */
export function standbyRefusal(status: () => Status | undefined) {
  return (_path: string) => {
    const now = status();
    if (!isStandby(now)) return undefined;
    return (_request: IncomingMessage, response: ServerResponse) => {
      const holder = now?.ha?.holder;
      response.writeHead(503, {
        'Content-Type': 'application/json; charset=utf-8',
        'Cache-Control': 'no-store',
        'Retry-After': '5',
      });
      response.end(
        `${JSON.stringify({ role: 'standby', ...(holder === undefined ? {} : { holder }), reason: now?.ha?.reason ?? 'no build yet' })}\n`,
      );
    };
  };
}
