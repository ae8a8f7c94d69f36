// Feed sources (a BestChange dump): asked once per refresh, in the build or beside it, the outcome kept in the service's cache.
import { RatefileError } from '../../base/errors.js';
import type { SourceConfig } from '../../model/config.js';
import { SourceError } from '../sources/http.js';
import type { SourceDefinition, SourceFeed } from '../../model/source.js';
import type { CacheEntry, QuoteCache } from './quote-cache.js';
import { askSource, errorText, type FetchDeps } from './source-ask.js';
import { sourceMaxAgeMs, sourceRefreshMs } from './source-options.js';

/** A time as logged: UTC to the second. */
export const clock = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** What one fetch of a feed source left: the feed, or why it failed and when to ask again. */
export type FeedOutcome = { feed: SourceFeed; rejected: string[] } | { failure: string; notBefore: number };

/**
 * Ask a feed source once; never throws. A failure is asked again only after the source's refresh (BestChange
 * asks for one fetch per refresh, failing or not), or later when its Retry-After says so.
 */
export async function askFeed(
  source: SourceConfig,
  definition: SourceDefinition<{ type: string }>,
  deps: FetchDeps,
  entry: CacheEntry | undefined,
  now: number,
): Promise<FeedOutcome> {
  const maxAge = sourceMaxAgeMs(source, deps.schedulePeriodMs);
  // A last good feed too old to stand in is no yardstick for the row count: refusing a smaller feed then
  // would leave no feed at all, and one absurd feed would lock out every normal one after it.
  const stale = entry?.feed !== undefined && maxAge !== undefined && now - entry.fetchedAt > maxAge;
  try {
    const { rejected, feed } = await askSource(source, definition, deps, entry?.feed, stale);
    if (!feed) throw new RatefileError('E_SOURCE', `${source.name}: sent no feed`);
    return { feed, rejected };
  } catch (error) {
    const asked = error instanceof SourceError ? (error.retryAfterMs ?? 0) : 0;
    return { failure: errorText(error), notBefore: now + Math.max(sourceRefreshMs(source), asked) };
  }
}

/** Keep a feed fetch's outcome: a feed replaces the entry; a failure keeps the last good feed and says when to ask again. */
export function keepFeed(
  cache: QuoteCache,
  name: string,
  key: string,
  entry: CacheEntry | undefined,
  outcome: FeedOutcome,
  now: number,
): void {
  if ('feed' in outcome)
    cache.entries.set(name, {
      fingerprint: key,
      quotes: [],
      rejected: outcome.rejected,
      feed: outcome.feed,
      fetchedAt: now,
    });
  else
    cache.entries.set(name, {
      ...(entry ?? { fingerprint: key, quotes: [], rejected: [], fetchedAt: 0 }),
      failure: outcome.failure,
      notBefore: outcome.notBefore,
    });
}

/** Start fetching a feed beside the builds (the service's cache); its outcome lands in the cache for a later build. */
export function fetchInBackground(
  cache: QuoteCache,
  source: SourceConfig,
  definition: SourceDefinition<{ type: string }>,
  deps: FetchDeps,
  key: string,
  entry: CacheEntry | undefined,
  now: number,
) {
  // Not the build's signal: the fetch outlives the build that started it; closing the cache ends it.
  const done = askFeed(source, definition, { ...deps, signal: cache.signal }, entry, now)
    .then((outcome) => {
      keepFeed(cache, source.name, key, entry, outcome, now);
      // Builds only say a fetch is under way; how it failed is told here, once per fetch.
      if ('failure' in outcome && !cache.signal.aborted)
        cache.onFeedFailure?.(outcome.failure, new Date(outcome.notBefore));
    })
    .finally(() => cache.fetching.delete(source.name));
  const fetching = { since: now, done };
  cache.fetching.set(source.name, fetching);
  return fetching;
}
