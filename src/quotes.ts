// fetchQuotes: ask every configured source at once and gather their checked quotes into one quote book;
// a QuoteCache (quote-cache.ts) kept by the long-running service reuses quotes within each source's refresh interval
// and fetches feeds beside the builds.
import { parseDecimal } from './decimal.js';
import { describeError, RatefileError } from './errors.js';
import type { SourceConfig } from './model.js';
import { SourceError, baseUrlVariable } from './sources/http.js';
import { sourceDefinition } from './sources/index.js';
import type { Quote, QuoteBook, RawQuote, SourceContext, SourceDefinition, SourceFeed } from './sources/source.js';
import type { SourceReport } from './report.js';
import { priceLengthProblem, shown } from './sources/values.js';
import { QuoteCache, type CacheEntry } from './quote-cache.js';

export { QuoteCache };

export interface FetchDeps {
  configDir: string;
  fetch: typeof globalThis.fetch;
  now: () => Date;
  signal?: AbortSignal;
  /** Environment for base URL overrides and keys; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  cache?: QuoteCache;
  /** The config's schedule period, for default max ages; default 30 s. */
  schedulePeriodMs?: number;
  sleep?: SourceContext['sleep'];
  /** Take quotes past their source's maxAge out of the book (what a build prices on); default: every checked quote is in it. */
  dropStale?: boolean;
}

/** Check one quote: a BASE/QUOTE pair, positive prices, bid not above ask. Returns the reason it is unusable, if it is. */
export function checkQuote(raw: RawQuote, source: string): Quote | string {
  const [base, quote] = raw.pair.split('/');
  if (!base || !quote || base === quote) return `${raw.pair}: expected a pair like BTC/USDT`;
  // Bounded before parsing: a megabyte of digits is a broken feed, not a price.
  for (const [side, text] of [['bid', raw.bid], ['ask', raw.ask]] as const) {
    const tooLong = priceLengthProblem(text);
    if (tooLong) return `${raw.pair}: ${side} ${tooLong}: ${shown(text)}`;
  }
  const bid = parseDecimal(raw.bid);
  const ask = parseDecimal(raw.ask);
  if (!bid || !bid.isPositive() || bid.isZero()) return `${raw.pair}: bid ${JSON.stringify(raw.bid)} is not a positive decimal`;
  if (!ask || !ask.isPositive() || ask.isZero()) return `${raw.pair}: ask ${JSON.stringify(raw.ask)} is not a positive decimal`;
  if (bid.greaterThan(ask)) return `${raw.pair}: bid ${raw.bid} is above ask ${raw.ask}`;
  if (Number.isNaN(raw.time.getTime())) return `${raw.pair}: time is not a valid date`;
  return { pair: `${base}/${quote}`, base, quote, bid, ask, time: raw.time, source };
}

const numberOption = (source: SourceConfig, key: string): number | undefined => {
  const value = source.options[key];
  return typeof value === 'number' ? value : undefined;
};

export const sourcePriority = (source: SourceConfig): number => numberOption(source, 'priority') ?? 0;

/** How long quotes are reused before the source is asked again (0: every build). */
export function sourceRefreshMs(source: SourceConfig): number {
  return numberOption(source, 'refresh') ?? sourceDefinition(source.type)?.defaultRefreshMs ?? 0;
}

/**
 * The age above which a source's quotes are not used: its `maxAge`, else twice its refresh interval or
 * the schedule period, whichever is longer; undefined for `maxAge: off` (no limit).
 */
export function sourceMaxAgeMs(source: SourceConfig, schedulePeriodMs = 30_000): number | undefined {
  const configured = numberOption(source, 'maxAge');
  if (configured !== undefined) return Number.isFinite(configured) ? configured : undefined;
  return 2 * Math.max(sourceRefreshMs(source), schedulePeriodMs);
}

function fingerprint(source: SourceConfig, env: FetchDeps['env']): string {
  return JSON.stringify([source.type, source.options, env?.[baseUrlVariable(source.type)] ?? null]);
}

