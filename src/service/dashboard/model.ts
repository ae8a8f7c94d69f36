// The dashboard's view model: one pure function from the latest build, the status, the history and the clock
// to everything the page and /dashboard.json show, so the two cannot disagree. Texts are already public (redact.ts).
import { assessHealth } from '../../pure/status/health.js';
import { whoPublishes } from '../../pure/status/status.js';
import type { ExportTemplate, HealthLevel } from '../../model/config.js';
import { HISTORY_MS, type History } from './history.js';
import { competeSectionView, type CompeteHistory, type CompeteSectionView } from './compete-chart.js';
import { prepare, type ExportFacts } from './prepare.js';
import type { DirectionFacts } from './rows.js';
import { publicText, type Redaction } from './redact.js';
import type { BuildReport, Status } from '../../pure/status/report.js';
import type { ReadersView } from '../readers/tracker.js';
import type { OutsideView } from '../start/outside-watch.js';
import { plural } from '../../base/words.js';
import { normalizePaging, pageOf, sortRows, type PageView } from './paging.js';
import { problemText } from './problems.js';
import { type SourceView, sourceViews } from './sources.js';

export type { SourceView } from './sources.js';
import { rateViews, type RateView } from './rates.js';
import { soleSourceViews, type SoleSourceView } from './sole-source.js';
import { type ArchivePoint, type ArchiveView, archiveView } from './archive-view.js';

/** What the service keeps of its latest build that published, besides the report. */
export interface LatestBuild {
  report: BuildReport;
  exports: readonly ExportTemplate[];
  /** Quote maxAge per source name in ms; null: no limit (`maxAge: off`). */
  maxAgeMs: Readonly<Record<string, number | null>>;
  /** What renews a source's quotes once they are past maxAge, per source name (freshness.ts `renewHint`). */
  renewHints?: Readonly<Record<string, string>>;
  /** Per export file: its size in bytes and when it last changed (ISO), as on disk after the build. */
  files: Readonly<Record<string, { bytes: number; changedAt: string }>>;
}

export interface Filter {
  currency: string;
  state: string;
  export: string;
  q: string;
}

export interface DashboardInput {
  latest?: LatestBuild | undefined;
  status?: Status | undefined;
  history?: History | undefined;
  /** The competing directions' charts (compete-chart.ts). */
  competeHistory?: CompeteHistory | undefined;
  now: Date;
  filter?: Partial<Filter>;
  /** The query's paging (`?sort=rate&order=desc&page=2`), normalized by paging.ts. */
  paging?: { sort?: string; order?: string; page?: string };
  redaction: Redaction;
  /** Who fetches the exports (readers/tracker.ts); absent outside `start`. */
  readers?: ReadersView | undefined;
  /** The public copies watched from outside (`watch:`); absent without one. */
  outside?: OutsideView | undefined;
  /** A direction's points over the archive's window, when the page asked for one (`?archive=ID`). */
  archiveSeries?: { id: string; points: ArchivePoint[] } | undefined;
}

export interface QuoteView {
  pair: string;
  side: 'bid' | 'ask';
  source: string;
  ageSeconds: number;
  /** Seconds before it passes its source's maxAge; absent when the source has none. */
  leftSeconds?: number;
  fed?: 'stream';
}

export interface DirectionView extends Omit<DirectionFacts, 'quotes' | 'search'> {
  quotes: QuoteView[];
  /** [time (ms), published, market] per change over the last 24 hours, rates in the published form. */
  history: [number, string | null, string | null][];
}

export interface DashboardView {
  head: {
    /** Changes whenever a build finishes: the page's script reloads the rest when it does. */
    stamp: string;
    now: string;
    health: { level: HealthLevel; reasons: string[] };
    /**
     * The last build; `outcome` read from the health level above it, so the line under a red headline never says ok:
     * `ok` (built, health ok), `problems` (built, health degraded or failing: the headline says why), `failed`.
     */
    build?: {
      at: string;
      ok: boolean;
      outcome: 'ok' | 'problems' | 'failed';
      durationMs: number;
      error?: string;
      shownAt?: string;
    };
    counts: { published: number; withheld: number; paused: number; hours: number };
    maintenance: boolean;
    /** With `ha:`: this instance's role and who publishes, in the words of `ratefile status`. */
    ha?: { role: 'leader' | 'standby'; instance: string; publisher: string };
  };
  sources: SourceView[];
  /** The pairs of `rates:`: how each was made, its spread, its terms (rates.ts). */
  rates: RateView[];
  /** The directions one source alone sets, grouped, and what checks them (sole-source.ts). */
  soleSource: SoleSourceView[];
  reserveSources: SourceView[];
  exports: (ExportFacts & { bytes?: number; changedAt?: string })[];
  filter: Filter;
  options: { currencies: string[]; states: string[]; exports: string[] };
  /** One page of the matching directions, in the order asked for (paging.ts). */
  directions: DirectionView[];
  paging: PageView;
  /** Whether any direction competes (`compete:`): without, the page has no Place column. */
  competing: boolean;
  /** Directions matching the filter, and all of them. */
  matching: number;
  total: number;
  builds: [number, number, number][];
  /** BestChange's listing of us and the competing directions' charts. */
  compete: CompeteSectionView;
  window: { from: number; to: number };
  readers?: ReadersView;
  outside?: OutsideView;
  /** The archive of published exports (`archive:`): its window, size, records, and a direction over the window. */
  archive?: ArchiveView;
}

const STATES = ['published', 'withheld', 'hours', 'paused'];
const seconds = (ms: number) => Math.round(ms / 1000);

