// One fetch of `ratefile probe` judged as a monitor would: a readable rate file of the expected format, or which kind of
// failure it is, each named. Pure: the fetched facts in (src/io/probe/fetch.ts makes them), a verdict out; the body is
// checked with the project's own checker (`checkExport`, the rules of `ratefile check`), and the time it took with the
// monitors' own timeouts (`monitorTimeouts`): a good file that comes too late is lost to the monitor all the same.
import { createHash } from 'node:crypto';
import type { MonitorFormat } from '../../model/formats.js';
import type { MonitorProfile } from '../../model/monitor-profile.js';
import { checkExport } from '../check/index.js';
import { recognisePage, type PageKind } from './pages.js';
import { ratesOf } from './rates.js';

export type RateFormat = 'classic' | 'eref' | 'json';

export const formatNames: Record<RateFormat, string> = { classic: 'classic XML', eref: 'EREF 1.1', json: 'JSON' };

export type FailureKind =
  | PageKind
  | 'empty-body'
  | 'redirect'
  | 'timeout'
  | 'connection-error'
  | 'tls-error'
  | 'http-status'
  | 'too-large'
  | 'not-a-rate-file'
  | 'wrong-format'
  | 'invalid-rate-file'
  | 'too-slow'
  | 'refused-type'
  | 'stale-copy'
  | 'not-made';

/** Each kind as the report names it. */
export const failureNames: Record<FailureKind, string> = {
  'cloudflare-challenge': 'Cloudflare challenge ("Just a moment...")',
  'antibot-page': 'JavaScript anti-bot page',
  'redirect-page': 'redirect page',
  'engine-error': 'engine error or maintenance page',
  html: 'HTML page',
  'empty-body': 'empty body',
  redirect: 'redirect',
  timeout: 'timeout',
  'connection-error': 'connection error',
  'tls-error': 'TLS error',
  'http-status': 'non-200 status',
  'too-large': 'body over the size cap',
  'not-a-rate-file': 'not a rate file',
  'wrong-format': 'rate file of another format',
  'invalid-rate-file': 'rate file with errors',
  'too-slow': "slower than a monitor's timeout",
  'refused-type': 'a Content-Type a monitor refuses',
  'stale-copy': 'a cached copy older than one build',
  'not-made': 'not made (overall deadline)',
};

/** How long one monitor waits for a whole answer, body included, before it gives up on the fetch. */
export interface MonitorTimeout {
  /** The monitor as people know it. */
  readonly monitor: string;
  readonly ms: number;
  /** Where the figure is read: repository@commit:path, and what sets it. */
  readonly source: string;
}

/**
 * The monitors' timeouts read from their public code (no monitor publishes one). A fetch slower than one of these
 * is a fetch that monitor gives up on, however good the file: `ratefile probe` judges every fetch against them.
 */
export const monitorTimeouts: readonly MonitorTimeout[] = [
  {
    monitor: 'MoneySwap',
    ms: 5000,
    source:
      'tApps-team/moneyswap_back@5bce1fdbf183dc0b55408c77d1fd8b1ee460a4dc:django_fastapi/general_models/utils/periodic_tasks.py, request_to_xml_file: DEFAULT_TIMEOUT = 5, aiohttp.ClientTimeout(total=…), the whole request',
  },
  {
    monitor: 'go-para',
    ms: 3600,
    source:
      'ali96343/go-para@d03ab4125cff1c434d7caf6003707a1a9d777a2f:scan.go, downloadFromUrl: http.Client{Timeout: sec_wait*900 ms} with my1task(4), the whole request',
  },
];

/** A timeout as people read it: 3600 → "3.6 s". */
export const timeoutWords = (ms: number): string => `${ms / 1000} s`;

/** The monitors that give up on a fetch this slow, as "took 4012 ms: go-para gives up after 3.6 s"; none: undefined. */
export function slowFor(
  ms: number,
  timeouts: readonly MonitorTimeout[],
): { monitors: string[]; detail: string } | undefined {
  const gaveUp = timeouts.filter((timeout) => ms > timeout.ms);
  if (gaveUp.length === 0) return undefined;
  const words = gaveUp.map(
    (timeout, i) => `${timeout.monitor}${i === 0 ? ' gives up' : ''} after ${timeoutWords(timeout.ms)}`,
  );
  return { monitors: gaveUp.map((timeout) => timeout.monitor), detail: `took ${ms} ms: ${words.join(', ')}` };
}

/** The Content-Type one monitor's robot accepts for the formats it reads (its profile's `contentType`). */
export interface ContentTypeRule {
  /** The monitor as people know it. */
  readonly monitor: string;
  /** Matched from the start of the header, as the monitor matches it. */
  readonly pattern: string;
  readonly formats: readonly RateFormat[];
}

