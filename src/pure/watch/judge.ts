// The watch from outside, judged: one fetch of an export's public copy (made as a monitor makes it, by
// src/io/probe/fetch.ts) compared with the versions this instance published. `same`: the bytes of the latest build;
// `older`: an older build's (how many builds behind, built when) or a rate file of no build kept; `challenge`: an
// anti-bot or other HTML page instead of the file (recognised by probe's own classifier); `error`: a status, a
// network failure, a body that is no rate file, a Content-Type a monitor refuses; `slow`: an answer slower than the
// monitors wait. Pure: no clock.
import { createHash } from 'node:crypto';
import {
  formatOf,
  judgeFetch,
  refusedType,
  type ContentTypeRule,
  type Fetched,
  type FailureKind,
} from '../probe/classify.js';

/** One published version of an export: what a public copy is matched against. */
export interface PublishedVersion {
  /** SHA-256 of the bytes, hex. */
  sha256: string;
  /** The ETag the built-in server sends for these bytes (exportEtag). */
  etag: string;
  /** When the build that published these bytes ran (ISO). */
  at: string;
}

export type OutsideState = 'same' | 'older' | 'challenge' | 'error' | 'slow';

export const outsideStates: readonly OutsideState[] = ['same', 'older', 'challenge', 'error', 'slow'];

/** What one fetch of a public copy was judged to be. */
export interface OutsideJudgement {
  state: OutsideState;
  /** A few words for people: "2 builds behind, built 12 minutes before the latest", "HTTP 503". */
  detail: string;
  /** Builds behind the latest (0: the latest); null: a rate file of no build kept. Absent: no rate file came. */
  behind?: number | null;
  /** When the build that made the copy ran (ISO), when the copy is one of ours. */
  copyBuiltAt?: string;
  status?: number;
  ms: number;
}

/** The ETag of an export's bytes, as the built-in server sends it and the watch matches it: `"<SHA-1, base64url>"`. */
export const exportEtag = (bytes: Uint8Array): string => `"${createHash('sha1').update(bytes).digest('base64url')}"`;

export const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The versions with these bytes added as the latest (unless they are the latest already), the oldest dropped past `keep`. */
export function rememberVersion(
  versions: readonly PublishedVersion[],
  bytes: Uint8Array,
  at: string,
  keep: number,
): PublishedVersion[] {
  const sha256 = sha256Of(bytes);
  if (versions.at(-1)?.sha256 === sha256) return [...versions];
  return [...versions, { sha256, etag: exportEtag(bytes), at }].slice(-keep);
}