function normalizeFilter(filter: Partial<Filter> = {}): Filter {
  const one = (value: string | undefined) => (value ?? '').trim().slice(0, 100);
  return {
    currency: one(filter.currency).toUpperCase(),
    state: one(filter.state),
    export: one(filter.export),
    q: one(filter.q),
  };
}

/** The headline part alone (what dashboard.js polls): the same as `dashboardModel(input).head`, without the rows. */
export function dashboardHead(input: DashboardInput): DashboardView['head'] {
  const { latest, status, now, redaction } = input;
  const health = assessHealth(status, now);
  const report = latest?.report;
  const counts = latest
    ? { ...prepare(latest.report, latest.exports, redaction).counts }
    : { published: 0, withheld: 0, paused: 0, hours: 0 };
  const text = (value: string) => publicText(value, redaction);
  return {
    stamp: `${status?.lastBuild.at ?? ''}|${report?.startedAt.toISOString() ?? ''}`,
    now: now.toISOString(),
    health: { level: health.level, reasons: health.reasons.map(text) },
    ...(status
      ? {
          build: {
            at: status.lastBuild.at,
            ok: status.lastBuild.ok,
            outcome: !status.lastBuild.ok ? 'failed' : health.level === 'ok' ? 'ok' : 'problems',
            durationMs: status.lastBuild.durationMs,
            ...(status.lastBuild.error === undefined ? {} : { error: text(status.lastBuild.error) }),
            ...(report ? { shownAt: report.startedAt.toISOString() } : {}),
          },
        }
      : {}),
    counts,
    maintenance: report?.maintenance ?? false,
    ...(status?.ha
      ? {
          ha: {
            role: status.ha.role,
            instance: status.ha.instance,
            publisher: whoPublishes(status.ha, status.schedulePeriodMs, now),
          },
        }
      : {}),
  };
}

export function dashboardModel(input: DashboardInput): DashboardView {
  const { latest, status, now, redaction } = input;
  const text = (value: string) => publicText(value, redaction);
  const filter = normalizeFilter(input.filter);
  const prepared = latest ? prepare(latest.report, latest.exports, redaction) : undefined;
  const report = latest?.report;
  // The last 24 hours, or since the oldest build remembered when that is later (at least a minute), so a fresh history fills the charts.
  const oldest =
    input.history?.builds.find((b) => b.at >= now.getTime() - HISTORY_MS)?.at ?? now.getTime() - HISTORY_MS;
  const window = { from: Math.min(oldest, now.getTime() - 60_000), to: now.getTime() };
  const head = dashboardHead(input);
  const maxAge = (source: string) => latest?.maxAgeMs[source];
  const hint = (source: string) => latest?.renewHints?.[source];
  const matching = (prepared?.rows ?? []).filter((row) => matches(row, filter));
  const { rows, page } = pageOf(sortRows(matching, normalizePaging(input.paging)), normalizePaging(input.paging));
  return {
    head,
    sources: report ? sourceViews(report, status, now, { maxAge, hint }, text) : [],
    rates: rateViews(status?.rates, redaction),
    soleSource: soleSourceViews(report, redaction),
    reserveSources: (report?.reserves ?? []).map((source) => ({
      name: source.name,
      type: source.type,
      state: source.ok ? (source.error ? 'fallback' : 'ok') : 'failing',
      count: plural(source.entries, 'entry', 'entries'),
      ...(source.fetchedAt ? { lastSuccessAt: source.fetchedAt.toISOString() } : {}),
      ...(source.error === undefined ? {} : { problem: text(problemText(source, source.error)) }),
    })),
    exports: (prepared?.exports ?? []).map((facts) => ({ ...facts, ...(latest?.files[facts.file] ?? {}) })),
    filter,
    options: {
      currencies: prepared?.currencies ?? [],
      states: STATES,
      exports: (prepared?.exports ?? []).map((e) => e.file),
    },
    directions: rows.map(({ search: _, ...row }) => ({
      ...row,
      quotes: row.quotes.map((quote) => {
        const age = now.getTime() - quote.at;
        const limit = maxAge(quote.source);
        return {
          pair: quote.pair,
          side: quote.side,
          source: quote.source,
          ageSeconds: seconds(age),
          ...(typeof limit === 'number' ? { leftSeconds: seconds(limit - age) } : {}),
          ...(quote.fed ? { fed: quote.fed } : {}),
        };
      }),
      history: (input.history?.series.get(row.id) ?? []).map((point) => [
        Math.max(point.at, window.from),
        point.value?.[0] ?? null,
        point.value?.[1] ?? null,
      ]),
    })),
    paging: page,
    competing: (prepared?.rows ?? []).some((row) => row.compete !== undefined),
    matching: matching.length,
    total: prepared?.rows.length ?? 0,
    builds: (input.history?.builds ?? [])
      .filter((b) => b.at >= window.from)
      .map((b) => [b.at, b.durationMs, b.published]),
    compete: competeSectionView(input.competeHistory, status?.listing),
    window,
    ...(input.readers ? { readers: input.readers } : {}),
    ...(input.outside ? { outside: input.outside } : {}),
    ...archiveOf(input),
  };
}

const archiveOf = (input: DashboardInput) => {
  const archive = archiveView(input.status?.archive, input.now, input.archiveSeries);
  return archive ? { archive } : {};
};

function matches(row: DirectionFacts, filter: Filter): boolean {
  if (filter.currency && row.from !== filter.currency && row.to !== filter.currency) return false;
  if (filter.state && row.state !== filter.state) return false;
  if (filter.export && !row.exports.includes(filter.export)) return false;
  return !filter.q || row.search.includes(filter.q.toLowerCase());
}