const rateFormatOf: Record<MonitorFormat, RateFormat> = { classic: 'classic', 'eref-1.1': 'eref', json: 'json' };

/** The Content-Type rules of the monitor profiles (data/monitors/): the monitors that test the header. */
export const contentTypeRules = (profiles: Iterable<MonitorProfile>): ContentTypeRule[] =>
  [...profiles].flatMap((profile) =>
    profile.contentType === undefined
      ? []
      : [
          {
            monitor: profile.title,
            pattern: profile.contentType,
            formats: profile.formats.map((format) => rateFormatOf[format]),
          },
        ],
  );

/**
 * The monitors that refuse a rate file of this format for its Content-Type (none sent counts as refused: the robot
 * finds no header to test), as "Content-Type text/html: MoneySwap refuses it"; none: undefined.
 */
export function refusedType(
  contentType: string | undefined,
  format: RateFormat,
  rules: readonly ContentTypeRule[],
): { monitors: string[]; detail: string } | undefined {
  const refusing = rules.filter(
    (rule) => rule.formats.includes(format) && !new RegExp(rule.pattern).test(contentType ?? ''),
  );
  if (refusing.length === 0) return undefined;
  const monitors = [...new Set(refusing.map((rule) => rule.monitor))];
  const sent = contentType === undefined ? 'no Content-Type' : `Content-Type ${contentType}`;
  return {
    monitors,
    detail: `${sent}: ${monitors.join(', ')} ${monitors.length === 1 ? 'refuses' : 'refuse'} it before reading the body (${refusing.map((rule) => `/${rule.pattern}/`).join(', ')} expected)`,
  };
}

/** A redirect followed on the way: its status and where it pointed. */
export interface Hop {
  status: number;
  location: string;
}

/** What one fetch brought back (src/io/probe/fetch.ts): an answer, or an error before a whole answer came. */
export interface Fetched {
  /** Milliseconds from the request to the end of the body (or the error). */
  ms: number;
  redirects: Hop[];
  status?: number;
  /** Response headers, names in lower case (several values joined by ", "). */
  headers?: Record<string, string>;
  /** The body, decompressed. */
  body?: Uint8Array;
  /** Bytes on the wire (compressed, when the server compressed). */
  wireBytes?: number;
  error?: {
    kind: Extract<
      FailureKind,
      'timeout' | 'connection-error' | 'tls-error' | 'too-large' | 'redirect' | 'not-made' | 'not-a-rate-file'
    >;
    message: string;
  };
}

export interface Verdict {
  /** A rate file a monitor reads (the check finds no error) in the expected format, or a 304 to a conditional request. */
  readable: boolean;
  notModified?: boolean;
  format?: RateFormat;
  items?: number;
  /** Errors and warnings `ratefile check` finds in the body. */
  errors?: number;
  warnings?: number;
  failure?: { kind: FailureKind; detail: string };
  /** The monitors that give up on a fetch this slow (`too-slow`): what came was fine, but too late for them. */
  gaveUp?: string[];
  /** Short digests of the body and of its rates (from, to, in, out, city of each item), to tell fetches apart. */
  bodyDigest?: string;
  ratesDigest?: string;
}

/** The short digest of a body or of its rates (16 hex digits of SHA-256): what tells two fetches, or a fetch and the local file, apart. */
export const digest = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex').slice(0, 16);

