// What `ratefile probe` found, as data: one record per fetch and a summary (counts of each failure kind, times, sizes,
// ETag/Last-Modified and the answers to conditional requests, whether the rates differed). Pure: the fetches in, figures
// out; `--json` prints this, src/probe/report.ts words it.
import {
  failureNames,
  formatNames,
  judgeFetch,
  type FailureKind,
  type Fetched,
  type Hop,
  type RateFormat,
  type Verdict,
} from './classify.js';

export type ValidatorHeader = 'If-None-Match' | 'If-Modified-Since';

/** One fetch as reported. `index` counts from 1; the conditional fetches come after the plain ones. */
export interface ProbeFetch extends Verdict {
  index: number;
  conditional?: { header: ValidatorHeader; value: string };
  ms: number;
  status?: number;
  contentType?: string;
  contentEncoding?: string;
  /** The body's size, decompressed, and on the wire. */
  bytes: number;
  wireBytes: number;
  redirects: Hop[];
  etag?: string;
  lastModified?: string;
  /** The server set a cookie: a monitor sends none back. */
  setsCookie: boolean;
}

/** One fetch's facts and verdict together. */
export function describeFetch(
  index: number,
  fetched: Fetched,
  expected: RateFormat | undefined,
  conditional?: ProbeFetch['conditional'],
): ProbeFetch {
  const headers = fetched.headers ?? {};
  return {
    index,
    ...(conditional ? { conditional } : {}),
    ...judgeFetch(fetched, expected, conditional !== undefined),
    ms: fetched.ms,
    ...(fetched.status === undefined ? {} : { status: fetched.status }),
    ...(headers['content-type'] === undefined ? {} : { contentType: headers['content-type'] }),
    ...(headers['content-encoding'] === undefined ? {} : { contentEncoding: headers['content-encoding'] }),
    bytes: fetched.body?.length ?? 0,
    wireBytes: fetched.wireBytes ?? 0,
    redirects: fetched.redirects,
    ...(headers.etag === undefined ? {} : { etag: headers.etag }),
    ...(headers['last-modified'] === undefined ? {} : { lastModified: headers['last-modified'] }),
    setsCookie: headers['set-cookie'] !== undefined,
  };
}

export interface FailureCount {
  kind: FailureKind;
  name: string;
  count: number;
  fetches: number[];
  /** The first such fetch's detail. */
  detail: string;
}

export interface ConditionalOutcome {
  header: ValidatorHeader;
  value: string;
  status?: number;
  /** 304 (what monitors hope for), the whole body again (the validator is ignored: correct, only wasteful), or a failure. */
  outcome: 'not-modified' | 'full-body' | 'failed';
  detail?: string;
}

export interface Range {
  min: number;
  median: number;
  max: number;
}

export interface ProbeSummary {
  url: string;
  /** When the probe ran (ISO 8601). */
  at: string;
  userAgent: string;
  /** Plain fetches asked for (`--count`) and those that were a readable rate file. */
  fetches: number;
  readable: number;
  failures: FailureCount[];
  /** Every fetch, conditional ones included, was a readable rate file or a 304: exit 0. */
  ok: boolean;
  timeMs?: Range;
  bytes?: Range;
  wireBytes?: Range;
  compressed: boolean;
  formats: RateFormat[];
  items?: Range;
  statuses: Record<string, number>;
  contentTypes: string[];
  /** Fetches that were redirected, and the first one's chain. */
  redirected: { fetches: number; chain: Hop[] };
  validators: { etag?: string; lastModified?: string; conditional: ConditionalOutcome[] };
  /** Over the readable fetches: how many different rate sets and bodies, and the fetches whose rates differed from the one before. */
  rates: { distinct: number; bodies: number; changedAt: number[] };
  notes: string[];
}

function range(values: readonly number[]): Range | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0]!, median: sorted[Math.floor((sorted.length - 1) / 2)]!, max: sorted[sorted.length - 1]! };
}

const distinct = <T>(values: readonly T[]) => [...new Set(values)];

function countFailures(fetches: readonly ProbeFetch[]): FailureCount[] {
  const byKind = new Map<FailureKind, FailureCount>();
  for (const fetch of fetches) {
    if (!fetch.failure) continue;
    const { kind, detail } = fetch.failure;
    const entry = byKind.get(kind) ?? { kind, name: failureNames[kind], count: 0, fetches: [], detail };
    entry.count += 1;
    entry.fetches.push(fetch.index);
    byKind.set(kind, entry);
  }
  return [...byKind.values()].sort((a, b) => b.count - a.count || a.fetches[0]! - b.fetches[0]!);
}

