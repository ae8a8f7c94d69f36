// One fetch as a monitor's robot makes it: node:http(s) with only the headers a plain client sends (no cookies, no
// browser headers), a new connection each time, gzip asked for, redirects followed by hand (each one recorded) up
// to a limit. Bounded: one timer for the whole fetch, redirects and body included (a server that trickles bytes
// is cut off), a cap on the body's size counted after decompression (a gzip bomb stops at the cap too).
import { hostAndPort } from '../../base/requests.js';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { networkFailure, type Fetched, type Hop } from '../../pure/probe/classify.js';

export interface FetchOptions {
  userAgent: string;
  /** Extra request headers (If-None-Match, If-Modified-Since). */
  headers?: Record<string, string>;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Aborted when the overall deadline passes: the fetch ends at once. */
  signal?: AbortSignal;
}

type Failure = NonNullable<Fetched['error']>;

class FetchFailure extends Error {
  constructor(readonly failure: Failure) {
    super(failure.message);
  }
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  wireBytes: number;
}

function headersOf(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

function decoderFor(encoding: string | undefined) {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/** One request in flight: how it settles (once, whatever comes after), and what has come of it so far. */
interface Exchange {
  req: ClientRequest;
  options: FetchOptions;
  cancel: AbortSignal;
  /** The listener on `cancel`, removed when the exchange settles. */
  stop: () => void;
  resolve: (answer: Answer) => void;
  reject: (reason: unknown) => void;
  settled: boolean;
  answered: IncomingMessage | undefined;
  decoder: Transform | undefined;
  wireBytes: number;
}

/** One request, no redirect followed; rejects with a FetchFailure, or with whatever `abort` was called with. */
function requestOnce(url: URL, options: FetchOptions, redirecting: boolean, cancel: AbortSignal): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // A deadline or timeout that passed between two hops: an abort event does not come twice.
    if (cancel.aborted) return reject(cancel.reason as FetchFailure);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'GET',
      agent: false,
      headers: {
        'User-Agent': options.userAgent,
        Accept: '*/*',
        'Accept-Encoding': 'gzip',
        Connection: 'close',
        ...options.headers,
      },
    });
    const exchange: Exchange = {
      req,
      options,
      cancel,
      stop: () => failWith(exchange, cancel.reason as FetchFailure),
      resolve,
      reject,
      settled: false,
      answered: undefined,
      decoder: undefined,
      wireBytes: 0,
    };
    cancel.addEventListener('abort', exchange.stop, { once: true });
    req.on('error', (error: NodeJS.ErrnoException) =>
      settle(exchange, () => reject(error instanceof FetchFailure ? error : networkError(error, url))),
    );
    req.on('close', () => closed(exchange));
    req.on('response', (response) => answer(exchange, response, redirecting));
    req.end();
  });
}

/** A network error in a few words, with the host and port it happened at (a redirect may have changed host). */
function networkError(error: NodeJS.ErrnoException, url: URL): FetchFailure {
  const failure = networkFailure(error.code, error.message);
  const host = hostAndPort(url);
  return new FetchFailure(
    failure.message.includes(host) ? failure : { ...failure, message: `${failure.message} (${host})` },
  );
}

function settle(exchange: Exchange, done: () => void): void {
  if (exchange.settled) return;
  exchange.settled = true;
  exchange.cancel.removeEventListener('abort', exchange.stop);
  done();
}

/** Settled here and now, whatever the connection and the decompressor still have in flight. */
function failWith(exchange: Exchange, failure: FetchFailure): void {
  settle(exchange, () => exchange.reject(failure));
  exchange.req.destroy();
  exchange.decoder?.destroy();
}

/** Whatever ends the connection without an error event, the promise still settles (a decompressed body ends later). */
function closed(exchange: Exchange): void {
  const { answered, wireBytes } = exchange;
  if (answered?.complete) return;
  settle(exchange, () =>
    exchange.reject(
      new FetchFailure({
        kind: 'connection-error',
        message: answered
          ? `the connection closed before the whole body came (${wireBytes} bytes)`
          : 'the connection closed before an answer came',
      }),
    ),
  );
}

/** The answer's head: a redirect settles at once, a declared body past the cap fails, any other body is read. */
function answer(exchange: Exchange, response: IncomingMessage, redirecting: boolean): void {
  exchange.answered = response;
  // Errors of the response follow a destroy of the request, which reports them: this only keeps them from being unhandled.
  response.on('error', () => {});
  const status = response.statusCode ?? 0;
  const headers = headersOf(response);
  // A redirect's body is not read: only where it points matters.
  if (redirecting && status >= 300 && status < 400 && headers.location) {
    response.resume();
    settle(exchange, () => exchange.resolve({ status, headers, body: new Uint8Array(), wireBytes: 0 }));
    exchange.req.destroy();
    return;
  }
  const { maxBytes } = exchange.options;
  const declared = Number(headers['content-length'] ?? Number.NaN);
  if (!headers['content-encoding'] && declared > maxBytes) {
    failWith(exchange, tooLarge(maxBytes, `Content-Length says ${declared}`));
    return;
  }
  readBody(exchange, response, status, headers);
}

