// build: fetch quotes and reserves, then pauses → back-office switches → reserves → price → compete → reference → guards →
// select and render each export in turn, returning files before anything is written. docs/pipeline.md describes each step (and cycle.ts's).
import {
  emptyGuardState,
  guardDirections,
  staleHold,
  type GuardInput,
  type GuardResult,
  type GuardState,
  type LastRate,
} from '../../pure/guards/guards.js';
import { referenceDirections, type RivalFeed } from '../../pure/guards/reference.js';
import type { Config, OutputFile } from '../../model/config.js';
import { priceDirections } from '../../pure/pricing/price.js';
import { fetchQuotes, type QuoteCache } from '../quotes/quotes.js';
import { sourceMaxAgeMs } from '../quotes/source-options.js';
import { applyPauses, type Pause } from '../../pure/pause/switches.js';
import { applyReserves } from '../../pure/reserves/apply.js';
import { applySwitches } from '../../pure/reserves/switches.js';
import { fetchReserves, type ReserveCache } from '../reserves/fetch.js';
import { competeDirections, type FeedState } from '../../pure/compete/price.js';
import type { WarMemory } from '../../pure/compete/war.js';
import type { ListingMemory } from '../../pure/compete/listing.js';
import { listingOf } from '../../pure/compete/listing-input.js';
import { bestChangeFeed } from '../sources/bestchange.js';
import type { SourceFeed } from '../../model/source.js';
import type { Yardstick } from '../../pure/sources/scale.js';
import { registerConfigSecrets } from '../../base/secrets.js';
import type { BuildReport, SourceReport } from '../../pure/status/report.js';
import type { WithheldDirection } from '../../model/priced.js';
import { byIndex, renderExports, tally } from './render.js';

/** What the guards remember between builds, and the operator's flags; read and written by the caller. */
export interface GuardContext {
  state: GuardState;
  accepted: ReadonlySet<string>;
  /** On: every export is published empty. */
  maintenance: boolean;
  /** Directions (or cities) paused with `ratefile pause`; absent: none. */
  pauses?: readonly Pause[];
  /** The competing directions' memory of moves and wars (src/pure/compete/war.ts); absent: none yet. */
  wars?: Readonly<WarMemory>;
  /** The published rates BestChange's listing of us is compared with (src/pure/compete/listing.ts); absent: none yet. */
  listing?: Readonly<ListingMemory>;
  /**
   * The rates the export files on disk publish (src/io/state/last-exports.ts), read only when a priced direction has
   * no last published rate in `state` and no independent reference: its first rate is then bounded by them.
   */
  lastExports?: () => Promise<ReadonlyMap<string, LastRate>>;
  /** Each quote source's last accepted answer, updated by this build (src/pure/sources/scale.ts); absent: not checked. */
  yardsticks?: Map<string, Yardstick>;
}

export interface BuildDeps {
  /** The clock, read once per build. */
  now: () => Date;
  fetch?: typeof globalThis.fetch;
  signal?: AbortSignal;
  /** Absent: no last published rates, nothing accepted, maintenance as the config says. */
  guard?: GuardContext;
  /** Environment for sources (RATEFILE_<TYPE>_URL, API keys); default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Last good quotes kept across builds (the service's); absent: every source is asked. */
  quoteCache?: QuoteCache;
  /** Last good back-office reserves kept across builds (the service's); absent: every reserve source is read. */
  reserveCache?: ReserveCache;
  /**
   * Told of each export as soon as its bytes exist, before the next one renders (the cycle starts compressing
   * it); the result still returns every file, and nothing here writes or waits.
   */
  onFile?: (file: OutputFile) => void;
}

export interface BuildResult {
  files: OutputFile[];
  report: BuildReport;
  /** The directions held back before the exports (the report's `withheld` adds those left out of one export alone). */
  before?: readonly WithheldDirection[];
}

/** The codes of every BestChange feed read, as one set; nothing when no feed was read. */
function liveCodes(feeds: Iterable<SourceFeed>): { liveCodes?: ReadonlySet<string> } {
  const codes = [...feeds].flatMap((feed) => [...(bestChangeFeed(feed)?.currencies ?? [])]);
  return codes.length === 0 ? {} : { liveCodes: new Set(codes) };
}

