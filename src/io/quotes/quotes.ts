// fetchQuotes: ask every configured source at once and gather their checked quotes into one quote book;
// a QuoteCache (quote-cache.ts) kept by the long-running service reuses quotes within each source's refresh interval
// and fetches feeds beside the builds.
import { RatefileError } from '../../base/errors.js';
import type { SourceConfig } from '../../model/config.js';
import type { RateRule } from '../../model/rates.js';
import { makeBook, type SourceQuotes } from '../../pure/rates/book.js';
import type { Derivation } from '../../pure/rates/derivation.js';
import { SourceError, baseUrlVariable } from '../sources/http.js';
import { sourceDefinition } from '../sources/index.js';
import type { Quote, QuoteBook, SourceDefinition, SourceFeed } from '../../model/source.js';
import type { SourceReport } from '../../pure/status/report.js';
import { type CacheEntry, type LiveResult, QuoteCache } from './quote-cache.js';
import { askFeed, clock, fetchInBackground, keepFeed } from './quote-feeds.js';
import { askSource, errorText, type FetchDeps } from './source-ask.js';
import { sourceMaxAgeMs, sourceRefreshMs } from './source-options.js';
import { scaleRefusal, yardstickOf } from '../../pure/sources/scale.js';

export { QuoteCache };

function fingerprint(source: SourceConfig, env: FetchDeps['env']): string {
  // The pairs a feed competes in are what v2 is asked for: other pairs are another fetch.
  const pairs = source.competes === undefined ? [] : [source.competes];
  return JSON.stringify([source.type, source.options, env?.[baseUrlVariable(source.type)] ?? null, ...pairs]);
}

function quoteTimes(quotes: readonly Quote[]): Pick<SourceReport, 'quoteTimes'> {
  if (quotes.length === 0) return {};
  let [oldest, newest] = [Infinity, -Infinity];
  for (const quote of quotes)
    [oldest, newest] = [Math.min(oldest, quote.time.getTime()), Math.max(newest, quote.time.getTime())];
  return { quoteTimes: { oldest: new Date(oldest), newest: new Date(newest) } };
}

/** One source's part of a build: its report, its quotes and, for a feed source, its feed. */
interface SourceFetched {
  report: SourceReport;
  quotes: Quote[];
  feed?: SourceFeed;
}

/** What asking one source for a build goes by: the time, its cache entry (while the source is unchanged), its report. */
interface SourceFetch {
  source: SourceConfig;
  deps: FetchDeps;
  report: SourceReport;
  now: number;
  /** The source's fingerprint: an entry kept under another was another source's. */
  key: string;
  entry: CacheEntry | undefined;
  maxAge: number | undefined;
}

/**
 * A source's quotes for this build: the cache's within the source's refresh; else asked now (a feed beside the build in
 * the service), and when that fails, the last good ones stand in while young enough. Never throws.
 */
async function fetchSource(source: SourceConfig, deps: FetchDeps): Promise<SourceFetched> {
  const job = startFetch(source, deps);
  const live = deps.cache?.live?.quotesFor(source, job.now);
  if (live) job.report.stream = live.stream;
  if (live && live.quotes.length > 0) return streamed(job, live);
  const refreshing = withinRefresh(job);
  if (refreshing) return refreshing;
  const asked = await askNow(job);
  return typeof asked === 'string' ? standIn(job, asked) : asked;
}

function startFetch(source: SourceConfig, deps: FetchDeps): SourceFetch {
  const key = fingerprint(source, deps.env ?? process.env);
  const cached = deps.cache?.entries.get(source.name);
  return {
    source,
    deps,
    report: { name: source.name, type: source.type, ok: false, quotes: 0, rejected: [] },
    now: deps.now().getTime(),
    key,
    entry: cached?.fingerprint === key ? cached : undefined,
    maxAge: sourceMaxAgeMs(source, deps.schedulePeriodMs),
  };
}

/** The source's part with these quotes (and feed), its report filled in to match. */
function used(
  job: SourceFetch,
  quotes: Quote[],
  rejected: string[],
  fetchedAt: number,
  reused?: SourceReport['reused'],
  feed?: SourceFeed,
): SourceFetched {
  const { report } = job;
  Object.assign(
    report,
    { quotes: quotes.length, rejected, fetchedAt: new Date(fetchedAt) },
    reused ? { reused } : {},
    feed ? { rows: feed.rows } : {},
    quoteTimes(quotes),
  );
  return feed ? { report, quotes, feed } : { report, quotes };
}

/** A streamed source's quotes as they stand (src/io/streams/feed.ts): nothing is asked in the build. */
function streamed(job: SourceFetch, live: LiveResult): SourceFetched {
  job.report.ok = true;
  return used(job, live.quotes, live.rejected, live.fetchedAt);
}