/** The body, decompressed and counted against the cap as it comes; the wire's bytes counted too. */
function readBody(
  exchange: Exchange,
  response: IncomingMessage,
  status: number,
  headers: Record<string, string>,
): void {
  const { maxBytes } = exchange.options;
  // A 304, a 204 and a 1xx carry no body whatever Content-Encoding says (RFC 9110 §6.4.1): ratefile's own server
  // answers a conditional request with 304 and the encoding of the copy it would send. Nothing to decompress.
  const decoder = bodiless(status) ? undefined : decoderFor(headers['content-encoding']);
  exchange.decoder = decoder;
  const chunks: Buffer[] = [];
  let size = 0;
  response.on('data', (chunk: Buffer) => (exchange.wireBytes += chunk.length));
  const decoded = decoder ? response.pipe(decoder) : response;
  decoded.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) failWith(exchange, tooLarge(maxBytes, `more than ${maxBytes} bytes came`));
    else chunks.push(chunk);
  });
  decoder?.on('error', (error) =>
    // No byte at all came: an empty body (named as such), not a broken compressed one.
    exchange.wireBytes === 0 && response.complete
      ? settle(exchange, () => exchange.resolve({ status, headers, body: new Uint8Array(), wireBytes: 0 }))
      : failWith(
          exchange,
          new FetchFailure({
            kind: 'not-a-rate-file',
            message: `Content-Encoding ${headers['content-encoding']}, but the body does not decompress: ${error.message}`,
          }),
        ),
  );
  decoded.on('end', () => {
    if (!response.complete) return;
    settle(exchange, () =>
      exchange.resolve({ status, headers, body: Buffer.concat(chunks), wireBytes: exchange.wireBytes }),
    );
  });
}

/** Statuses that never carry a body (RFC 9110 §15.2, §15.3.5, §15.4.5). */
const bodiless = (status: number) => status < 200 || status === 204 || status === 304;

const tooLarge = (maxBytes: number, what: string) =>
  new FetchFailure({ kind: 'too-large', message: `${what}; the cap is ${maxBytes} bytes (--max-bytes)` });

/** Fetch `url` once, following redirects by hand; never throws: an error is part of what it returns. */
export async function fetchOnce(url: URL, options: FetchOptions): Promise<Fetched> {
  const started = performance.now();
  const redirects: Hop[] = [];
  const cancel = new AbortController();
  const elapsed = () => Math.round(performance.now() - started);
  const timer = setTimeout(
    () =>
      cancel.abort(
        new FetchFailure({ kind: 'timeout', message: `no complete answer within ${options.timeoutMs / 1000} s` }),
      ),
    options.timeoutMs,
  );
  const onDeadline = () =>
    cancel.abort(new FetchFailure({ kind: 'not-made', message: 'the overall deadline passed during this fetch' }));
  if (options.signal?.aborted) onDeadline();
  options.signal?.addEventListener('abort', onDeadline, { once: true });
  let current = url;
  try {
    for (;;) {
      const answer = await requestOnce(current, options, redirects.length < options.maxRedirects, cancel.signal);
      const location = answer.headers.location;
      if (answer.status >= 300 && answer.status < 400 && location && redirects.length < options.maxRedirects) {
        const next = URL.canParse(location, current.href) ? new URL(location, current) : undefined;
        if (!next)
          throw new FetchFailure({ kind: 'redirect', message: `HTTP ${answer.status} to an invalid Location` });
        redirects.push({ status: answer.status, location: next.href });
        if (next.protocol !== 'http:' && next.protocol !== 'https:')
          throw new FetchFailure({ kind: 'redirect', message: `a redirect to ${next.protocol} cannot be followed` });
        current = next;
        continue;
      }
      if (answer.status >= 300 && answer.status < 400 && location && options.maxRedirects > 0)
        throw new FetchFailure({ kind: 'redirect', message: `more than ${options.maxRedirects} redirects` });
      return { ms: elapsed(), redirects, ...answer };
    }
  } catch (error) {
    const failure =
      error instanceof FetchFailure
        ? error.failure
        : { kind: 'connection-error' as const, message: error instanceof Error ? error.message : String(error) };
    return { ms: elapsed(), redirects, error: failure };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onDeadline);
  }
}
