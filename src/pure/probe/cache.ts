// What `ratefile probe` tells of a cache between the server and the monitors: the headers that name one (`Age`,
// `cf-cache-status`, `X-Cache`, `X-Cache-Status`, `Via`), and, run beside the config, whether the public copy is
// older than one build: its bytes are not the latest published file's, and the build that replaced them was published
// more than one schedule period ago (dated by the builds `.ratefile/outside.json` keeps). The advice names the cache
// rule to change. Pure: headers and the local facts in, words out.
import type { PublishedVersion } from '../watch/judge.js';

/** The caching headers of one answer, as sent. */
export interface CacheFacts {
  age?: number;
  cfCacheStatus?: string;
  xCache?: string;
  /** The header `xCache` came in, when not X-Cache (nginx's usual `X-Cache-Status $upstream_cache_status`). */
  xCacheHeader?: 'X-Cache-Status';
  via?: string;
  cacheControl?: string;
  cdnCacheControl?: string;
}

export function cacheFactsOf(headers: Record<string, string>): CacheFacts | undefined {
  const age = Number(headers.age);
  const facts: CacheFacts = {
    ...(headers.age !== undefined && Number.isFinite(age) ? { age } : {}),
    ...(headers['cf-cache-status'] ? { cfCacheStatus: headers['cf-cache-status'] } : {}),
    ...(headers['x-cache']
      ? { xCache: headers['x-cache'] }
      : headers['x-cache-status']
        ? { xCache: headers['x-cache-status'], xCacheHeader: 'X-Cache-Status' as const }
        : {}),
    ...(headers.via ? { via: headers.via } : {}),
    ...(headers['cache-control'] ? { cacheControl: headers['cache-control'] } : {}),
    ...(headers['cdn-cache-control'] ? { cdnCacheControl: headers['cdn-cache-control'] } : {}),
  };
  return Object.keys(facts).length === 0 ? undefined : facts;
}

export type CacheLayer = 'cloudflare' | 'varnish' | 'squid' | 'proxy';

/** Which kind of cache answered, by its headers; undefined when none says so. */
export function cacheLayerOf(facts: CacheFacts | undefined): CacheLayer | undefined {
  if (!facts) return undefined;
  if (facts.cfCacheStatus !== undefined) return 'cloudflare';
  const via = `${facts.via ?? ''} ${facts.xCache ?? ''}`.toLowerCase();
  if (via.includes('varnish')) return 'varnish';
  if (via.includes('squid')) return 'squid';
  if (facts.xCache !== undefined || facts.via !== undefined || facts.age !== undefined) return 'proxy';
  return undefined;
}

/** The answer came from a cache's copy: a HIT (Cloudflare's HIT, STALE, UPDATING, REVALIDATED; X-Cache: HIT…) or an Age. */
export function servedFromCache(facts: CacheFacts | undefined): boolean {
  if (!facts) return false;
  if (facts.cfCacheStatus && /^(HIT|STALE|UPDATING|REVALIDATED)$/i.test(facts.cfCacheStatus)) return true;
  if (facts.xCache && /\bHIT\b|\bSTALE\b/i.test(facts.xCache)) return true;
  return (facts.age ?? 0) > 0;
}

/** The export as this machine last published it (the config's output folder), read at the end of each fetch. */
export interface LocalCopy {
  file: string;
  /** The short digest of its bytes (the one `bodyDigest` is). */
  digest: string;
  publishedAtMs: number;
  periodMs: number;
  nowMs: number;
  /** The versions of the file the watch from outside keeps (`.ratefile/outside.json`), oldest first; none without `watch:`. */
  versions?: readonly PublishedVersion[];
}

/** A public copy as one fetch got it: its bytes' short digest and its validators. */
export interface CopySeen {
  digest: string;
  etag?: string;
  lastModified?: string;
}