/** The cache's last good quotes or feed, while younger than the source's refresh. */
function withinRefresh(job: SourceFetch): SourceFetched | undefined {
  const { entry, now, source } = job;
  if (!(entry && now - entry.fetchedAt < sourceRefreshMs(source) && (entry.quotes.length > 0 || entry.feed)))
    return undefined;
  job.report.ok = true;
  return used(job, entry.quotes, entry.rejected, entry.fetchedAt, 'refresh', entry.feed);
}

/** The source asked now, or why it is not (a failure's text, for `standIn`). */
async function askNow(job: SourceFetch): Promise<SourceFetched | string> {
  const { source, deps, entry, now } = job;
  const definition = sourceDefinition(source.type);
  if (!definition) return `${source.name}: unknown source type ${source.type}`;
  if (entry?.notBefore !== undefined && now < entry.notBefore)
    return entry.failure !== undefined
      ? `${entry.failure}; next try after ${clock(entry.notBefore)}`
      : `${source.name}: not asked again before ${clock(entry.notBefore)}, as its last answer (Retry-After) asked`;
  if (definition.feed && deps.cache?.background) return feedBesideBuild(job, deps.cache, definition);
  if (definition.feed) return feedInBuild(job, definition);
  return quotesInBuild(job, definition);
}

/** A feed in the service: fetched beside the build, never in its way (a feed host that hangs must not hold the schedule). */
function feedBesideBuild(job: SourceFetch, cache: QuoteCache, definition: SourceDefinition): SourceFetched | string {
  const { source, deps, key, entry, now, maxAge } = job;
  const fetching =
    cache.fetching.get(source.name) ?? fetchInBackground(cache, source, definition, deps, key, entry, now);
  if (entry?.feed && entry.failure === undefined && (maxAge === undefined || now - entry.fetchedAt <= maxAge)) {
    job.report.ok = true;
    return used(job, [], entry.rejected, entry.fetchedAt, 'refresh', entry.feed);
  }
  const since = clock(fetching.since);
  return entry?.failure === undefined
    ? `${source.name}: fetching its feed since ${since}, not waited for`
    : `${entry.failure}; asking again since ${since}, not waited for`;
}

/** A feed asked in the build (`ratefile build`, or a cache that is not the service's), its outcome kept. */
async function feedInBuild(job: SourceFetch, definition: SourceDefinition): Promise<SourceFetched | string> {
  const { source, deps, key, entry, now } = job;
  const outcome = await askFeed(source, definition, deps, entry, now);
  if (deps.cache) keepFeed(deps.cache, source.name, key, entry, outcome, now);
  if (!('feed' in outcome)) return outcome.failure;
  job.report.ok = true;
  return used(job, [], outcome.rejected, now, undefined, outcome.feed);
}

/** A quote source asked in the build; a failure keeps the entry and when the source asked to be asked again. */
async function quotesInBuild(job: SourceFetch, definition: SourceDefinition): Promise<SourceFetched | string> {
  const { source, deps, key, entry, now } = job;
  try {
    const { quotes, rejected } = await askSource(source, definition, deps, undefined);
    if (quotes.length === 0) {
      // A source none of whose quotes can be used has failed, whatever the reason for each pair.
      job.report.rejected = rejected;
      throw new RatefileError(
        'E_SOURCE',
        rejected.length > 0
          ? `${source.name}: none of its quotes is usable (${rejected.length} dropped)`
          : `${source.name}: sent no quotes`,
      );
    }
    // A unit or scale mistake (every quote about 10^k off its last accepted answer, |k| ≥ 2) fails the source here,
    // before its quotes reach the book or the cache: the last good ones stand in as for any failure.
    const refused = scaleRefusal(source.name, deps.yardsticks?.get(source.name), quotes, new Date(now));
    if (refused !== undefined) throw new RatefileError('E_SOURCE', refused);
    deps.yardsticks?.set(source.name, yardstickOf(quotes, new Date(now)));
    deps.cache?.entries.set(source.name, { fingerprint: key, quotes, rejected, fetchedAt: now });
    job.report.ok = true;
    return used(job, quotes, rejected, now);
  } catch (error) {
    const notBefore =
      error instanceof SourceError && error.retryAfterMs !== undefined ? now + error.retryAfterMs : undefined;
    if (deps.cache && entry)
      deps.cache.entries.set(source.name, { ...entry, ...(notBefore === undefined ? {} : { notBefore }) });
    else if (deps.cache && notBefore !== undefined)
      deps.cache.entries.set(source.name, { fingerprint: key, quotes: [], rejected: [], fetchedAt: 0, notBefore });
    return errorText(error);
  }
}

/**
 * A failed source: the last good quotes stand in while they are younger than the source's maxAge (a daily fixing does
 * not go wrong because one refetch failed); with `maxAge: "off"` they stand in however old, as the operator said they
 * never expire: a half-written quotes file must not withhold every direction until the next read. A feed has no quote
 * times: the last good one stands in while it was fetched within maxAge.
 */
