// The status of the last build: what is published, what is held back and why, how each source is doing.
// Written to the state folder after every build; read by `ratefile status` and served at /healthz.
import { notMadeLines, rateStatuses } from './rates.js';
import { assessHealth } from './health.js';
import { redactValue } from '../../base/secrets.js';
import type { HealthPolicy } from '../../model/config.js';
import type { BuildReport, CompetingStatus, HaStatus, OutsideProblem, SourceStatus, Status } from './report.js';
import type { ArchiveStatus } from '../../model/archive.js';
import type { ListingView } from '../compete/listing.js';
import type { MonitorState, MonitorWatch } from '../readers/watch.js';
import { age, ago, directionNameOfId, plural } from '../../base/words.js';
import { builtEntries, soleSourceGroups, soleSourceLines } from './sole-source.js';

/** What a build adds to its status besides the report: the health thresholds and a rejected config reload. */
export interface StatusContext {
  healthPolicy?: HealthPolicy;
  configError?: string;
  /** This instance's role in a warm standby (`ha:`). */
  ha?: HaStatus;
  /** The watch from outside's problems when the build ran (a standby's are the leader's business: not kept). */
  outside?: readonly OutsideProblem[];
  archive?: ArchiveStatus;
}

/** The status with its health assessed at `at`; no credential in its texts (they quote sources' answers). `clean`: fields of config names only. */
function withHealth(status: Status, at: Date, clean: Partial<Status> = {}): Status {
  const { health: _, ...rest } = redactValue(status);
  return { ...rest, ...clean, health: assessHealth(rest, at) };
}

const contextFields = (context: StatusContext) => ({
  ...(context.healthPolicy ? { healthPolicy: context.healthPolicy } : {}),
  ...(context.configError === undefined ? {} : { configError: context.configError }),
  ...(context.ha ? { ha: context.ha } : {}),
  ...(context.outside && context.outside.length > 0 && context.ha?.role !== 'standby'
    ? { outsideProblems: [...context.outside] }
    : {}),
  ...(context.archive ? { archive: context.archive } : {}),
});

export function successStatus(
  previous: Status | undefined,
  report: BuildReport,
  durationMs: number,
  schedulePeriodMs: number,
  context: StatusContext = {},
): Status {
  const at = report.startedAt.toISOString();
  const oldest = new Map<string, number>();
  const { directions } = report;
  // Per published direction, the age of the oldest quote behind its rate (ms kept: streamed quotes are fresh).
  const ages: number[] = [];
  for (const priced of directions.published) {
    let direction = 0;
    for (const step of priced.steps) {
      const age = (report.startedAt.getTime() - step.quote.time.getTime()) / 1000;
      oldest.set(step.quote.source, Math.max(oldest.get(step.quote.source) ?? 0, age));
      direction = Math.max(direction, age);
    }
    ages.push(Math.round(direction * 1000) / 1000);
  }
  const before = new Map(previous?.sources.map((source) => [source.name, source]));
  return withHealth(
    {
      version: 1,
      lastBuild: { at, durationMs, ok: true },
      lastSuccessAt: at,
      schedulePeriodMs,
      ...contextFields(context),
      maintenance: report.maintenance,
      sources: report.sources.map((source) => {
        const earlier = before.get(source.name);
        // Quotes reused within a refresh interval (or standing in for a failed fetch) date from their fetch.
        const lastSuccessAt =
          source.ok && !source.error
            ? (source.fetchedAt?.toISOString() ?? at)
            : (earlier?.lastSuccessAt ?? source.fetchedAt?.toISOString());
        const lastError =
          source.error ?? (source.rejected.length > 0 ? `dropped quotes: ${source.rejected.join('; ')}` : undefined);
        const age = oldest.get(source.name);
        return {
          name: source.name,
          type: source.type,
          ok: source.ok,
          quotes: source.quotes,
          ...(source.rows === undefined ? {} : { rows: source.rows }),
          ...(lastSuccessAt === undefined ? {} : { lastSuccessAt }),
          ...(lastError === undefined ? {} : { lastError }),
          ...(age === undefined ? {} : { oldestQuoteAgeSeconds: Math.round(age) }),
          ...(source.stream ? { stream: source.stream } : {}),
        };
      }),
      ...(report.rates.length === 0 ? {} : { rates: rateStatuses(report.rates) }),
      ...reserveSources(report, new Map(previous?.reserveSources?.map((source) => [source.name, source]))),
      exports: report.exports,
      published: directions.published.map((priced) => priced.direction.id),
      publishedQuoteAges: ages,
      ...competing(report),
      ...(report.listing && report.listing.views.length > 0 ? { listing: report.listing.views } : {}),
      heldBack: directions.withheld.map((withheld) => ({
        direction: withheld.direction.id,
        kind: withheld.kind,
        reason: withheld.reason,
        ...(withheld.jump ? { jump: withheld.jump } : {}),
      })),
      ...(directions.leftOut.length === 0
        ? {}
        : {
            leftOut: directions.leftOut.map((o) => ({
              direction: o.direction.id,
              kind: o.kind,
              files: o.files,
              reason: o.reason,
            })),
          }),
    },
    report.startedAt,
    // Names from the config alone (pairs, sources, formulas' terms): nothing to redact, and 10,000 ids not walked again.
    report.soleSource && report.soleSource.length > 0
      ? { soleSource: soleSourceGroups(builtEntries(report.soleSource)) }
      : {},
  );
}

