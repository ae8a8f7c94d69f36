// What `ratefile probe` found, as data: one record per fetch and a summary (counts of each failure kind, times, sizes,
// ETag/Last-Modified and the answers to conditional requests, whether the rates differed). Pure: the fetches in, figures
// out; `--json` prints this, src/pure/probe/report.ts words it.
import {
  cameWhole,
  failureNames,
  formatNames,
  judgeFetch,
  monitorTimeouts,
  timeoutWords,
  type ContentTypeRule,
  type FailureKind,
  type Fetched,
  type Hop,
  type MonitorTimeout,
  type RateFormat,
  type Verdict,
} from './classify.js';
import {
  cacheFactsOf,
  cacheSummary,
  judgeCopy,
  type CacheFacts,
  type CacheSummary,
  type CopyVerdict,
  type LocalCopy,
} from './cache.js';

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
  /** The caching headers (Age, cf-cache-status, X-Cache, Via, Cache-Control, CDN-Cache-Control), when any came. */
  cache?: CacheFacts;
  /** Beside the config: the copy against the export as last published here. */
  copy?: CopyVerdict;
}

/** A rate file that came whole, against the local copy: an older one than one build is a failure (`stale-copy`). */
function withCopy(verdict: Verdict, headers: Record<string, string>, local: LocalCopy | undefined) {
  if (!local || !cameWhole(verdict) || verdict.notModified || verdict.bodyDigest === undefined) return verdict;
  const seen = {
    digest: verdict.bodyDigest,
    ...(headers.etag === undefined ? {} : { etag: headers.etag }),
    ...(headers['last-modified'] === undefined ? {} : { lastModified: headers['last-modified'] }),
  };
  const copy = judgeCopy(seen, local);
  if (copy.copy !== 'stale' || !verdict.readable) return { ...verdict, copy };
  return { ...verdict, copy, readable: false, failure: { kind: 'stale-copy' as const, detail: copy.detail } };
}

/** One fetch's facts and verdict together; `local`: the export as last published here (probe beside the config). */
export function describeFetch(
  index: number,
  fetched: Fetched,
  expected: RateFormat | undefined,
  conditional?: ProbeFetch['conditional'],
  timeouts: readonly MonitorTimeout[] = monitorTimeouts,
  local?: LocalCopy,
  contentTypes: readonly ContentTypeRule[] = [],
): ProbeFetch {
  const headers = fetched.headers ?? {};
  const cache = cacheFactsOf(headers);
  const verdict = judgeFetch(fetched, expected, conditional !== undefined, timeouts, contentTypes);
  return {
    index,
    ...(conditional ? { conditional } : {}),
    ...withCopy(verdict, headers, local),
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
    ...(cache ? { cache } : {}),
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

/** One monitor's timeout and the fetches (plain and conditional) that took longer: fetches it gives up on. */
export interface MonitorTiming {
  monitor: string;
  timeoutMs: number;
  source: string;
  slower: number[];
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
  /** Plain fetches asked for (`--count`) and those that were a readable rate file, within every monitor's timeout. */
  fetches: number;
  readable: number;
  failures: FailureCount[];
  /** Every fetch, conditional ones included, was a readable rate file or a 304 within every monitor's timeout: exit 0. */
  ok: boolean;
  timeMs?: Range;
  /** Each monitor's timeout, and which fetches it would have given up on. */
  monitors: MonitorTiming[];
  /** The probe's own timeout for one fetch (`--timeout`), when known. */
  timeoutMs?: number;
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
  /** Over the rate files that came (in time or not): how many, how many different rate sets and bodies, and the fetches whose rates differed from the one before. */
  rates: { files: number; distinct: number; bodies: number; changedAt: number[] };
  cache: CacheSummary;
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
  // A 304 that came too late for a monitor is a failure for it: checked first.
  if (fetch.failure) return { ...base, outcome: 'failed', detail: `${fetch.failure.kind}: ${fetch.failure.detail}` };
  return { ...base, outcome: fetch.notModified ? 'not-modified' : 'full-body' };
}

/** Per monitor, the fetches it gives up on: slower than its timeout (a fetch the deadline stopped was never timed). */
function timingsOf(fetches: readonly ProbeFetch[], timeouts: readonly MonitorTimeout[]): MonitorTiming[] {
  const timed = fetches.filter((fetch) => fetch.failure?.kind !== 'not-made');
  return timeouts.map(({ monitor, ms, source }) => ({
    monitor,
    timeoutMs: ms,
    source,
    slower: timed.filter((fetch) => fetch.ms > ms).map((fetch) => fetch.index),
  }));
}

/** Notes on time: a probe that cannot tell whether a monitor waited long enough, a slowest fetch near a timeout. */
function timeNotes(timings: readonly MonitorTiming[], slowest: number | undefined, timeoutMs?: number): string[] {
  const notes: string[] = [];
  const longest = timings.reduce<MonitorTiming | undefined>(
    (a, b) => (a && a.timeoutMs >= b.timeoutMs ? a : b),
    undefined,
  );
  const shortest = timings.reduce<MonitorTiming | undefined>(
    (a, b) => (a && a.timeoutMs <= b.timeoutMs ? a : b),
    undefined,
  );
  if (longest && timeoutMs !== undefined && timeoutMs < longest.timeoutMs)
    notes.push(
      `--timeout ${timeoutWords(timeoutMs)} is shorter than ${longest.monitor}'s ${timeoutWords(longest.timeoutMs)}: a fetch it cut off might still have reached ${longest.monitor} in time`,
    );
  // Measured from this machine: a monitor farther away waits longer for the same answer.
  if (shortest && slowest !== undefined && slowest <= shortest.timeoutMs && slowest * 3 >= shortest.timeoutMs * 2)
    notes.push(
      `the slowest fetch took ${slowest} ms, near ${shortest.monitor}'s timeout of ${timeoutWords(shortest.timeoutMs)}: from farther away, a monitor may give up`,
    );
  return notes;
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

export interface SummaryOptions {
  /** The monitors' timeouts the fetches were judged against (describeFetch's). */
  timeouts?: readonly MonitorTimeout[];
  /** The probe's own timeout for one fetch (`--timeout`). */
  timeoutMs?: number;
  /** Beside the config: the export the URL names, and the schedule period. */
  local?: { file: string; periodMs: number };
}

/** The summary of a probe. The figures of the file (format, items, sizes, rates) count every rate file that came, in time or not. */
export function summarise(
  url: string,
  at: string,
  userAgent: string,
  fetches: readonly ProbeFetch[],
  options: SummaryOptions = {},
): ProbeSummary {
  const plain = fetches.filter((fetch) => fetch.conditional === undefined);
  const readable = plain.filter(cameWhole);
  const timings = timingsOf(fetches, options.timeouts ?? monitorTimeouts);
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
    readable: plain.filter((fetch) => fetch.readable).length,
    failures: countFailures(fetches),
    ok: fetches.every((fetch) => fetch.readable),
    ...(timeMs ? { timeMs } : {}),
    monitors: timings,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
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
      files: readable.length,
      distinct: distinct(readable.map((fetch) => fetch.ratesDigest)).length,
      bodies: distinct(readable.map((fetch) => fetch.bodyDigest)).length,
      changedAt,
    },
    cache: cacheSummary(fetches, options.local),
    notes: [...timeNotes(timings, timeMs?.max, options.timeoutMs), ...notesOn(plain, readable)],
  };
}