function standIn(job: SourceFetch, failure: string): SourceFetched {
  const { report, entry, now, maxAge } = job;
  report.error = failure;
  if (entry?.feed && (maxAge === undefined || now - entry.fetchedAt <= maxAge)) {
    report.error = `${failure} (using its last good feed, fetched ${clock(entry.fetchedAt)})`;
    return used(job, [], [], entry.fetchedAt, 'fallback', entry.feed);
  }
  if (entry) {
    const fresh =
      maxAge === undefined ? entry.quotes : entry.quotes.filter((quote) => now - quote.time.getTime() <= maxAge);
    if (fresh.length > 0) {
      report.error = `${failure} (using its last good quotes, fetched ${clock(entry.fetchedAt)})`;
      return used(job, fresh, [], entry.fetchedAt, 'fallback');
    }
  }
  return { report, quotes: [] };
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/**
 * A source's quotes older than its maxAge are not used: taken out before the book is made, so a fresh quote of
 * another source takes the market and chains are chosen through what is left. Each is a dropped quote of its
 * source (a source that sent an unusable quote: `ratefile build` exits 1). Returns the stale quotes, if any.
 */
function dropStale(source: SourceConfig, result: { report: SourceReport; quotes: Quote[] }, deps: FetchDeps): Quote[] {
  const limit = sourceMaxAgeMs(source, deps.schedulePeriodMs);
  if (limit === undefined) return [];
  const now = deps.now().getTime();
  const stale = result.quotes.filter((quote) => now - quote.time.getTime() > limit);
  if (stale.length === 0) return stale;
  result.quotes = result.quotes.filter((quote) => now - quote.time.getTime() <= limit);
  result.report.quotes = result.quotes.length;
  // A new array: a reused cache entry's list is shared with the cache.
  result.report.rejected = [
    ...result.report.rejected,
    ...stale.map(
      (quote) =>
        `${quote.pair}: ${seconds(now - quote.time.getTime())} old, past its maxAge of ${seconds(limit)}: not used`,
    ),
  ];
  result.report.staleDropped = stale.length;
  return stale;
}

/**
 * Asks each feed source of a background cache now, without waiting for the answers: the service does this before
 * its first build and waits a bounded while for `cache.settled()`, so its first files already compete.
 */
export async function startFeedFetches(sources: readonly SourceConfig[], deps: FetchDeps): Promise<void> {
  const feeds = sources.filter((source) => sourceDefinition(source.type)?.feed !== undefined);
  if (feeds.length > 0 && deps.cache?.background) await fetchQuotes(feeds, deps);
}

/**
 * Fetch all sources concurrently; a failing source is reported, never thrown, so the others still count. `withStale`,
 * only when a quote was too old to use: the book as it would be with those quotes, to tell which directions only a
 * stale quote would price (they are held back as `stale`, never priced from it).
 */
export async function fetchQuotes(
  sources: readonly SourceConfig[],
  deps: FetchDeps,
  rates: readonly RateRule[] = [],
): Promise<{
  book: QuoteBook;
  withStale?: QuoteBook;
  /** How each pair of `rates:` was made this build, in their order. */
  derivations: Derivation[];
  /** Every source's fresh quotes (and failure) the book was made of, in config order: the reference reads the rest. */
  lists: SourceQuotes[];
  reports: SourceReport[];
  feeds: ReadonlyMap<string, SourceFeed>;
}> {
  const results = await Promise.all(sources.map((source) => fetchSource(source, deps)));
  const all = results.map((result) => result.quotes);
  const stale = deps.dropStale ? results.map((result, index) => dropStale(sources[index]!, result, deps)) : [];
  const lists = (quotes: (index: number) => readonly Quote[], withStale: boolean): SourceQuotes[] =>
    sources.map((source, index) => {
      const { error } = results[index]!.report;
      const old = withStale ? [] : (stale[index] ?? []);
      return {
        source: source.name,
        quotes: quotes(index),
        ...(old.length > 0 ? { stale: old } : {}),
        ...(error === undefined ? {} : { error }),
      };
    });
  const now = deps.now();
  const fresh = lists((index) => results[index]!.quotes, false);
  const { book, derivations } = makeBook(fresh, rates, now);
  const staleCount = stale.reduce((sum, list) => sum + list.length, 0);
  // Feed sources' results by source name (for `compete:`); a failing feed without a stand-in is absent.
  const feeds = new Map(
    sources.flatMap((source, index) => {
      const feed = results[index]?.feed;
      return feed ? [[source.name, feed] as const] : [];
    }),
  );
  return {
    book,
    ...(staleCount > 0
      ? {
          withStale: makeBook(
            lists((index) => all[index]!, true),
            rates,
            now,
          ).book,
        }
      : {}),
    derivations,
    lists: fresh,
    reports: results.map((result) => result.report),
    feeds,
  };
}