/** The index of the version the copy is, by its body's hash, else by its ETag (a CDN keeps the origin's, or weakens it). */
function matchVersion(fetched: Fetched, versions: readonly PublishedVersion[]): number {
  if (fetched.body && fetched.body.length > 0) {
    const sha256 = sha256Of(fetched.body);
    const byBody = versions.findLastIndex((version) => version.sha256 === sha256);
    if (byBody !== -1) return byBody;
  }
  const etag = fetched.headers?.etag?.trim().replace(/^W\//, '');
  return etag ? versions.findLastIndex((version) => version.etag === etag) : -1;
}

const pageKinds: ReadonlySet<FailureKind> = new Set(['cloudflare-challenge', 'antibot-page', 'redirect-page', 'html']);

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** The monitors that refuse one of our files for its Content-Type (the profiles' `contentType`), in words. */
function refusedCopy(fetched: Fetched, rules: readonly ContentTypeRule[]): string | undefined {
  const format = formatOf(Buffer.from((fetched.body ?? new Uint8Array()).subarray(0, 262_144)).toString('utf8'));
  return format && refusedType(fetched.headers?.['content-type'], format, rules)?.detail;
}

/**
 * One fetch judged against the versions published (oldest first), the time a monitor waits and the Content-Types
 * the monitors' robots accept: our bytes under a type a monitor refuses are an `error` for it all the same.
 */
export function judgeOutside(
  fetched: Fetched,
  versions: readonly PublishedVersion[],
  slowAfterMs: number,
  contentTypes: readonly ContentTypeRule[] = [],
): OutsideJudgement {
  const { ms } = fetched;
  const base = { ms, ...(fetched.status === undefined ? {} : { status: fetched.status }) };
  if (fetched.error) {
    const state = fetched.error.kind === 'timeout' ? 'slow' : 'error';
    return { ...base, state, detail: fetched.error.message };
  }
  const slow = ms > slowAfterMs ? `, but took ${seconds(ms)} (monitors wait about ${seconds(slowAfterMs)})` : '';
  const index = fetched.status === 200 ? matchVersion(fetched, versions) : -1;
  if (index !== -1) {
    const behind = versions.length - 1 - index;
    const copyBuiltAt = versions[index]!.at;
    const words = behind === 0 ? 'the latest build' : `${behind} build${behind === 1 ? '' : 's'} behind`;
    const refused = refusedCopy(fetched, contentTypes);
    if (refused) return { ...base, state: 'error', detail: `${words}, but ${refused}`, behind, copyBuiltAt };
    const state = slow ? 'slow' : behind === 0 ? 'same' : 'older';
    return { ...base, state, detail: `${words}, built ${copyBuiltAt}${slow}`, behind, copyBuiltAt };
  }
  // Not one of ours: probe's classifier says what it is (a challenge page, a status, an empty body, another file).
  const verdict = judgeFetch(fetched, undefined, false, [], contentTypes);
  const failure = verdict.failure;
  if (failure && pageKinds.has(failure.kind))
    return { ...base, state: 'challenge', detail: `${failure.detail} instead of the file` };
  if (failure && failure.kind !== 'invalid-rate-file') return { ...base, state: 'error', detail: failure.detail };
  const kept = `none of the last ${versions.length} build${versions.length === 1 ? '' : 's'} published here`;
  return {
    ...base,
    state: slow ? 'slow' : 'older',
    detail: `a rate file, but ${kept} (an older copy, or another instance's)${slow}`,
    behind: null,
  };
}

/** What the watch keeps of an export: its URL, its versions, and its last judgement with since when its state holds. */
export interface OutsideCheck extends OutsideJudgement {
  file: string;
  url: string;
  /** When this fetch was made (ISO). */
  at: string;
  /** Since when the state has been what it is (ISO): the first fetch in a row that found it. */
  since: string;
  /** Since when the copy has been other than `same`, whatever the states in between (ISO); absent while `same`. */
  wrongSince?: string;
}

/** The new check of an export: `since` carried over while the state stays the same. */
export function nextCheck(
  previous: OutsideCheck | undefined,
  judged: OutsideJudgement,
  target: { file: string; url: string },
  at: string,
): OutsideCheck {
  const since = previous && previous.state === judged.state ? previous.since : at;
  if (judged.state === 'same') return { ...target, ...judged, at, since };
  // An older copy that turns into a challenge is still wrong: the alert counts from the first wrong fetch.
  const wrongSince = previous && previous.state !== 'same' ? (previous.wrongSince ?? previous.since) : at;
  return { ...target, ...judged, at, since, wrongSince };
}

/** The copy's age (seconds) at `now`: since the build that made it ran; undefined when no copy of ours came. */
export function copyAgeSeconds(check: OutsideCheck, now: Date): number | undefined {
  if (check.copyBuiltAt === undefined) return undefined;
  return Math.max(0, Math.round((now.getTime() - Date.parse(check.copyBuiltAt)) / 1000));
}

/** An export whose public copy has been other than `same` for `alertAfterMs` or longer: `outside:<file>`. */
export function outsideProblems(
  checks: readonly OutsideCheck[],
  alertAfterMs: number,
  now: Date,
): { key: string; text: string; level: 'degraded' }[] {
  return checks
    .filter(
      (check) => check.state !== 'same' && now.getTime() - Date.parse(check.wrongSince ?? check.since) >= alertAfterMs,
    )
    .map((check) => ({
      key: `outside:${check.file}`,
      level: 'degraded' as const,
      text: `the public copy of ${check.file} (${check.url}) is ${check.state} since ${check.since}: ${check.detail}`,
    }));
}
