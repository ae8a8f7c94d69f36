// What `start` keeps for the dashboard: the latest build that published, its history (read back from the archive and
// the build points on start, a line added after each build, off its path), and what must not be shown (redact.ts). service.ts only
// calls it.
import type { Stats } from 'node:fs';
import { homedir } from 'node:os';
import { describeError } from '../../base/errors.js';
import { renewHint } from '../../pure/sources/freshness.js';
import type { Logger } from '../../base/log.js';
import type { Config } from '../../model/config.js';
import { sourceMaxAgeMs } from '../../io/quotes/source-options.js';
import type { Route } from '../server/server.js';
import type { LatestBuild } from './model.js';
import { prepare } from './prepare.js';
import { publicValue, secretValues, type Redaction } from './redact.js';
import { type ArchiveSeries, dashboardRoutes, visible } from './route.js';
import { ArchiveReader } from '../../io/archive/reader.js';
import { History } from './history.js';
import { historyFromArchive } from './archive-history.js';
import { buildPointsWriter, readBuildPoints } from './build-points.js';
import type { Archive } from '../../io/archive/archive.js';
import { openCompeteStore } from './compete-store.js';
import type { BuildReport, Status } from '../../pure/status/report.js';
import type { ReadersView } from '../readers/tracker.js';
import type { OutsideView } from '../start/outside-watch.js';
import { mapStrings, redactSecrets } from '../../base/secrets.js';

export interface Dashboard {
  /**
   * After a build that published: keep it for the page, and queue its history line (made after this returns). A build
   * streamed moves started (`moved`) is recorded at most every MOVED_HISTORY_MS, the last of a burst after it.
   */
  built(
    report: BuildReport,
    config: Config,
    durationMs: number,
    files: ReadonlyMap<string, Stats>,
    moved?: boolean,
  ): void;
  /** `/`, `/dashboard.json`, `/dashboard.js`; `status` and `readers` (who fetches the exports) are read at each request. */
  routes(
    status: () => Status | undefined,
    readers?: (now: Date) => ReadersView,
    outside?: (now: Date) => OutsideView,
  ): Record<string, Route>;
  /** A value for anyone who reaches the server (the body of /healthz): no absolute paths, URL paths or secrets. */
  shown<T>(value: T): T;
  /** Resolves once the queued history lines are written. */
  idle(): Promise<void>;
}

/** Builds on streamed moves may come several a second: a chart of 24 hours needs one point every few seconds. */
export const MOVED_HISTORY_MS = 5_000;

export async function openDashboard(options: {
  config: Config;
  outDir: string;
  env: Readonly<Record<string, string | undefined>>;
  log: Logger;
  now: () => Date;
  /** The archive the history of the last 24 hours is read back from; absent (`archive.enabled: false`): none. */
  archive?: Archive | undefined;
}): Promise<Dashboard> {
  const { config, log } = options;
  const history = await readHistory(options.archive, config.stateDir, options.now(), log);
  const points = buildPointsWriter(config.stateDir, log, options.now());
  const redaction = dashboardRedaction(config, options.outDir, options.env);
  let latest: LatestBuild | undefined;
  const compete = await openCompeteStore(config.stateDir, log, options.now());
  const competeHistory = compete.history;
  let recording = Promise.resolve();
  let recordedAt = Number.NEGATIVE_INFINITY;
  let trailing: NodeJS.Timeout | undefined;
  /** The last build of a burst of moves, recorded once MOVED_HISTORY_MS has passed (or at a stop). */
  let later: (() => void) | undefined;
  const record = (report: BuildReport, exports: Config['exports'], durationMs: number) => {
    recordedAt = report.startedAt.getTime();
    // Off the build's path: the rates are worked out (and the line queued) once the build has returned.
    recording = new Promise((resolve) =>
      setImmediate(() => {
        try {
          competeHistory.record(report);
          compete.recorded(report.startedAt);
          const { rates } = prepare(report, exports, redaction);
          const counts = {
            durationMs,
            published: report.directions.published.length,
            withheld: report.directions.withheld.length,
          };
          const line = history.lineFor(report.startedAt, counts, rates);
          history.add(line);
          points.append({ t: line.t, ms: counts.durationMs, n: counts.published, w: counts.withheld });
        } catch (error) {
          log.warn(`history: this build is not recorded: ${describeError(error)}`);
        }
        resolve();
      }),
    );
  };
  return {
    built(report, current, durationMs, files, moved) {
      latest = latestBuild(report, current, files);
      const { exports } = latest;
      clearTimeout(trailing);
      later = undefined;
      const wait = recordedAt + MOVED_HISTORY_MS - report.startedAt.getTime();
      if (!moved || wait <= 0) record(report, exports, durationMs);
      else {
        const pending = () => {
          later = undefined;
          record(report, exports, durationMs);
        };
        later = pending;
        trailing = setTimeout(pending, wait);
        trailing.unref();
      }
    },
    routes: (status, readers, outside) =>
      dashboardRoutes(
        () => {
          const now = options.now();
          return {
            latest,
            status: status(),
            history,
            competeHistory,
            now,
            redaction,
            readers: readers?.(now),
            // A public URL may carry a private export's token: credentials and token-like values are not shown.
            outside: outside ? mapStrings(outside(now), redactSecrets) : undefined,
          };
        },
        archiveSeries(options.archive, options.config, options.now),
      ),
    shown: (value) => visible(publicValue(value, redaction)),
    async idle() {
      clearTimeout(trailing);
      later?.();
      await recording;
      await points.idle();
      await compete.flush();
    },
  };
}

