// `GET /quote?from=&to=&amount=[&city=][&export=]`: the signed quote of what an export publishes now, for the
// exchanger's engine at checkout. One of the pages (listeners.ts): on a loopback address or `server.private` only,
// never on an address others reach (there it is a 404 like any other path).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Archive } from '../../io/archive/archive.js';
import { signedQuote } from '../../io/archive/quote.js';
import type { Config } from '../../model/config.js';
import type { HaStatus, Status } from '../../pure/status/report.js';
import type { Route } from './server.js';

export interface QuoteRouteInput {
  archive: Archive | undefined;
  config: () => Config;
  status: () => Status | undefined;
  now: () => Date;
  ha?: () => HaStatus;
}

export function quoteRoute(input: QuoteRouteInput): Route {
  return async (request: IncomingMessage, response: ServerResponse) => {
    const answer = (code: number, body: unknown) => {
      response.writeHead(code, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
      response.end(`${JSON.stringify(body, null, 2)}\n`);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return answer(405, { refused: 'GET only' });
    const { archive } = input;
    if (!archive)
      return answer(503, { refused: 'the archive is off (archive.enabled: false): a quote names its record' });
    const query = new URL(request.url ?? '/', 'http://quote').searchParams;
    const text = (name: string) => query.get(name) ?? undefined;
    const exportFile = text('export');
    const city = text('city');
    const result = await signedQuote({
      config: input.config(),
      request: {
        from: text('from') ?? '',
        to: text('to') ?? '',
        amount: text('amount') ?? '',
        ...(city === undefined ? {} : { city }),
        ...(exportFile === undefined ? {} : { export: exportFile }),
      },
      last: archive.recorder.state().last,
      bytes: (file) => archive.recorder.current(file),
      key: archive.key,
      status: input.status(),
      now: input.now(),
      ...(input.ha ? { role: input.ha().role } : {}),
    });
    if ('quote' in result) answer(200, result.quote);
    else answer(result.status, { refused: result.refused });
  };
}