export interface CopyVerdict {
  copy: 'current' | 'behind' | 'stale' | 'newer';
  detail: string;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/**
 * When a newer build replaced the copy, and how many builds are after it, by the versions kept: the copy's own
 * version (its bytes, else its ETag) and the one after it, else the first build at least a second after its
 * Last-Modified (the header's resolution). Every answer errs young: the latest local file when nothing kept dates it.
 */
function replacedBy(copy: CopySeen, local: LocalCopy): { atMs: number; after?: string; when?: string } {
  const versions = local.versions ?? [];
  const etag = copy.etag?.trim().replace(/^W\//, '');
  let index = versions.findLastIndex((version) => version.sha256.startsWith(copy.digest));
  if (index === -1 && etag) index = versions.findLastIndex((version) => version.etag === etag);
  const modified = copy.lastModified === undefined ? Number.NaN : Date.parse(copy.lastModified);
  const next =
    index !== -1
      ? index + 1
      : Number.isNaN(modified)
        ? -1
        : versions.findIndex((version) => Date.parse(version.at) >= modified + 1000);
  const successor = next === -1 ? undefined : versions[next];
  if (!successor) return { atMs: local.publishedAtMs };
  // The local file may be newer than the last version kept (the watch not running): at least one build more.
  const latestKept = versions.at(-1)!.sha256.startsWith(local.digest);
  const after = versions.length - next + (latestKept ? 0 : 1);
  const builds = `${latestKept ? '' : 'at least '}${after === 1 ? 'a build' : `${after} builds`}`;
  return { atMs: Date.parse(successor.at), after: builds, when: successor.at };
}

/**
 * The public copy against the local one: the same bytes (current), other bytes replaced here less than one period
 * ago (behind: a cache within its time), replaced longer ago (stale: older than one build), or a copy whose
 * Last-Modified is after the local file's (newer: this is not the publishing machine's folder). When it was replaced
 * is read from the builds `.ratefile/outside.json` keeps (by the copy's bytes, ETag or Last-Modified), so a copy
 * minutes old is stale even when rates move at every build; without them, from the local file's time (a lower bound).
 */
export function judgeCopy(copy: CopySeen, local: LocalCopy): CopyVerdict {
  if (copy.digest === local.digest) return { copy: 'current', detail: `the bytes of ${local.file} as last published` };
  const copyTime = copy.lastModified === undefined ? Number.NaN : Date.parse(copy.lastModified);
  if (copyTime > local.publishedAtMs + 1000)
    return { copy: 'newer', detail: `newer than ${local.file} here: not the folder the exports are published from?` };
  const replaced = replacedBy(copy, local);
  const outdated = local.nowMs - replaced.atMs;
  const behind =
    replaced.when === undefined
      ? `not the build of ${local.file} published ${seconds(outdated)} ago`
      : `${replaced.after} of ${local.file} behind, replaced by the build of ${replaced.when} (${seconds(outdated)} ago)`;
  if (outdated <= local.periodMs)
    return { copy: 'behind', detail: `${behind}, within one schedule period (${seconds(local.periodMs)})` };
  return {
    copy: 'stale',
    detail: `${behind}: older than one build (the schedule runs every ${seconds(local.periodMs)})`,
  };
}

/** What to change, by the cache that answered: the rule that keeps the copy too long. */
export function cacheAdvice(layer: CacheLayer | undefined, periodSeconds: number | undefined): string {
  const period = periodSeconds === undefined ? 'one schedule period' : `${periodSeconds} s`;
  // In a directive: seconds of the schedule period, or a placeholder for them.
  const secs = periodSeconds === undefined ? '<period>' : String(periodSeconds);
  switch (layer) {
    case 'cloudflare':
      return `Cloudflare keeps a copy: for the export paths, no "Cache Everything" rule and no Edge TTL "Ignore cache-control header and use this TTL" (Caching → Cache Rules); let the Edge TTL "use cache-control header if present" (CDN-Cache-Control: max-age=${secs}) or bypass the cache — \`ratefile edge cloudflare\` prints the rule`;
    case 'varnish':
      return `Varnish keeps a copy: in vcl_backend_response, set beresp.ttl for the export paths to ${period} at most, or return (pass) for them in vcl_recv`;
    case 'squid':
      return `Squid keeps a copy: a refresh_pattern for the export paths with max 0 (or no override-expire/ignore-no-cache), so the origin's Cache-Control holds`;
    default:
      return `a cache in front keeps a copy: with nginx's proxy_cache, \`proxy_cache_valid 200 ${secs}s;\` at most for the export paths and no \`proxy_ignore_headers Cache-Control\` there (or \`proxy_cache_bypass 1; proxy_no_cache 1;\`) — \`ratefile edge nginx\` prints the lines`;
  }
}

/** What the fetches tell of a cache in front, and of the copy against the local one. */
export interface CacheSummary {
  layer?: CacheLayer;
  /** Fetches answered from a cache's copy (a HIT, an Age). */
  hits: number[];
  maxAge?: number;
  /** One of each header value seen (cf-cache-status, X-Cache, Via, Cache-Control, CDN-Cache-Control). */
  seen: string[];
  /** Beside the config: the local export compared with, and the fetches by what their copy was. */
  local?: { file: string; periodMs: number };
  copies: { current: number[]; behind: number[]; stale: number[]; newer: number[] };
  /** The rule to change, when a copy was older than one build or a cache kept one longer than a period. */
  advice?: string;
}

/** What `cacheSummary` reads of each fetch. */
interface CachedFetch {
  index: number;
  cache?: CacheFacts;
  copy?: CopyVerdict;
}

const distinct = <T>(values: readonly T[]) => [...new Set(values)];

export function cacheSummary(
  fetches: readonly CachedFetch[],
  local: { file: string; periodMs: number } | undefined,
): CacheSummary {
  const facts = fetches.flatMap((fetch) => (fetch.cache ? [fetch.cache] : []));
  const layer = facts.map(cacheLayerOf).find((found) => found !== undefined);
  const hits = fetches.filter((fetch) => servedFromCache(fetch.cache)).map((fetch) => fetch.index);
  const ages = facts.flatMap((fact) => (fact.age === undefined ? [] : [fact.age]));
  const maxAge = ages.length > 0 ? Math.max(...ages) : undefined;
  const seen = distinct(
    facts.flatMap((fact) => [
      ...(fact.cfCacheStatus ? [`cf-cache-status ${fact.cfCacheStatus}`] : []),
      ...(fact.xCache ? [`${fact.xCacheHeader ?? 'X-Cache'} ${fact.xCache}`] : []),
      ...(fact.via ? [`Via ${fact.via}`] : []),
      ...(fact.cacheControl ? [`Cache-Control ${fact.cacheControl}`] : []),
      ...(fact.cdnCacheControl ? [`CDN-Cache-Control ${fact.cdnCacheControl}`] : []),
    ]),
  );
  const copies = { current: [] as number[], behind: [] as number[], stale: [] as number[], newer: [] as number[] };
  for (const fetch of fetches) if (fetch.copy) copies[fetch.copy.copy].push(fetch.index);
  const periodSeconds = local ? Math.round(local.periodMs / 1000) : undefined;
  const keptTooLong = maxAge !== undefined && periodSeconds !== undefined && maxAge > periodSeconds;
  return {
    ...(layer ? { layer } : {}),
    hits,
    ...(maxAge === undefined ? {} : { maxAge }),
    seen,
    ...(local ? { local } : {}),
    copies,
    ...(copies.stale.length > 0 || keptTooLong ? { advice: cacheAdvice(layer, periodSeconds) } : {}),
  };
}