/** A direction's published rate over the archive's window, read on request (`?archive=ID`); absent without one. */
function archiveSeries(archive: Archive | undefined, config: Config, now: () => Date): ArchiveSeries | undefined {
  if (!archive) return undefined;
  return async (id) => {
    const reader = await ArchiveReader.open(archive.store);
    const to = now().getTime();
    return reader.series(id, to - config.archive.windowMs, to);
  };
}

/**
 * The history of the last 24 hours: the rates from the archive, the builds from the build points (every build, where
 * the archive has only those that changed an export; from the archive when there are none, as after an upgrade). A
 * store or file that cannot be read leaves its part empty, said once.
 */
async function readHistory(archive: Archive | undefined, stateDir: string, now: Date, log: Logger): Promise<History> {
  const history = new History();
  const [recorded, builds] = await Promise.all([
    archive
      ? historyFromArchive(archive.store, now).catch((error: unknown) => {
          log.warn(`history: cannot read the archive, the rate charts start empty: ${describeError(error)}`);
          return [];
        })
      : [],
    readBuildPoints(stateDir, now).catch((error: unknown) => {
      log.warn(
        `history: cannot read the build points, the builds chart starts from the archive: ${describeError(error)}`,
      );
      return [];
    }),
  ]);
  const rates = builds.length === 0 ? recorded : recorded.flatMap(({ t, r }) => (r ? [{ t, r }] : []));
  const lines = [...rates, ...builds].sort((a, b) => Date.parse(a.t) - Date.parse(b.t));
  for (const line of lines) history.apply(line);
  history.compact(now);
  return history;
}

/** What is never shown: the folders' absolute paths, and the values of secret variables (reserve sources' `auth`). */
function dashboardRedaction(
  config: Config,
  outDir: string,
  env: Readonly<Record<string, string | undefined>>,
): Redaction {
  const authVariables = config.reserveSources.flatMap((source) => {
    const auth = (source.options as { auth?: { env?: unknown } }).auth;
    return typeof auth?.env === 'string' ? [auth.env] : [];
  });
  return {
    roots: [config.dir, config.stateDir, outDir, process.cwd(), homedir()],
    secrets: secretValues(env, authVariables),
  };
}

/** A build that published, with what its config said of the sources and what its files are now. */
function latestBuild(report: BuildReport, config: Config, files: ReadonlyMap<string, Stats>): LatestBuild {
  return {
    report,
    exports: config.exports,
    maxAgeMs: Object.fromEntries(
      config.sources.map((source) => [source.name, sourceMaxAgeMs(source, config.schedulePeriodMs) ?? null]),
    ),
    renewHints: Object.fromEntries(config.sources.map((source) => [source.name, renewHint(source)])),
    files: Object.fromEntries(
      [...files].map(([file, stats]) => [file, { bytes: stats.size, changedAt: stats.mtime.toISOString() }]),
    ),
  };
}
