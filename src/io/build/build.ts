// build: fetch quotes and reserves, then pauses → back-office switches → reserves → price → compete → guards →
// select and render each export in turn, returning files before anything is written. docs/pipeline.md describes each step (and cycle.ts's).
import { emptyGuardState, guardDirections, staleHold, type GuardState } from '../../pure/guards/guards.js';
import type { Config, OutputFile } from '../../model/config.js';
import { priceDirections } from '../../pure/pricing/price.js';
import { fetchQuotes, type QuoteCache } from '../quotes/quotes.js';
import { sourceMaxAgeMs } from '../quotes/source-options.js';
import { exportWriter } from '../../pure/exports/renderers.js';
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
import { registerConfigSecrets } from '../../base/secrets.js';
import { tallyDirections } from '../../pure/status/tally.js';
import type { BuildReport, ExportLeftOut, SourceReport } from '../../pure/status/report.js';
import type { PricedDirection, WithheldDirection } from '../../model/priced.js';

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
  const fetched = await fetchInputs(config, deps, startedAt);
  const t1 = performance.now();
  const steps = priceSteps(config, guard, fetched, startedAt);
  const t2 = performance.now();
  const rendered = renderExports(config, steps.guarded.published, deps.onFile);
  const { withheld, directions } = tally(config, steps.guarded.published, steps.before, rendered.leftOut);
  const listing = listingOf(config, steps.feeds, directions, guard.listing ?? {}, startedAt);
  const t3 = performance.now();
  return {
    files: rendered.files,
    report: {
      startedAt,
      maintenance: false,
      sources: fetched.quotes.reports,
      rates: fetched.quotes.derivations,
      reserves: fetched.reserves.reports,
      priced: steps.guarded.published,
      withheld,
      directions,
      competition: steps.competed.details,
      exports: rendered.exports,
      guardState: steps.guarded.state,
      warMemory: steps.competed.memory,
      ...(listing ? { listing: { views: listing.views, lags: listing.lags }, listingMemory: listing.memory } : {}),
      acceptedUsed: steps.guarded.acceptedUsed,
      timings: { fetchMs: t1 - t0, priceMs: t2 - t1, renderMs: t3 - t2 },
      book: fetched.quotes.book,
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
async function fetchInputs(config: Config, deps: BuildDeps, startedAt: Date) {
  const io = {
    configDir: config.dir,
    fetch: deps.fetch ?? globalThis.fetch,
    now: () => startedAt,
    ...(deps.signal ? { signal: deps.signal } : {}),
    env: deps.env ?? process.env,
    schedulePeriodMs: config.schedulePeriodMs,
  };
  const [quotes, reserves] = await Promise.all([
    fetchQuotes(
      config.sources,
      { ...io, dropStale: true, ...(deps.quoteCache ? { cache: deps.quoteCache } : {}) },
      config.rates,
    ),
    fetchReserves(config.reserveSources, { ...io, ...(deps.reserveCache ? { cache: deps.reserveCache } : {}) }),
  ]);
  return { quotes, reserves };
}

/** pause → switches → reserves → price → compete → guard; `before`: every direction held back on the way, in config order. */
function priceSteps(config: Config, guard: GuardContext, { quotes, reserves }: Fetched, startedAt: Date) {
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
  const guarded = guardDirections({
    priced: competed.priced,
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
    ...guarded.withheld,
  ].sort(byIndex);
  return { competed, guarded, before, feeds: feedsInUse };
}

/** select and render: one export at a time, each export's text written and dropped before the next is selected. */
function renderExports(config: Config, published: readonly PricedDirection[], onFile: BuildDeps['onFile']) {
  const write = exportWriter(published, config.exports, config.directions);
  const files: OutputFile[] = [];
  const exports: BuildReport['exports'] = [];
  // A direction whose limits fail only at one export's rate (its markup) is left out of that export alone.
  const leftOut: ExportLeftOut[] = [];
  for (let index = 0; index < config.exports.length; index++) {
    const written = write(index);
    const file = { file: written.file, bytes: written.bytes };
    files.push(file);
    onFile?.(file);
    exports.push({
      name: written.name,
      file: written.file,
      items: written.items,
      ...(written.counted === undefined ? {} : { counted: written.counted }),
    });
    if (written.withheld.length > 0) leftOut.push({ file: written.file, withheld: written.withheld });
  }
  return { files, exports, leftOut };
}

/** Every withheld direction (one entry per export one is left out of alone), and each direction counted once. */
function tally(
  config: Config,
  published: readonly PricedDirection[],
  before: readonly WithheldDirection[],
  leftOut: readonly ExportLeftOut[],
) {
  const withheld = [...before, ...leftOut.flatMap((e) => e.withheld)].sort(byIndex);
  return { withheld, directions: tallyDirections(published, before, config.exports, leftOut) };
}

const byIndex = (a: WithheldDirection, b: WithheldDirection) => a.direction.index - b.direction.index;

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

const tooOld = (state: FeedState) =>
  state.ageSeconds !== undefined && state.maxAgeSeconds !== undefined && state.ageSeconds > state.maxAgeSeconds;
