// The server route for `/`: the preview page of the latest build, as text/html that runs no script and loads nothing.
import type { Route } from '../server.js';
import { renderPreview, type PreviewState } from './page.js';

export type { PreviewState } from './page.js';

const headers = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
};

/** `state` is read at each request, so the page always shows the latest build. */
export function previewRoute(state: () => PreviewState): Route {
  return (request, response) => {
    const body = Buffer.from(renderPreview(state()), 'utf8');
    response.writeHead(200, { ...headers, 'Content-Length': String(body.length) });
    response.end(request.method === 'HEAD' ? undefined : body);
  };
}