function competing(report: BuildReport): { competing?: CompetingStatus[] } {
  const list = report.directions.published.flatMap((priced) =>
    priced.compete ? [{ direction: priced.direction.id, ...priced.compete }] : [],
  );
  return list.length === 0 ? {} : { competing: list };
}

/** Reserve sources as sources of type `reserves/<type>` (their entries counted as quotes), so health sees a failing one. */
function reserveSources(
  report: BuildReport,
  before: ReadonlyMap<string, SourceStatus>,
): { reserveSources?: SourceStatus[] } {
  if (report.reserves.length === 0) return {};
  return {
    reserveSources: report.reserves.map((source) => {
      const earlier = before.get(source.name);
      const lastSuccessAt = source.ok && !source.error ? source.fetchedAt?.toISOString() : earlier?.lastSuccessAt;
      return {
        name: source.name,
        type: `reserves/${source.type}`,
        ok: source.ok,
        quotes: source.entries,
        ...(lastSuccessAt === undefined ? {} : { lastSuccessAt }),
        ...(source.error === undefined ? {} : { lastError: source.error }),
      };
    }),
  };
}

/** A failed build keeps everything the last good one said (those files are still published) and says why it failed. */
export function failedStatus(
  previous: Status | undefined,
  at: Date,
  durationMs: number,
  error: string,
  schedulePeriodMs: number,
  context: StatusContext = {},
): Status {
  // A rejected reload and the outside watch's problems are the context's now, not the last good build's.
  const { configError: _, outsideProblems: __, ...kept }: Partial<Status> = previous ?? {};
  return withHealth(
    {
      version: 1,
      sources: [],
      exports: [],
      published: [],
      heldBack: [],
      maintenance: false,
      ...kept,
      schedulePeriodMs,
      ...contextFields(context),
      lastBuild: { at: at.toISOString(), durationMs, ok: false, error },
    },
    at,
  );
}

const competingLine = (c: CompetingStatus) =>
  `  ${directionNameOfId(c.direction)}: ${c.basis === 'fallback' ? 'NORMAL MARGIN' : `place ${c.place} of ${c.competitors + 1}`} (target ${c.target}, ${c.basis})${c.reason ? `: ${c.reason}` : ''}` +
  (c.war && c.basis !== 'war' ? `; price war with ${c.war.rival} (#${c.war.rivalId}), held until ${c.war.until}` : '');

const listingLine = (view: ListingView, now: Date) =>
  `  ${directionNameOfId(view.direction)}${view.city ? ` in ${view.city}` : ''}: ${listingSummary(view, now)}`;