export async function build(config: Config, deps: BuildDeps): Promise<BuildResult> {
  const startedAt = deps.now();
  const t0 = performance.now();
  // Before any source is asked: an answer quoting a credential is redacted wherever its text goes.
  registerConfigSecrets(config, deps.env ?? process.env);
  const guard = deps.guard ?? {
    state: emptyGuardState(),
    accepted: new Set<string>(),
    maintenance: config.maintenance,
  };
  if (guard.maintenance || config.maintenance) return buildEmpty(config, guard, deps, startedAt, t0);
  const fetched = await fetchInputs(config, deps, startedAt, guard.yardsticks);
  const t1 = performance.now();
  const steps = await priceSteps(config, guard, fetched, startedAt);
  const t2 = performance.now();
  const rendered = renderExports(config, steps.guarded.published, deps.onFile);
  const { withheld, directions } = tally(config, steps.guarded.published, steps.before, rendered.leftOut);
  const listing = listingOf(config, steps.feeds, directions, guard.listing ?? {}, startedAt);
  const t3 = performance.now();
  return {
    files: rendered.files,
    before: steps.before,
    report: {
      startedAt,
      maintenance: false,
      sources: fetched.quotes.reports,
      rates: fetched.quotes.derivations,
      reserves: fetched.reserves.reports,
      priced: steps.guarded.published,
      checked: steps.referenced.checked,
      soleSource: steps.referenced.soleSource,
      book: fetched.quotes.book,
      withheld,
      directions,
      competition: steps.competed.details,
      exports: rendered.exports,
      guardState: steps.guarded.state,
      warMemory: steps.competed.memory,
      ...(listing ? { listing: { views: listing.views, lags: listing.lags }, listingMemory: listing.memory } : {}),
      acceptedUsed: steps.guarded.acceptedUsed,
      timings: { fetchMs: t1 - t0, priceMs: t2 - t1, renderMs: t3 - t2 },
      ...liveCodes(fetched.quotes.feeds.values()),
    },
  };
}

/**
 * Maintenance: nothing is fetched, priced or competed, and every export is published empty; the guard state and
 * the memories of wars and of the listing are kept as they were.
 */
function buildEmpty(
  config: Config,
  guard: GuardContext,
  deps: Pick<BuildDeps, 'onFile'>,
  startedAt: Date,
  t0: number,
): BuildResult {
  const t1 = performance.now();
  const rendered = renderExports(config, [], deps.onFile);
  const { withheld, directions } = tally(config, [], [], rendered.leftOut);
  const t3 = performance.now();
  return {
    files: rendered.files,
    report: {
      startedAt,
      maintenance: true,
      sources: [],
      rates: [],
      reserves: [],
      priced: [],
      withheld,
      directions,
      competition: new Map(),
      exports: rendered.exports,
      guardState: guard.state,
      ...(guard.wars ? { warMemory: { ...guard.wars } } : {}),
      ...(guard.listing ? { listingMemory: { ...guard.listing } } : {}),
      acceptedUsed: [],
      timings: { fetchMs: t1 - t0, priceMs: 0, renderMs: t3 - t1 },
    },
  };
}

type Fetched = Awaited<ReturnType<typeof fetchInputs>>;

/** Quotes and back-office reserves, read together before pricing (which stays pure). */
async function fetchInputs(config: Config, deps: BuildDeps, startedAt: Date, yardsticks?: Map<string, Yardstick>) {
  const io = {
    configDir: config.dir,
    fetch: deps.fetch ?? globalThis.fetch,
    userAgent: config.userAgent,
    now: () => startedAt,
    ...(deps.signal ? { signal: deps.signal } : {}),
    env: deps.env ?? process.env,
    schedulePeriodMs: config.schedulePeriodMs,
  };
  const [quotes, reserves] = await Promise.all([
    fetchQuotes(
      config.sources,
      {
        ...io,
        dropStale: true,
        ...(deps.quoteCache ? { cache: deps.quoteCache } : {}),
        ...(yardsticks ? { yardsticks } : {}),
      },
      config.rates,
    ),
    fetchReserves(config.reserveSources, { ...io, ...(deps.reserveCache ? { cache: deps.reserveCache } : {}) }),
  ]);
  return { quotes, reserves };
}

