// The dashboard's routes: `/` (HTML, complete without script), `/dashboard.json` (the same view model; `?part=head`
// for the headline alone) and `/dashboard.js`. Read-only (the server answers GET and HEAD only), no-cache, strict CSP.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { escapeControls } from '../../base/errors.js';
import { mapStrings } from '../../base/secrets.js';
import { chooseEncoding, type Route } from '../server/server.js';
import { clientScript } from './client.js';
import { dashboardHead, dashboardModel, type DashboardInput, type Filter } from './model.js';
import { renderDashboard } from './page.js';
import type { ArchivePoint } from './archive-view.js';

const common = {
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};
/** The page's own script and its JSON, nothing from elsewhere; inline styles as before; forms only to `/`. */
const pagePolicy =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const dataPolicy = "default-src 'none'; frame-ancestors 'none'";

const compress = {
  // Brotli at a middle quality: at 11 a 350 KB page takes a tenth of a second of the one thread builds run on.
  br: (body: Buffer) =>
    promisify(brotliCompress)(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  gzip: (body: Buffer) => promisify(gzip)(body, { level: 6 }),
};

/** Below this a compressed answer saves less than its headers cost. */
const COMPRESS_FROM = 1024;

/**
 * The answer, compressed when the client accepts it (brotli, then gzip: `chooseEncoding`, as for the exports), made
 * per request (the page changes with every build and query) off the event loop's thread; identity otherwise.
 */
async function send(
  request: IncomingMessage,
  response: ServerResponse,
  type: string,
  policy: string,
  text: string,
): Promise<void> {
  const plain = Buffer.from(text, 'utf8');
  const encoding = plain.length >= COMPRESS_FROM ? chooseEncoding(request.headers['accept-encoding']) : undefined;
  const body = encoding ? await compress[encoding](plain) : plain;
  response.writeHead(200, {
    ...common,
    'Content-Type': type,
    'Content-Security-Policy': policy,
    Vary: 'Accept-Encoding',
    ...(encoding ? { 'Content-Encoding': encoding } : {}),
    'Content-Length': String(body.length),
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** The paging a query asks for (`?sort=rate&order=desc&page=2`), as text; paging.ts bounds it. */
type PagingQuery = NonNullable<DashboardInput['paging']>;

/** The query's filters (`?currency=BTC&state=withheld&export=reffile.xml&q=msk`) and paging; anything else is ignored. */
export function queryOf(url: string | undefined): {
  filter: Partial<Filter>;
  paging: PagingQuery;
  part?: string;
  archive?: string;
} {
  const at = (url ?? '').indexOf('?');
  const params = new URLSearchParams(at === -1 ? '' : (url ?? '').slice(at + 1));
  const filter: Partial<Filter> = {};
  for (const key of ['currency', 'state', 'export', 'q'] as const) {
    const value = params.get(key);
    if (value !== null) filter[key] = value;
  }
  const paging: PagingQuery = {};
  for (const key of ['sort', 'order', 'page'] as const) {
    const value = params.get(key);
    if (value !== null) paging[key] = value.slice(0, 20);
  }
  const part = params.get('part');
  // A direction id (`BTC>SBERRUB`) whose rate over the archive's window is drawn.
  const archive = params.get('archive')?.trim().toUpperCase().slice(0, 41);
  return {
    filter,
    paging,
    ...(part === null ? {} : { part }),
    ...(archive && /^[A-Z0-9]+>[A-Z0-9]+$/.test(archive) ? { archive } : {}),
  };
}

/**
 * Every text of a view with its control characters made visible (`\u001b`), as `status` and `probe` show them: a
 * monitor's user agent (the access log's `\xHH` become bytes) or a hand-edited pause reason may hold ESC, BEL, C1 or
 * U+202E, which must neither reach the page nor the JSON the page's script renders.
 */
export const visible = <T>(view: T): T => mapStrings(view, escapeControls);

/** A direction's points over the archive's window, read when a page asks for them. */
export type ArchiveSeries = (id: string) => Promise<ArchivePoint[]>;

/** `state` is read at each request, so every answer shows the latest build. */
export function dashboardRoutes(
  state: () => Omit<DashboardInput, 'filter'>,
  series?: ArchiveSeries,
): Record<string, Route> {
  const withSeries = async (id: string | undefined) => {
    if (!id || !series) return {};
    return { archiveSeries: { id, points: await series(id).catch(() => []) } };
  };
  return {
    '/': async (request, response) => {
      const { filter, paging, archive } = queryOf(request.url);
      const view = visible(dashboardModel({ ...state(), filter, paging, ...(await withSeries(archive)) }));
      await send(request, response, 'text/html; charset=utf-8', pagePolicy, renderDashboard(view));
    },
    '/dashboard.json': async (request, response) => {
      const { filter, paging, part, archive } = queryOf(request.url);
      const extra = await withSeries(archive);
      const view = visible(
        part === 'head' ? dashboardHead(state()) : dashboardModel({ ...state(), filter, paging, ...extra }),
      );
      await send(request, response, 'application/json; charset=utf-8', dataPolicy, `${JSON.stringify(view)}\n`);
    },
    '/dashboard.js': async (request, response) =>
      await send(request, response, 'text/javascript; charset=utf-8', dataPolicy, clientScript),
  };
}
