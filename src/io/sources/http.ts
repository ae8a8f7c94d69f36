// HTTP for sources: base URL (config or RATEFILE_<TYPE>_URL), timeout, bounded retries with backoff that honour
// Retry-After (capped at 10 minutes), a size cap, HTML and non-JSON detection, and errors naming the source, the URL path and the problem
// (a network failure also the host and port). Every request carries the config's User-Agent (`ratefile/<version>`).
import { RatefileError } from '../../base/errors.js';
import { hostAndPort } from '../../base/requests.js';
import type { SourceContext } from '../../model/source.js';
import { defaultRetries, defaultTimeoutMs } from '../../pure/sources/options.js';
import { cappedNote, maxInlineWaitMs, maxRetryAfterMs, retryAfterMs } from '../../pure/sources/retry-after.js';
import { JsonBoundsError, JsonBoundsScan } from '../../pure/sources/json-bounds.js';
import { isRecord, parseSourceJson } from '../../pure/sources/values.js';
import {
  htmlPage,
  looksLikeHtml,
  opensWithMarkup,
  snippet,
  statusBody,
  utf8,
  type EnvelopeProblem,
} from '../../pure/sources/http-answer.js';

export { maxInlineWaitMs, maxRetryAfterMs, retryAfterMs };
export { looksLikeHtml, snippet, type EnvelopeProblem };

/** A source failure; `transient` ones are retried; `retryAfterMs` says how long the source asked not to be called. */
export class SourceError extends RatefileError {
  readonly status: number | undefined;
  readonly body: unknown;
  readonly retryAfterMs: number | undefined;
  readonly transient: boolean;

  constructor(
    message: string,
    extra: {
      status?: number | undefined;
      body?: unknown;
      retryAfterMs?: number | undefined;
      transient?: boolean;
      cause?: unknown;
    } = {},
  ) {
    super('E_SOURCE', message, extra.cause === undefined ? {} : { cause: extra.cause });
    this.status = extra.status;
    this.body = extra.body;
    this.retryAfterMs = extra.retryAfterMs;
    this.transient = extra.transient ?? false;
  }
}

export interface HttpOptions {
  baseUrl?: string | undefined;
  timeout?: number | undefined;
  retries?: number | undefined;
}

export interface HttpTarget {
  baseUrl: string;
  timeoutMs: number;
  retries: number;
}

/** The environment variable that overrides a source type's base URL: `RATEFILE_BINANCE_URL`. */
export const baseUrlVariable = (type: string) => `RATEFILE_${type.toUpperCase()}_URL`;

/** Where a source's requests go: RATEFILE_<TYPE>_URL, else the config's `baseUrl`, else the API's own. */
export function httpTarget(
  type: string,
  defaultBaseUrl: string,
  options: HttpOptions,
  context: SourceContext,
): HttpTarget {
  const variable = baseUrlVariable(type);
  const fromEnv = context.env[variable];
  if (fromEnv !== undefined && fromEnv !== '' && !/^https?:\/\/[^/]/i.test(fromEnv)) {
    throw new SourceError(
      `${context.name}: ${variable}: expected an http(s) URL like "http://127.0.0.1:9999", got ${JSON.stringify(fromEnv)}`,
    );
  }
  return {
    baseUrl: fromEnv || options.baseUrl || defaultBaseUrl,
    timeoutMs: options.timeout ?? defaultTimeoutMs,
    retries: options.retries ?? defaultRetries,
  };
}

export interface RequestSpec {
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** The API's error envelope, checked on every response, successful or not. */
  envelope?: (body: unknown) => EnvelopeProblem | undefined;
  /** A conditional request (If-None-Match / If-Modified-Since): a 304 goes to `read`, not an error. */
  conditional?: boolean;
  /** How messages name the request instead of `GET <path>`: a path that holds a key (BestChange v2) never shows. */
  label?: string;
  /** A JSON answer: its nesting and values are bounded as it arrives (`JsonBoundsScan`). */
  json?: boolean;
  /** A JSON request body: the request is a POST carrying it (`content-type: application/json`), else a GET. */
  body?: unknown;
}