/** A thrown error as one line, with a RatefileError's details after a colon: a source's failure as logged. */
export function errorText(error: unknown): string {
  const details = error instanceof RatefileError && error.details.length > 0 ? `: ${error.details.join('; ')}` : '';
  return describeError(error) + details;
}

/** What a source (of quotes or of reserves) is given to fetch with. */
export function sourceContext(name: string, deps: Pick<FetchDeps, 'configDir' | 'fetch' | 'signal' | 'now' | 'env' | 'sleep'>): SourceContext {
  return {
    name,
    configDir: deps.configDir,
    fetch: deps.fetch,
    signal: deps.signal ?? new AbortController().signal,
    now: deps.now,
    env: deps.env ?? process.env,
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
  };
}

async function askSource(
  source: SourceConfig,
  definition: SourceDefinition<{ type: string }>,
  deps: FetchDeps,
  previous: SourceFeed | undefined,
  previousStale = false,
): Promise<{ quotes: Quote[]; rejected: string[]; feed?: SourceFeed }> {
  const context: SourceContext = { ...sourceContext(source.name, deps), ...(previous ? { previous } : {}), ...(previousStale ? { previousStale } : {}) };
  const result = await definition.fetchQuotes(source.options, context);
  const { quotes: raws, problems, feed } = Array.isArray(result) ? { quotes: result, problems: [], feed: undefined } : result;
  const priority = sourcePriority(source);
  const quotes: Quote[] = [];
  const rejected = [...problems];
  for (const raw of raws) {
    const checked = checkQuote(raw, source.name);
    if (typeof checked === 'string') rejected.push(checked);
    else quotes.push(priority === 0 ? checked : { ...checked, priority });
  }
  return feed ? { quotes, rejected, feed } : { quotes, rejected };
}

function quoteTimes(quotes: readonly Quote[]): Pick<SourceReport, 'quoteTimes'> {
  if (quotes.length === 0) return {};
  let [oldest, newest] = [Infinity, -Infinity];
  for (const quote of quotes) [oldest, newest] = [Math.min(oldest, quote.time.getTime()), Math.max(newest, quote.time.getTime())];
  return { quoteTimes: { oldest: new Date(oldest), newest: new Date(newest) } };
}

const clock = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** What one fetch of a feed source left: the feed, or why it failed and when to ask again. */
type FeedOutcome = { feed: SourceFeed; rejected: string[] } | { failure: string; notBefore: number };

/**
 * Ask a feed source once; never throws. A failure is asked again only after the source's refresh (BestChange
 * asks for one fetch per refresh, failing or not), or later when its Retry-After says so.
 */