function conditionalOutcome(fetch: ProbeFetch): ConditionalOutcome {
  const { header, value } = fetch.conditional!;
  const base = { header, value, ...(fetch.status === undefined ? {} : { status: fetch.status }) };
  if (fetch.notModified) return { ...base, outcome: 'not-modified' };
  if (fetch.readable) return { ...base, outcome: 'full-body' };
  return { ...base, outcome: 'failed', detail: `${fetch.failure!.kind}: ${fetch.failure!.detail}` };
}

/** Observations worth a line: what a monitor's robot trips over, or what makes it download more than it needs. */
function notesOn(plain: readonly ProbeFetch[], readable: readonly ProbeFetch[]): string[] {
  const notes: string[] = [];
  if (plain.some((fetch) => fetch.setsCookie))
    notes.push('the server sets cookies; monitors send none back, so nothing may depend on one');
  for (const fetch of readable) {
    const type = fetch.contentType?.split(';')[0]?.trim().toLowerCase();
    const wanted = fetch.format === 'json' ? ['application/json'] : ['application/xml', 'text/xml'];
    if (type !== undefined && !wanted.includes(type)) {
      notes.push(
        `Content-Type ${type} for a ${formatNames[fetch.format!]} body; monitors expect ${wanted.join(' or ')}`,
      );
      break;
    }
  }
  if (readable.length > 0 && readable.every((fetch) => fetch.items === 0))
    notes.push('the file has no items: monitors read it and list nothing');
  if (readable.length > 0 && readable.every((fetch) => fetch.etag === undefined && fetch.lastModified === undefined))
    notes.push('no ETag or Last-Modified: monitors cannot ask for changes only, every poll downloads the whole file');
  for (let i = 1; i < readable.length; i++) {
    const [before, after] = [readable[i - 1]!, readable[i]!];
    if (before.etag !== undefined && before.etag === after.etag && before.bodyDigest !== after.bodyDigest) {
      notes.push(
        `fetches ${before.index} and ${after.index} have the same ETag and different bodies: a monitor asking If-None-Match keeps the old file`,
      );
      break;
    }
  }
  const etags = distinct(readable.flatMap((fetch) => (fetch.etag === undefined ? [] : [fetch.etag])));
  const bodies = distinct(readable.map((fetch) => fetch.bodyDigest));
  if (etags.length > bodies.length)
    notes.push(
      `${etags.length} different ETags for ${bodies.length} different bodies: monitors download unchanged files again`,
    );
  return notes;
}

export function summarise(url: string, at: string, userAgent: string, fetches: readonly ProbeFetch[]): ProbeSummary {
  const plain = fetches.filter((fetch) => fetch.conditional === undefined);
  const readable = plain.filter((fetch) => fetch.readable);
  const answered = plain.filter((fetch) => fetch.status !== undefined);
  const statuses: Record<string, number> = {};
  for (const fetch of answered) statuses[String(fetch.status)] = (statuses[String(fetch.status)] ?? 0) + 1;
  const redirected = plain.filter((fetch) => fetch.redirects.length > 0);
  const changedAt: number[] = [];
  for (let i = 1; i < readable.length; i++)
    if (readable[i]!.ratesDigest !== readable[i - 1]!.ratesDigest) changedAt.push(readable[i]!.index);
  const last = readable[readable.length - 1];
  const timeMs = range(answered.map((fetch) => fetch.ms));
  const bytes = range(readable.map((fetch) => fetch.bytes));
  const wireBytes = range(readable.map((fetch) => fetch.wireBytes));
  const items = range(readable.flatMap((fetch) => (fetch.items === undefined ? [] : [fetch.items])));
  return {
    url,
    at,
    userAgent,
    fetches: plain.length,
    readable: readable.length,
    failures: countFailures(fetches),
    ok: fetches.every((fetch) => fetch.readable),
    ...(timeMs ? { timeMs } : {}),
    ...(bytes ? { bytes } : {}),
    ...(wireBytes ? { wireBytes } : {}),
    compressed: readable.some((fetch) => fetch.contentEncoding !== undefined),
    formats: distinct(readable.flatMap((fetch) => (fetch.format ? [fetch.format] : []))),
    ...(items ? { items } : {}),
    statuses,
    contentTypes: distinct(answered.flatMap((fetch) => (fetch.contentType ? [fetch.contentType] : []))),
    redirected: { fetches: redirected.length, chain: redirected[0]?.redirects ?? [] },
    validators: {
      ...(last?.etag === undefined ? {} : { etag: last.etag }),
      ...(last?.lastModified === undefined ? {} : { lastModified: last.lastModified }),
      conditional: fetches.filter((fetch) => fetch.conditional !== undefined).map(conditionalOutcome),
    },
    rates: {
      distinct: distinct(readable.map((fetch) => fetch.ratesDigest)).length,
      bodies: distinct(readable.map((fetch) => fetch.bodyDigest)).length,
      changedAt,
    },
    notes: notesOn(plain, readable),
  };
}
