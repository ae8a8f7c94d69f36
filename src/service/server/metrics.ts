// Prometheus metrics of `ratefile start` (prom-client, one registry per service): builds, phases, directions,
// sources, the references (reference-metrics.ts), exports, HTTP requests and the health level, served at /metrics.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CycleResult } from '../../io/build/cycle.js';
import { assessHealth } from '../../pure/status/health.js';
import type { HealthLevel } from '../../model/config.js';
import type { BuildReport, Status } from '../../pure/status/report.js';
import { redactSecrets } from '../../base/secrets.js';
import { recordReferences, referenceInstruments } from './reference-metrics.js';
import { recordStreams, streamInstruments } from './stream-metrics.js';

const levels: readonly HealthLevel[] = ['ok', 'degraded', 'failing'];

export interface Metrics {
  registry: Registry;
  /** After a build that published: everything it reports. */
  recordBuild(cycle: CycleResult, changedAt: ReadonlyMap<string, Date>): void;
  recordFailedBuild(durationMs: number): void;
  /** One answered request; `route` is a known path or `other`, so the label set stays small. */
  recordRequest(route: string, status: number): void;
  /** The /metrics route. */
  route(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

/** `status` is read at each scrape, so the health level follows the clock between builds. */
export function createMetrics(status: () => Status | undefined, now: () => Date): Metrics {
  const registry = new Registry();
  const registers = [registry];
  // Registered in this order, which is the order /metrics lists them in.
  const instruments = {
    ...buildInstruments(registers),
    ...sourceInstruments(registers),
    ...exportInstruments(registers),
    ...listingInstruments(registers),
    ...referenceInstruments(registers),
    ...streamInstruments(registers),
    requests: new Counter({
      name: 'ratefile_http_requests_total',
      help: 'HTTP requests answered, by route and status.',
      labelNames: ['route', 'status'],
      registers,
    }),
  };
  stateGauges(registers, status, now);
  return {
    registry,
    recordBuild: (cycle, changedAt) => recordBuild(instruments, cycle, changedAt),
    recordFailedBuild(durationMs) {
      instruments.builds.inc();
      instruments.failed.inc();
      instruments.duration.observe({ phase: 'build' }, durationMs / 1000);
    },
    recordRequest(route, status) {
      instruments.requests.inc({ route: redactSecrets(route), status: String(status) });
    },
    async route(request, response) {
      const text = await registry.metrics();
      response.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-cache' });
      response.end(request.method === 'HEAD' ? undefined : text);
    },
  };
}

type Registers = Registry[];

function buildInstruments(registers: Registers) {
  return {
    builds: new Counter({ name: 'ratefile_builds_total', help: 'Builds run, successful or not.', registers }),
    failed: new Counter({
      name: 'ratefile_builds_failed_total',
      help: 'Builds that failed (the last good files stayed).',
      registers,
    }),
    duration: new Histogram({
      name: 'ratefile_build_duration_seconds',
      help: 'Build duration by phase: fetch, price, render, publish, and the whole build.',
      labelNames: ['phase'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    published: new Gauge({
      name: 'ratefile_directions_published',
      help: 'Directions published by the last build.',
      registers,
    }),
    withheld: new Gauge({
      name: 'ratefile_directions_withheld',
      help: 'Directions held back by the last build, by reason kind.',
      labelNames: ['reason'],
      registers,
    }),
  };
}

function sourceInstruments(registers: Registers) {
  return {
    sourceFailing: new Gauge({
      name: 'ratefile_source_failing',
      help: '1 when the source failed in the last build.',
      labelNames: ['source'],
      registers,
    }),
    sourceSuccess: new Gauge({
      name: 'ratefile_source_last_success_timestamp_seconds',
      help: 'When the source last answered with quotes.',
      labelNames: ['source'],
      registers,
    }),
    quoteAge: new Gauge({
      name: 'ratefile_source_quote_age_seconds',
      help: 'Age of the oldest quote of the source used by a published direction.',
      labelNames: ['source'],
      registers,
    }),
    rateSpread: new Gauge({
      name: 'ratefile_rate_spread_ratio',
      help: 'A consensus pair of rates: (highest mid - lowest mid) / median mid of its fresh terms in the last build.',
      labelNames: ['pair'],
      registers,
    }),
    rateMissing: new Gauge({
      name: 'ratefile_rate_missing',
      help: 'A pair of rates: 1 when the last build could not make it (quorum, spread or a missing quote).',
      labelNames: ['pair'],
      registers,
    }),
    rateTerms: new Gauge({
      name: 'ratefile_rate_terms',
      help: 'A consensus pair of rates: its terms in the last build, by state (used, dropped, missing, unused).',
      labelNames: ['pair', 'state'],
      registers,
    }),
  };
}

function exportInstruments(registers: Registers) {
  return {
    exportItems: new Gauge({
      name: 'ratefile_export_items',
      help: 'Items in the export file.',
      labelNames: ['file'],
      registers,
    }),
    exportBytes: new Gauge({
      name: 'ratefile_export_bytes',
      help: 'Size of the export file.',
      labelNames: ['file'],
      registers,
    }),
    exportChanged: new Gauge({
      name: 'ratefile_export_last_change_timestamp_seconds',
      help: 'When the export file last changed.',
      labelNames: ['file'],
      registers,
    }),
  };
}

/**
 * The monitor's view of us (docs/compete.md): how long BestChange takes to show a new rate, and how many
 * competing directions it lists other than published.
 */
function listingInstruments(registers: Registers) {
  return {
    listingLag: new Histogram({
      name: 'ratefile_listing_lag_seconds',
      help: 'Seconds from publishing a rate to the first BestChange feed that showed it (self:).',
      buckets: [15, 30, 60, 120, 300, 600, 1800],
      registers,
    }),
    listingLast: new Gauge({
      name: 'ratefile_listing_last_lag_seconds',
      help: 'The last lag measured per competing direction (self:).',
      labelNames: ['direction'],
      registers,
    }),
    listingStates: new Gauge({
      name: 'ratefile_listing_directions',
      help: 'Competing directions by how BestChange lists them: same, lagging, differs, missing, unpublished.',
      labelNames: ['state'],
      registers,
    }),
  };
}

/** The health level and the ha role, read from the status at each scrape. */
function stateGauges(registers: Registers, status: () => Status | undefined, now: () => Date): void {
  new Gauge({
    name: 'ratefile_health',
    help: 'Health level: 1 for the current level (ok, degraded, failing), 0 for the others.',
    labelNames: ['level'],
    registers,
    collect() {
      const { level } = assessHealth(status(), now());
      for (const each of levels) this.set({ level: each }, each === level ? 1 : 0);
    },
  });
  new Gauge({
    name: 'ratefile_ha_leader',
    help: 'With ha: 1 while this instance holds the lock and publishes, 0 while standby; `holder` names the publisher.',
    labelNames: ['instance', 'holder'],
    registers,
    collect() {
      this.reset();
      const ha = status()?.ha;
      if (ha) this.set({ instance: ha.instance, holder: ha.holder ?? '' }, ha.role === 'leader' ? 1 : 0);
    },
  });
}

type Instruments = ReturnType<typeof buildInstruments> &
  ReturnType<typeof referenceInstruments> &
  ReturnType<typeof sourceInstruments> &
  ReturnType<typeof exportInstruments> &
  ReturnType<typeof listingInstruments> &
  ReturnType<typeof streamInstruments>;

function recordBuild(m: Instruments, cycle: CycleResult, changedAt: ReadonlyMap<string, Date>): void {
  const { report, files } = cycle.build;
  m.builds.inc();
  m.duration.observe({ phase: 'fetch' }, report.timings.fetchMs / 1000);
  m.duration.observe({ phase: 'price' }, report.timings.priceMs / 1000);
  m.duration.observe({ phase: 'render' }, report.timings.renderMs / 1000);
  m.duration.observe({ phase: 'publish' }, cycle.publishMs / 1000);
  m.duration.observe({ phase: 'build' }, cycle.durationMs / 1000);
  // Directions, each counted once (a direction left out of some exports only is published).
  const { directions } = report;
  m.published.set(directions.published.length);
  // Reset first: a kind no longer seen must read 0, not its last count.
  m.withheld.reset();
  for (const kind of new Set(directions.withheld.map((w) => w.kind)))
    m.withheld.set({ reason: kind }, directions.withheld.filter((w) => w.kind === kind).length);
  for (const source of cycle.status.sources) {
    m.sourceFailing.set({ source: source.name }, source.ok ? 0 : 1);
    if (source.lastSuccessAt !== undefined)
      m.sourceSuccess.set({ source: source.name }, Date.parse(source.lastSuccessAt) / 1000);
    if (source.oldestQuoteAgeSeconds !== undefined)
      m.quoteAge.set({ source: source.name }, source.oldestQuoteAgeSeconds);
    else m.quoteAge.remove({ source: source.name });
  }
  recordRates(m, cycle.status.rates ?? []);
  recordReferences(m, report.soleSource ?? []);
  recordStreams(m, cycle.status);
  for (const entry of report.exports) m.exportItems.set({ file: redactSecrets(entry.file) }, entry.items);
  for (const file of files) m.exportBytes.set({ file: redactSecrets(file.file) }, file.bytes.length);
  if (report.listing) recordListing(m, report.listing);
  for (const [file, at] of changedAt) m.exportChanged.set({ file: redactSecrets(file) }, at.getTime() / 1000);
}

/** Reset first: a pair taken out of the config must not keep its last reading. */
function recordRates(m: Instruments, rates: NonNullable<Status['rates']>): void {
  m.rateSpread.reset();
  m.rateMissing.reset();
  m.rateTerms.reset();
  for (const rate of rates) {
    m.rateMissing.set({ pair: rate.pair }, rate.ok ? 0 : 1);
    if (rate.spread !== undefined) m.rateSpread.set({ pair: rate.pair }, rate.spread);
    if (rate.made === 'formula') continue;
    for (const state of ['used', 'dropped', 'missing', 'unused'] as const)
      m.rateTerms.set({ pair: rate.pair, state }, rate.terms.filter((term) => term.status === state).length);
  }
}

function recordListing(m: Instruments, listing: NonNullable<BuildReport['listing']>): void {
  for (const lag of listing.lags) m.listingLag.observe(lag);
  m.listingLast.reset();
  m.listingStates.reset();
  for (const state of ['same', 'lagging', 'differs', 'missing', 'unpublished'])
    m.listingStates.set({ state }, listing.views.filter((view) => view.state === state).length);
  for (const view of listing.views)
    if (view.lagSeconds !== undefined)
      m.listingLast.set({ direction: view.city ? `${view.direction}@${view.city}` : view.direction }, view.lagSeconds);
}