export interface Fetched {
  /** `GET /api/v3/ticker/bookTicker`: how messages name the request (never the query, which may hold a key). */
  where: string;
  status: number;
  contentType: string;
  bytes: Uint8Array;
  /** The response's headers (ETag, Last-Modified for conditional requests). */
  headers: Headers;
}

const maxBytes = 10 * 1024 * 1024;
const backoffMs = (attempt: number) => 250 * 2 ** attempt;

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The body, at most `maxBytes`; a JSON body (`scan`) is checked against its bounds chunk by chunk as it arrives, so
 * a hostile one is dropped at its first chunk past them, never read whole, decoded or parsed.
 */
async function readCapped(
  response: Response,
  where: string,
  context: SourceContext,
  scan?: JsonBoundsScan,
): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes)
    throw new SourceError(
      `${context.name}: ${where}: response of ${declared} bytes is larger than the ${maxBytes} allowed`,
    );
  if (!response.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new SourceError(`${context.name}: ${where}: response is larger than the ${maxBytes} bytes allowed`);
    }
    // A body that opens like markup is no JSON to bound: getJson names the HTML page it is.
    if (scan && size === value.byteLength && opensWithMarkup(value)) scan = undefined;
    try {
      scan?.feed(value);
    } catch (error) {
      if (!(error instanceof JsonBoundsError)) throw error;
      await reader.cancel();
      throw new SourceError(`${context.name}: ${where}: refused before parsing: ${error.message}`, { cause: error });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function urlFor(target: HttpTarget, spec: RequestSpec): URL {
  const url = new URL(target.baseUrl.replace(/\/+$/, '') + spec.path);
  for (const [key, value] of Object.entries(spec.query ?? {})) url.searchParams.set(key, value);
  return url;
}

const transientStatus = (status: number) => status === 408 || status === 429 || status >= 500;

type ErrorExtra = ConstructorParameters<typeof SourceError>[1];

/**
 * GET with the target's timeout and bounded retries, then `read` the response (which throws SourceError,
 * transient or not). Retried: network errors, timeouts, 408, 429, 5xx and transient envelope problems, after
 * a backoff (250 ms, 500 ms, …) or the Retry-After the server asked for, if that is at most 5 s; a longer
 * Retry-After ends the attempts at once and is passed on (at most `maxRetryAfterMs`), so the caller does not ask
 * again before it.
 */
export async function fetchWithRetries<T>(
  context: SourceContext,
  target: HttpTarget,
  spec: RequestSpec,
  read: (fetched: Fetched) => T,
): Promise<T> {
  const url = urlFor(target, spec);
  const method = spec.body === undefined ? 'GET' : 'POST';
  const where = spec.label ?? `${method} ${url.pathname}`;
  const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
  const sent = body === undefined ? {} : { 'content-type': 'application/json' };
  const sleep = context.sleep ?? defaultSleep;
  const fail = (problem: string, extra: ErrorExtra = {}) =>
    new SourceError(`${context.name}: ${where}: ${problem}`, extra);
  let last: SourceError | undefined;
  let delay = 0;
  for (let attempt = 0; attempt <= target.retries; attempt++) {
    if (attempt > 0) await sleep(delay, context.signal);
    const timeout = AbortSignal.timeout(target.timeoutMs);
    const signal = AbortSignal.any([context.signal, timeout]);
    try {
      const response = await context.fetch(url, {
        method,
        headers: {
          accept: 'application/json, application/xml;q=0.9, */*;q=0.5',
          'user-agent': context.userAgent,
          ...sent,
          ...spec.headers,
        },
        ...(body === undefined ? {} : { body }),
        signal,
      });
      const bytes = await readCapped(response, where, context, spec.json ? new JsonBoundsScan() : undefined);
      const contentType = response.headers.get('content-type') ?? '';
      if (!response.ok && !(response.status === 304 && spec.conditional)) {
        const { body, what } = statusBody(bytes, contentType, spec.envelope);
        const asked = retryAfterMs(response.headers.get('retry-after'), context.now().getTime());
        const capped = asked === undefined ? '' : asked > maxRetryAfterMs ? cappedNote(asked) : '';
        const pause = asked === undefined ? undefined : Math.min(asked, maxRetryAfterMs);
        const statusText = response.statusText ? ` ${response.statusText}` : '';
        throw fail(`HTTP ${response.status}${statusText}: ${what}${capped}`, {
          status: response.status,
          body,
          retryAfterMs: pause,
          transient: transientStatus(response.status) && (pause === undefined || pause <= maxInlineWaitMs),
        });
      }
      return read({ where, status: response.status, contentType, bytes, headers: response.headers });
    } catch (error) {
      if (error instanceof SourceError) {
        if (!error.transient) throw error;
        last = error;
      } else if (context.signal.aborted) {
        throw fail('aborted', { cause: error });
      } else {
        // The host and port too: a path alone does not say which of several hosts (a mirror, a proxy) failed.
        last = timeout.aborted
          ? fail(`timed out after ${target.timeoutMs} ms waiting for ${hostAndPort(url)}`, {
              cause: error,
              transient: true,
            })
          : fail(`request to ${hostAndPort(url)} failed: ${describeCause(error)}`, { cause: error, transient: true });
      }
      delay = Math.max(backoffMs(attempt), last.retryAfterMs ?? 0);
    }
  }
  const attempts = target.retries + 1;
  if (!last) throw fail('no attempt made');
  if (attempts === 1) throw last;
  throw new SourceError(`${last.message} (${attempts} attempts)`, {
    status: last.status,
    body: last.body,
    retryAfterMs: last.retryAfterMs,
    cause: last,
  });
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  const code = isRecord(cause) && typeof cause.code === 'string' ? cause.code : undefined;
  const detail = cause instanceof Error && cause.message !== error.message ? `: ${cause.message}` : '';
  return code ? `${error.message} (${code})` : `${error.message}${detail}`;
}

/**
 * GET a JSON document (a POST when `spec.body` is given: a search API such as a P2P venue's): refuses an HTML page and a body that is not JSON, and applies the API's envelope to
 * a successful response too (Bybit and Kraken report errors with HTTP 200). Numbers arrive as decimal text.
 */
export function getJson(
  context: SourceContext,
  target: HttpTarget,
  spec: RequestSpec,
): Promise<{ where: string; body: unknown }> {
  return fetchWithRetries(context, target, { ...spec, json: true }, (fetched) => {
    const text = utf8.decode(fetched.bytes);
    const fail = (problem: string, extra: ErrorExtra = {}) =>
      new SourceError(`${context.name}: ${fetched.where}: ${problem}`, extra);
    if (looksLikeHtml(fetched.contentType, text))
      throw fail(
        `got ${htmlPage(text)} instead of JSON (HTTP ${fetched.status}, ${fetched.contentType || 'no content type'})`,
      );
    if (text.trim() === '') throw fail(`got an empty body instead of JSON (HTTP ${fetched.status})`);
    let body: unknown;
    try {
      body = parseSourceJson(text);
    } catch (cause) {
      if (cause instanceof JsonBoundsError) throw fail(`refused before parsing: ${cause.message}`, { cause });
      throw fail(`not valid JSON (${(cause as Error).message}): ${snippet(text)}`, { cause });
    }
    const problem = spec.envelope?.(body);
    if (problem) throw fail(problem.message, { status: fetched.status, body, transient: problem.transient ?? false });
    return { where: fetched.where, body };
  });
}

/** POST `body` as JSON and read the JSON answer, with everything `getJson` checks (P2P searches take their filters so). */
export function postJson(
  context: SourceContext,
  target: HttpTarget,
  spec: RequestSpec & { body: unknown },
): Promise<{ where: string; body: unknown }> {
  return getJson(context, target, spec);
}