/** `lagging (rate: listed 1:4900000, published 1:4920000.01) since 40 s ago; last lag 60 s` (status, explain). */
export const listingSummary = (view: ListingView, now: Date) =>
  view.state +
  (view.differences.length > 0 ? ` (${view.differences.join('; ')})` : '') +
  (view.since ? ` since ${ago(view.since, now)}` : '') +
  (view.lagSeconds === undefined ? '' : `; last lag ${age(view.lagSeconds)}`);

const agoOrNever = (iso: string | undefined, now: Date) => (iso === undefined ? 'never' : ago(iso, now));

/**
 * Who publishes, as far as this instance knows: "publishes" only for a holder that holds the lock and published
 * within two periods; otherwise the last holder, when it last published, and whether it still holds the lock.
 */
export function whoPublishes(ha: HaStatus, periodMs: number, now: Date): string {
  if (ha.role === 'leader') return 'this instance publishes';
  const last = ha.lastPublish;
  if (!last) return ha.holder ? `${ha.holder} holds the lock; no publish known yet` : 'no instance has published yet';
  const when = ago(last.at, now);
  const recent = now.getTime() - Date.parse(last.at) <= 2 * periodMs;
  if (ha.holderHolds === true)
    return recent ? `${last.by} publishes (last ${when})` : `the lock is held, but ${last.by} last published ${when}`;
  const lock = ha.holderHolds === false ? 'its lock is free' : 'the lock cannot be asked';
  return `${last.by} was the last holder, last published ${when}; ${lock}`;
}

/** `role: standby (host-b); host-a publishes (last 3 s ago) — host-a holds the lock`, and a config that differs. */
function haLines(status: Status, now: Date): string[] {
  const { ha } = status;
  if (!ha) return [];
  return [
    `role: ${ha.role} (${ha.instance}); ${whoPublishes(ha, status.schedulePeriodMs, now)}${ha.reason ? ` — ${ha.reason}` : ''}`,
    ...(ha.takeover ? [`  took over from ${ha.takeover.from} at ${ha.takeover.at}`] : []),
    ...(ha.overwritten
      ? [`  another writer replaced ${ha.overwritten.files.join(', ')} at ${ha.overwritten.at}: put back at once`]
      : []),
    ...(ha.holderConfigHash !== undefined && ha.role === 'standby'
      ? [`  config hash ${ha.configHash} differs from the holder's ${ha.holderConfigHash}`]
      : []),
  ];
}

/** An expected monitor in `ratefile status --json`: as the dashboard's Readers section, with the last fetch's age. */
export interface MonitorStatus {
  name: string;
  export?: string;
  state: MonitorState;
  windowSeconds: number;
  lastAt?: string;
  lastFetchAgeSeconds?: number;
  failure?: { at: string; status: number; why: string; export: string };
}

export function monitorStatuses(watches: readonly MonitorWatch[], now: Date): MonitorStatus[] {
  return watches.map((w) => ({
    name: w.monitor,
    ...(w.export === undefined ? {} : { export: w.export }),
    state: w.state,
    windowSeconds: Math.round(w.windowMs / 1000),
    ...(w.lastAt === undefined
      ? {}
      : {
          lastAt: new Date(w.lastAt).toISOString(),
          lastFetchAgeSeconds: Math.round((now.getTime() - w.lastAt) / 1000),
        }),
    ...(w.failure ? { failure: { ...w.failure, at: new Date(w.failure.at).toISOString() } } : {}),
  }));
}

const monitorStates: Record<MonitorState, string> = {
  ok: 'ok',
  waiting: 'not seen yet',
  silent: 'SILENT',
  failing: 'NOT GETTING THE FILE',
};

/** `  bestchange (parserfile.xml): SILENT, last fetch 2 h ago (window 10 min)`. */
const monitorLine = (m: MonitorStatus, now: Date) =>
  `  ${m.name}${m.export === undefined ? '' : ` (${m.export})`}: ${monitorStates[m.state]}` +
  (m.failure ? ` (${m.failure.why} for ${m.failure.export} ${ago(m.failure.at, now)})` : '') +
  `, last fetch ${agoOrNever(m.lastAt, now)}` +
  (m.state === 'silent' ? ` (window ${age(m.windowSeconds)})` : '');