/** pause → switches → reserves → price → compete → reference → guard; `before`: every direction held back on the way, in config order. */
async function priceSteps(config: Config, guard: GuardContext, { quotes, reserves }: Fetched, startedAt: Date) {
  const { book, withStale, reports, feeds } = quotes;
  // Paused directions are taken out before pricing: withheld on purpose, not for a fault.
  const switched = applyPauses(config.directions, guard.pauses ?? [], startedAt);
  // The back office's on/off switch and labels (`switchesFrom:`); unreadable past its maxAge: withheld.
  const labelled = applySwitches(switched.directions, reserves.book);
  // A reserve that could not be read withholds the direction; it is never replaced by the configured number.
  const reserved = applyReserves(labelled.directions, reserves.book);
  const { priced: margined, withheld: unpriced } = priceDirections(reserved.directions, book);
  const maxAge = new Map(
    config.sources.map((source) => [source.name, sourceMaxAgeMs(source, config.schedulePeriodMs)]),
  );
  const feedsInUse = feedStates(config, feeds, reports, maxAge, startedAt);
  // Competing directions take their rate from the field before the guards, so jumps, limits and rounding apply to it.
  const competed = competeDirections({
    priced: margined,
    book,
    feeds: feedsInUse,
    now: startedAt,
    ...(guard.wars ? { memory: guard.wars } : {}),
  });
  // One source alone setting a market is checked against what else the build tells of it, before the jump guard.
  const referenced = referenceDirections({
    priced: competed.priced,
    lists: quotes.lists,
    derivations: quotes.derivations,
    book,
    feeds: rivalFeeds(config, feedsInUse),
    settings: config.reference,
  });
  const guarded = await guardFirstRates(guard, {
    priced: referenced.priced,
    now: startedAt,
    state: guard.state,
    accepted: guard.accepted,
    guards: config.guards,
    maxAgeMs: (source) => maxAge.get(source),
  });
  const failing = reports.filter((report) => !report.ok).map((report) => report.name);
  const explain = (w: WithheldDirection) =>
    failing.length === 0 ? w : { ...w, reason: `${w.reason} (failing sources: ${failing.join(', ')})` };
  // A direction no fresh quotes price, which a stale one would: held back for that quote (kind `stale`).
  const unpricedWhy = (w: WithheldDirection) =>
    (withStale && staleHold(w, withStale, startedAt, (source) => maxAge.get(source))) || explain(w);
  const before = [
    ...switched.withheld,
    ...labelled.withheld,
    ...reserved.withheld,
    ...unpriced.map(unpricedWhy),
    ...competed.withheld,
    ...referenced.withheld,
    ...guarded.withheld,
  ].sort(byIndex);
  return { competed, referenced, guarded, before, feeds: feedsInUse };
}

/**
 * The guards, and again with the rates the export files on disk publish when they would publish a first rate (a
 * direction with no last published rate and no reference to decide it): read only then, so once per new direction.
 */
async function guardFirstRates(guard: GuardContext, input: GuardInput): Promise<GuardResult> {
  const guarded = guardDirections(input);
  const { published } = input.state;
  const first = guarded.published.some((p) => p.reference === undefined && !Object.hasOwn(published, p.direction.id));
  if (!first || !guard.lastExports) return guarded;
  const lastExports = await guard.lastExports();
  return lastExports.size === 0 ? guarded : guardDirections({ ...input, lastExports });
}

/** Each bestchange source's feed as the compete step needs it: the feed in use, its age and its limit. */
function feedStates(
  config: Config,
  feeds: ReadonlyMap<string, SourceFeed>,
  reports: readonly SourceReport[],
  maxAge: ReadonlyMap<string, number | undefined>,
  now: Date,
): Map<string, FeedState> {
  const states = new Map<string, FeedState>();
  for (const source of config.sources) {
    if (source.type !== 'bestchange') continue;
    const report = reports.find((r) => r.name === source.name);
    const feed = bestChangeFeed(feeds.get(source.name));
    const limit = maxAge.get(source.name);
    states.set(source.name, {
      ...(feed ? { feed } : {}),
      ...(report?.fetchedAt
        ? {
            ageSeconds: Math.round((now.getTime() - report.fetchedAt.getTime()) / 1000),
            fetchedAt: report.fetchedAt,
          }
        : {}),
      ...(limit === undefined || !Number.isFinite(limit) ? {} : { maxAgeSeconds: Math.round(limit / 1000) }),
      ...(report?.error ? { error: report.error } : {}),
    });
  }
  // A v2 source with no usable data: its `fallback` (an info.zip source) stands in, ranked by the bare rate.
  for (const source of config.sources) {
    const fallback = source.options.fallback;
    const own = states.get(source.name);
    const stand = typeof fallback === 'string' ? states.get(fallback) : undefined;
    if (!own || !stand?.feed || (own.feed && !tooOld(own))) continue;
    if (tooOld(stand)) continue;
    const why = own.feed ? `is ${own.ageSeconds ?? '?'} s old` : `has no data${own.error ? `: ${own.error}` : ''}`;
    states.set(source.name, { ...stand, standIn: `${String(fallback)} (info.zip) stands in: ${source.name} ${why}` });
  }
  return states;
}

/** The bestchange sources as the reference reads them: the feed each build used, and our own ids (`self:`). */
function rivalFeeds(config: Config, states: ReadonlyMap<string, FeedState>): RivalFeed[] {
  return config.sources.flatMap((source) => {
    if (source.type !== 'bestchange') return [];
    const self = source.options.self;
    const ids = typeof self === 'number' ? [self] : Array.isArray(self) ? (self as number[]) : [];
    return [{ name: source.name, state: states.get(source.name) ?? {}, self: new Set(ids) }];
  });
}

const tooOld = (state: FeedState) =>
  state.ageSeconds !== undefined && state.maxAgeSeconds !== undefined && state.ageSeconds > state.maxAgeSeconds;