/** The format of a body by its content, as the checker tells them apart: JSON starts with `{`, EREF 1.1 items carry its limits. */
export function formatOf(text: string): RateFormat | undefined {
  if (/^\s*\{/.test(text)) return /"exchange"\s*:/.test(text) ? 'json' : undefined;
  if (!/^\s*(<\?xml[^>]*\?>\s*)?(<!--[^]*?-->\s*)*<rates[\s>/]/.test(text)) return undefined;
  const start = text.indexOf('<item');
  const end = text.indexOf('</item>', start);
  const item = start === -1 ? '' : text.slice(start, end === -1 ? undefined : end);
  return /<(frommin|frommax|tomin|tomax|step)[\s>/]/.test(item) ? 'eref' : 'classic';
}

const fail = (kind: FailureKind, detail: string, extra: Partial<Verdict> = {}): Verdict => ({
  readable: false,
  ...extra,
  failure: { kind, detail },
});

/**
 * Judge one fetch. `expected`: the format the monitor reads (`--format`), else any of the three. `conditional`: the
 * request carried a validator, so a 304 is the right answer. A readable answer whose Content-Type a monitor refuses
 * (`contentTypes`, from the profiles) is `refused-type`, one slower than a monitor's timeout `too-slow`: that monitor
 * never reads it.
 */
export function judgeFetch(
  fetched: Fetched,
  expected?: RateFormat,
  conditional = false,
  timeouts: readonly MonitorTimeout[] = monitorTimeouts,
  contentTypes: readonly ContentTypeRule[] = [],
): Verdict {
  const verdict = judgeAnswer(fetched, expected, conditional);
  const refused =
    verdict.readable && verdict.format !== undefined
      ? refusedType(fetched.headers?.['content-type'], verdict.format, contentTypes)
      : undefined;
  if (refused)
    return {
      ...verdict,
      readable: false,
      failure: { kind: 'refused-type', detail: refused.detail },
    };
  const slow = verdict.readable ? slowFor(fetched.ms, timeouts) : undefined;
  if (!slow) return verdict;
  return { ...verdict, readable: false, failure: { kind: 'too-slow', detail: slow.detail }, gaveUp: slow.monitors };
}

/** A rate file (or a 304) came, whether in time, with a type every monitor takes, or not: its facts (format, items, validators) hold. */
export const cameWhole = (verdict: Verdict): boolean =>
  verdict.readable || verdict.failure?.kind === 'too-slow' || verdict.failure?.kind === 'refused-type';

function judgeAnswer(fetched: Fetched, expected: RateFormat | undefined, conditional: boolean): Verdict {
  if (fetched.error) return fail(fetched.error.kind, fetched.error.message);
  const status = fetched.status ?? 0;
  const headers = fetched.headers ?? {};
  if (status === 304 && conditional) return { readable: true, notModified: true };
  const body = fetched.body ?? new Uint8Array();
  const text = Buffer.from(body.subarray(0, 262_144)).toString('utf8');
  const page = recognisePage({
    text,
    ...(headers['cf-mitigated'] ? { cfMitigated: headers['cf-mitigated'] } : {}),
    ...(headers.server ? { server: headers.server } : {}),
  });
  const statusLine = `HTTP ${status}`;
  if (status >= 300 && status < 400 && headers.location)
    return fail('redirect', `${statusLine} to ${headers.location}, not followed`);
  if (status !== 200) {
    // A challenge or a maintenance page says more than its status (Cloudflare answers challenges with 403).
    if (page && page.kind !== 'html') return fail(page.kind, `${statusLine}, ${page.detail}`);
    return fail('http-status', `${statusLine}${page ? `, ${page.detail}` : ''}`);
  }
  if (text.trim() === '')
    return fail('empty-body', body.length === 0 ? '0 bytes' : `${body.length} bytes of white space`);
  const bodyDigest = digest(body);
  const format = formatOf(text);
  if (format === undefined) {
    if (page) return fail(page.kind, page.detail, { bodyDigest });
    return fail('not-a-rate-file', `starts with ${JSON.stringify(text.trim().slice(0, 40))}`, { bodyDigest });
  }
  const result = checkExport(body, 'probe');
  const errors = result.findings.filter((finding) => finding.severity === 'error');
  const counts = {
    format,
    bodyDigest,
    ratesDigest: digest(ratesOf(text, format)),
    errors: errors.length,
    warnings: result.findings.length - errors.length,
    ...(result.items === undefined ? {} : { items: result.items }),
  };
  if (errors.length > 0) {
    const firstError = errors[0]!;
    const where = firstError.line === undefined ? '' : `line ${firstError.line}: `;
    return fail('invalid-rate-file', `${errors.length} error(s), the first: ${where}${firstError.message}`, counts);
  }
  if (expected !== undefined && format !== expected)
    return fail('wrong-format', `${formatNames[format]}, not ${formatNames[expected]}`, counts);
  return { readable: true, ...counts };
}

/** A network error's code and message (Node's), as a failure kind and a few words. */
export function networkFailure(
  code: string | undefined,
  message: string,
): { kind: 'timeout' | 'connection-error' | 'tls-error'; message: string } {
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset by the server',
    ENOTFOUND: 'no such host (DNS)',
    EAI_AGAIN: 'the DNS lookup failed (temporary)',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    EPIPE: 'the connection was closed while sending',
  };
  if (
    /^(ERR_TLS_|ERR_SSL_|ERR_OSSL|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/.test(code ?? '') ||
    /\b(SSL|TLS)\b|certificate/i.test(message)
  ) {
    // OpenSSL's line (`…:SSL routines:ssl3_get_record:wrong version number:../deps/…`): its reason is what people read.
    const reason = /SSL routines:[^:]*:([^:\n]+)/.exec(message)?.[1];
    const words = reason ? `the TLS handshake failed: ${reason}` : message.split('\n')[0]!.trim();
    return { kind: 'tls-error', message: code ? `${code}: ${words}` : words };
  }
  if (code === 'ETIMEDOUT') return { kind: 'timeout', message: 'the connection timed out' };
  return { kind: 'connection-error', message: (code && known[code]) ?? (code ? `${code}: ${message}` : message) };
}