/** The expected monitors' section of `ratefile status`, from what the service saved in `.ratefile/readers.json`. */
export function formatMonitors(monitors: readonly MonitorStatus[], now: Date): string {
  if (monitors.length === 0) return '';
  return `${['expected monitors (fetches the service saved):', ...monitors.map((m) => monitorLine(m, now))].join('\n')}\n`;
}

/** The human form of `ratefile status`. */
export function formatStatus(status: Status | undefined, now: Date): string {
  if (!status) return 'no build has run yet (no status file)\n';
  const { level, reasons } = assessHealth(status, now);
  const paused = status.heldBack.filter((h) => h.kind === 'paused');
  const held = status.heldBack.filter((h) => h.kind !== 'paused');
  const lines = [
    `${level === 'ok' ? 'ok' : level.toUpperCase()}${reasons.length > 0 ? `: ${reasons.join('; ')}` : ''}`,
    `last build: ${status.lastBuild.at} (${ago(status.lastBuild.at, now)}), ${status.lastBuild.ok ? 'ok' : 'FAILED'}, ${status.lastBuild.durationMs} ms`,
    ...(status.lastBuild.error ? [`  error: ${status.lastBuild.error}`] : []),
    `last good build: ${status.lastSuccessAt ?? 'never'}`,
    ...haLines(status, now),
    ...(status.maintenance ? ['maintenance: ON — every export is published empty (ratefile maintenance off)'] : []),
    'sources:',
    ...status.sources.map(
      (s) =>
        `  ${s.name} (${s.type}): ${s.ok ? 'ok' : 'FAILING'}, ${s.rows === undefined ? plural(s.quotes, 'quote') : `feed of ${s.rows} rows`}, last success ${agoOrNever(s.lastSuccessAt, now)}` +
        `${s.oldestQuoteAgeSeconds === undefined ? '' : `, oldest quote used ${age(s.oldestQuoteAgeSeconds)} old`}` +
        `${s.lastError ? `\n    last error: ${s.lastError}` : ''}`,
    ),
    ...(status.reserveSources && status.reserveSources.length > 0
      ? [
          'reserve sources:',
          ...status.reserveSources.map(
            (s) =>
              `  ${s.name} (${s.type}): ${s.ok ? 'ok' : 'FAILING'}, ${plural(s.quotes, 'entry', 'entries')}, last success ${agoOrNever(s.lastSuccessAt, now)}${s.lastError ? `\n    last error: ${s.lastError}` : ''}`,
          ),
        ]
      : []),
    ...notMadeLines(status.rates),
    'exports:',
    ...status.exports.map((e) => `  ${e.file}: ${plural(e.counted ?? e.items, 'item')}`),
    `published: ${plural(status.published.length, 'direction')}`,
    // Published, but not in every export: said as such, apart from what no export publishes.
    ...(status.leftOut && status.leftOut.length > 0
      ? [
          `left out of some exports: ${status.leftOut.length}`,
          ...status.leftOut.map((o) => `  ${directionNameOfId(o.direction)}: ${o.reason} [${o.kind}]`),
        ]
      : []),
    ...(status.competing && status.competing.length > 0
      ? ['competing on BestChange:', ...status.competing.map(competingLine)]
      : []),
    ...(status.listing && status.listing.length > 0
      ? ['as BestChange lists us:', ...status.listing.map((view) => listingLine(view, now))]
      : []),
    // Paused on purpose is listed apart from what is held back for a fault or out of hours.
    ...(paused.length > 0
      ? [`paused: ${paused.length}`, ...paused.map((h) => `  ${directionNameOfId(h.direction)}: ${h.reason}`)]
      : []),
    `held back: ${held.length}`,
    ...held.map((h) => `  ${directionNameOfId(h.direction)}: ${h.reason}${h.kind ? ` [${h.kind}]` : ''}`),
    ...soleSourceLines(status.soleSource ?? []),
  ];
  return `${lines.join('\n')}\n`;
}