async function askFeed(source: SourceConfig, definition: SourceDefinition<{ type: string }>, deps: FetchDeps, entry: CacheEntry | undefined, now: number): Promise<FeedOutcome> {
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
function keepFeed(cache: QuoteCache, name: string, key: string, entry: CacheEntry | undefined, outcome: FeedOutcome, now: number): void {
  if ('feed' in outcome) cache.entries.set(name, { fingerprint: key, quotes: [], rejected: outcome.rejected, feed: outcome.feed, fetchedAt: now });
  else cache.entries.set(name, { ...(entry ?? { fingerprint: key, quotes: [], rejected: [], fetchedAt: 0 }), failure: outcome.failure, notBefore: outcome.notBefore });
}

/** Start fetching a feed beside the builds (the service's cache); its outcome lands in the cache for a later build. */
function fetchInBackground(cache: QuoteCache, source: SourceConfig, definition: SourceDefinition<{ type: string }>, deps: FetchDeps, key: string, entry: CacheEntry | undefined, now: number) {
  // Not the build's signal: the fetch outlives the build that started it; closing the cache ends it.
  const done = askFeed(source, definition, { ...deps, signal: cache.signal }, entry, now)
    .then((outcome) => {
      keepFeed(cache, source.name, key, entry, outcome, now);
      // Builds only say a fetch is under way; how it failed is told here, once per fetch.
      if ('failure' in outcome && !cache.signal.aborted) cache.onFeedFailure?.(outcome.failure, new Date(outcome.notBefore));
    })
    .finally(() => cache.fetching.delete(source.name));
  const fetching = { since: now, done };
  cache.fetching.set(source.name, fetching);
  return fetching;
}

async function fetchSource(source: SourceConfig, deps: FetchDeps): Promise<{ report: SourceReport; quotes: Quote[]; feed?: SourceFeed }> {
  const report: SourceReport = { name: source.name, type: source.type, ok: false, quotes: 0, rejected: [] };
  const now = deps.now().getTime();
  const key = fingerprint(source, deps.env ?? process.env);
  const cached = deps.cache?.entries.get(source.name);
  const entry = cached?.fingerprint === key ? cached : undefined;
  const maxAge = sourceMaxAgeMs(source, deps.schedulePeriodMs);
  const use = (quotes: Quote[], rejected: string[], fetchedAt: number, reused?: SourceReport['reused'], feed?: SourceFeed) => {
    Object.assign(report, { quotes: quotes.length, rejected, fetchedAt: new Date(fetchedAt) }, reused ? { reused } : {}, feed ? { rows: feed.rows } : {}, quoteTimes(quotes));
    return feed ? { report, quotes, feed } : { report, quotes };
  };

  if (entry && now - entry.fetchedAt < sourceRefreshMs(source) && (entry.quotes.length > 0 || entry.feed)) {
    report.ok = true;
    return use(entry.quotes, entry.rejected, entry.fetchedAt, 'refresh', entry.feed);
  }
  const definition = sourceDefinition(source.type);
  let failure: string;
  if (!definition) {
    failure = `${source.name}: unknown source type ${source.type}`;
  } else if (entry?.notBefore !== undefined && now < entry.notBefore) {
    failure = entry.failure !== undefined
      ? `${entry.failure}; next try after ${clock(entry.notBefore)}`
      : `${source.name}: not asked again before ${clock(entry.notBefore)}, as its last answer (Retry-After) asked`;
  } else if (definition.feed && deps.cache?.background) {
    // Beside the build, never in its way: a feed host that hangs must not hold the schedule.
    const fetching = deps.cache.fetching.get(source.name) ?? fetchInBackground(deps.cache, source, definition, deps, key, entry, now);
    if (entry?.feed && entry.failure === undefined && (maxAge === undefined || now - entry.fetchedAt <= maxAge)) {
      report.ok = true;
      return use([], entry.rejected, entry.fetchedAt, 'refresh', entry.feed);
    }
    const since = clock(fetching.since);
    failure = entry?.failure === undefined ? `${source.name}: fetching its feed since ${since}, not waited for` : `${entry.failure}; asking again since ${since}, not waited for`;
  } else if (definition.feed) {
    const outcome = await askFeed(source, definition, deps, entry, now);
    if (deps.cache) keepFeed(deps.cache, source.name, key, entry, outcome, now);
    if ('feed' in outcome) {
      report.ok = true;
      return use([], outcome.rejected, now, undefined, outcome.feed);
    }
    failure = outcome.failure;
  } else {
    try {
      const { quotes, rejected } = await askSource(source, definition, deps, undefined);
      if (quotes.length === 0) {
        // A source none of whose quotes can be used has failed, whatever the reason for each pair.
        report.rejected = rejected;
        throw new RatefileError('E_SOURCE', rejected.length > 0 ? `${source.name}: none of its quotes is usable (${rejected.length} dropped)` : `${source.name}: sent no quotes`);
      }
      deps.cache?.entries.set(source.name, { fingerprint: key, quotes, rejected, fetchedAt: now });
      report.ok = true;
      return use(quotes, rejected, now);
    } catch (error) {
      failure = errorText(error);
      const notBefore = error instanceof SourceError && error.retryAfterMs !== undefined ? now + error.retryAfterMs : undefined;
      if (deps.cache && entry) deps.cache.entries.set(source.name, { ...entry, ...(notBefore === undefined ? {} : { notBefore }) });
      else if (deps.cache && notBefore !== undefined) deps.cache.entries.set(source.name, { fingerprint: key, quotes: [], rejected: [], fetchedAt: 0, notBefore });
    }
  }
  report.error = failure;
  // The last good quotes stand in while they are younger than the source's maxAge (a daily fixing does
  // not go wrong because one refetch failed); a source without a maxAge gets no stand-in.
  // A feed has no quote times: the last good one stands in while it was fetched within maxAge.
  if (entry?.feed && (maxAge === undefined || now - entry.fetchedAt <= maxAge)) {
    report.error = `${failure} (using its last good feed, fetched ${clock(entry.fetchedAt)})`;
    return use([], [], entry.fetchedAt, 'fallback', entry.feed);
  }
  if (entry && maxAge !== undefined) {
    const fresh = entry.quotes.filter((quote) => now - quote.time.getTime() <= maxAge);
    if (fresh.length > 0) {
      report.error = `${failure} (using its last good quotes, fetched ${clock(entry.fetchedAt)})`;
      return use(fresh, [], entry.fetchedAt, 'fallback');
    }
  }
  return { report, quotes: [] };
}

/** The pair as an unordered market, so `USDT/RUB` and `RUB/USDT` compete for one place in the book. */
const marketOf = (quote: Quote) => [quote.base, quote.quote].sort().join('/');

/** One quote per market (config order, so among equal priorities the source listed first keeps the market), by pair. */
function bookOf(quoteLists: readonly (readonly Quote[])[]): QuoteBook {
  const winners = new Map<string, Quote>();
  for (const quotes of quoteLists) {
    for (const quote of quotes) {
      const market = marketOf(quote);
      const held = winners.get(market);
      if (!held || (quote.priority ?? 0) > (held.priority ?? 0)) winners.set(market, quote);
    }
  }
  return new Map<string, Quote>([...winners.values()].map((quote) => [quote.pair, quote]));
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
  result.report.rejected = [...result.report.rejected, ...stale.map((quote) => `${quote.pair}: ${seconds(now - quote.time.getTime())} old, past its maxAge of ${seconds(limit)}: not used`)];
  result.report.staleDropped = stale.length;
  return stale;
}

/**
 * Fetch all sources concurrently; a failing source is reported, never thrown, so the others still count. `withStale`,
 * only when a quote was too old to use: the book as it would be with those quotes, to tell which directions only a
 * stale quote would price (they are held back as `stale`, never priced from it).
 */
/**
 * Asks each feed source of a background cache now, without waiting for the answers: the service does this before
 * its first build and waits a bounded while for `cache.settled()`, so its first files already compete.
 */
export async function startFeedFetches(sources: readonly SourceConfig[], deps: FetchDeps): Promise<void> {
  const feeds = sources.filter((source) => sourceDefinition(source.type)?.feed !== undefined);
  if (feeds.length > 0 && deps.cache?.background) await fetchQuotes(feeds, deps);
}

export async function fetchQuotes(
  sources: readonly SourceConfig[],
  deps: FetchDeps,
): Promise<{ book: QuoteBook; withStale?: QuoteBook; reports: SourceReport[]; feeds: ReadonlyMap<string, SourceFeed> }> {
  const results = await Promise.all(sources.map((source) => fetchSource(source, deps)));
  const all = results.map((result) => result.quotes);
  let stale = 0;
  if (deps.dropStale) results.forEach((result, index) => (stale += dropStale(sources[index]!, result, deps).length));
  const book = bookOf(results.map((result) => result.quotes));
  // Feed sources' results by source name (for `compete:`); a failing feed without a stand-in is absent.
  const feeds = new Map(sources.flatMap((source, index) => {
    const feed = results[index]?.feed;
    return feed ? [[source.name, feed] as const] : [];
  }));
  return { book, ...(stale > 0 ? { withStale: bookOf(all) } : {}), reports: results.map((result) => result.report), feeds };
}
