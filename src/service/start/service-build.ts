// One build of `ratefile start` and what it leaves behind: the config reloaded, runCycle, then the status, the
// metrics, the dashboard, the log lines, a sweep of the state folder and the alerts. src/service/start/service.ts makes the parts
// once at start and runs this for every build (src/service/start/schedule.ts: never two at once).
import type { Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BuildDeps, BuildResult } from '../../io/build/build.js';
import type { BuildLog } from './build-log.js';
import { type CycleResult, readStatus, runCycle } from '../../io/build/cycle.js';
import { errorLine } from '../../base/errors.js';
import type { LastGoodConfig } from './last-good-config.js';
import type { Logger } from '../../base/log.js';
import type { Config, OutputFile } from '../../model/config.js';
import type { Metrics } from '../server/metrics.js';
import type { QuoteCache } from '../../io/quotes/quotes.js';
import type { BuildReport, Status } from '../../pure/status/report.js';
import { type SourceWatch, watchedFiles } from './source-watch.js';
import type { Notifier } from '../alerts/notifier.js';
import type { Dashboard } from '../dashboard/board.js';
import type { GuardedFiles } from '../../io/ha/placed-watch.js';
import type { Repeats } from '../../pure/ha/repeats.js';
import type { Standby } from '../../io/ha/standby.js';
import type { Readers } from '../readers/tracker.js';
import type { OutsideWatch } from './outside-watch.js';
import type { ServiceStreams } from './streams.js';
import type { ServiceArchive } from './service-archive.js';

/** What the builds leave for the pages, the start-up notes and the next build. */
export interface ServiceState {
  /** Status after the latest build (also in the state folder's status.json). */
  status: Status | undefined;
  /** The config of the latest build (what `/quote` reads its exports and `quote:` from). */
  config: Config;
  /** The export files the server answers: the ones the latest build's config declares, nothing else in the folder. */
  declared: ReadonlySet<string>;
  /** The caching headers of the exports (`server.headers`), the latest build's config's. */
  headers: Config['server']['headers'];
  /** The first build that published, for the notes on quote freshness logged once at start. */
  firstReport: { report: BuildReport; config: Config } | undefined;
}

/** What every build uses, made once at start (src/service/start/service.ts). */
export interface BuildParts {
  log: Logger;
  outDir: string;
  /** The state folder the service started with: a reload does not move it. */
  stateDir: string;
  /** The build's dependencies, with the quote cache the service keeps across builds. */
  deps: BuildDeps & { quoteCache: QuoteCache };
  /** The last config that loaded: when an edit breaks the file, builds go on with it (health is degraded). */
  configs: LastGoodConfig;
  /** The `file` sources' files, watched when `watchFiles` is on. */
  sourceWatch: SourceWatch;
  /** The streamed sources and the builds their moves start (src/service/start/streams.ts). */
  streams: ServiceStreams;
  watchFiles: boolean;
  standby: Standby | undefined;
  /** With `ha:`, the watch over a leader's files (src/io/ha/placed-watch.ts). */
  placed: GuardedFiles | undefined;
  /** A standby's reason once (again after a while), however many others alternate with it. */
  standbyReasons: Repeats;
  /** Every published export kept (`archive:`); `archive` absent when it is off. */
  archive: ServiceArchive;
  metrics: Metrics;
  dashboard: Dashboard;
  readers: Readers;
  /** The watch from outside (`watch:`); absent without one. */
  outside: OutsideWatch | undefined;
  notifier: Notifier | undefined;
  /** Each reason when it starts and when it ends (src/service/start/reasons.ts). */
  logReasons: (result: BuildResult) => void;
  buildLog: BuildLog;
}

/** One build: `changed` names the files whose change started it (undefined for the schedule's). */
export async function runServiceBuild(
  parts: BuildParts,
  state: ServiceState,
  changed: readonly string[] | undefined,
): Promise<void> {
  const started = performance.now();
  try {
    const { config, result } = await buildWithCurrentConfig(parts, state);
    if (result.standby) recordStandby(parts, result);
    else await recordPublished(parts, state, config, result, changed);
  } catch (error) {
    state.status = await recordFailure(parts, error, started);
  }
  await observeAlerts(parts, state.status);
}

async function buildWithCurrentConfig(
  parts: BuildParts,
  state: ServiceState,
): Promise<{ config: Config; result: CycleResult }> {
  const config = await parts.configs.current();
  state.config = config;
  state.declared = new Set(config.exports.map((e) => e.file));
  state.headers = config.server.headers;
  const configError = parts.configs.error();
  // A reloaded config's file sources are watched from now on, before this build reads them.
  if (parts.watchFiles) parts.sourceWatch.target(watchedFiles(config));
  parts.streams.target(config);
  const { placed, standby } = parts;
  // Through the watch over a leader's files, so that its own publish is not taken for another writer's.
  const ha = placed?.gate ?? standby;
  // The state folder, like the output folder, is the one the service started with.
  const result = await runCycle({ ...config, stateDir: parts.stateDir }, parts.outDir, {
    ...parts.deps,
    ...(configError === undefined ? {} : { configError }),
    // Kept in the status, so health, /healthz, /metrics, the dashboard, `ratefile status` and the alert say one level.
    ...(parts.outside ? { outside: parts.outside.problems(parts.deps.now()) } : {}),
    ...(ha ? { ha } : {}),
    ...(parts.archive.archive ? { archive: parts.archive.archive } : {}),
  }).catch((error: unknown) => {
    placed?.settled(undefined);
    throw error;
  });
  // Only a leader watches its files: one that lost the lock on the way (after its publish) has none to guard.
  const leads = !result.standby && standby?.status().role === 'leader';
  placed?.settled(leads ? placedFiles(result) : undefined);
  state.status = result.status;
  parts.streams.built(result.build.report, config);
  return { config, result };
}

/** The exports a leader's cycle put in place (a cycle that refused one fails). */
function placedFiles({ build }: CycleResult): OutputFile[] {
  const names = new Set(build.report.exports.map((e) => e.file));
  return build.files.filter((file) => names.has(file.file));
}

/** A standby publishes nothing: one line per reason, not one per build. */
function recordStandby(parts: BuildParts, result: CycleResult): void {
  const reason = result.status.ha?.reason ?? 'not the holder';
  if (parts.standbyReasons.fresh(reason, parts.deps.now().getTime()))
    parts.log.info(`ha: standby: ${reason}`, { event: 'ha', role: 'standby' });
  // The lock lost mid-publish: which file was not put in place.
  for (const warning of result.warnings) parts.log.warn(warning, { event: 'ha', ok: false });
  parts.metrics.recordBuild(result, new Map());
}

async function recordPublished(
  parts: BuildParts,
  state: ServiceState,
  config: Config,
  result: CycleResult,
  changed: readonly string[] | undefined,
): Promise<void> {
  parts.standbyReasons.clear();
  state.firstReport ??= { report: result.build.report, config };
  const files = await fileStats(
    parts.outDir,
    result.build.report.exports.map((e) => e.file),
  );
  const changedAt = new Map([...files].map(([file, stats]) => [file, stats.mtime]));
  parts.metrics.recordBuild(result, changedAt);
  const moved = changed?.every((name) => name.endsWith(' (stream)')) === true;
  parts.dashboard.built(result.build.report, config, result.durationMs, files, moved);
  await recordVersions(parts, config, result.build.report.startedAt);
  for (const warning of result.warnings) parts.log.warn(warning);
  // Each reason when it starts and when it ends, so a 30-second schedule does not repeat the same lines forever.
  parts.logReasons(result.build);
  // A line when something changed, else a heartbeat now and then: not 2,880 alike lines a day.
  await parts.buildLog.built(result, config, changedAt, parts.deps.now(), changed);
}

/** The bytes now published of each watched export, for the watch from outside to match public copies against. */
async function recordVersions(parts: BuildParts, config: Config, at: Date): Promise<void> {
  if (!parts.outside || !config.watch) return;
  const files = await Promise.all(
    Object.keys(config.watch.exports).map(async (file) => {
      const bytes = await readFile(join(parts.outDir, file)).catch(() => undefined);
      return bytes ? [{ file, bytes }] : [];
    }),
  );
  parts.outside.published(files.flat(), at);
}

/** Each export file's size and when it last changed: a publish leaves an unchanged file alone, so its mtime says. */
async function fileStats(outDir: string, files: readonly string[]): Promise<Map<string, Stats>> {
  const found = await Promise.all(
    files.map(async (file) => [file, await stat(join(outDir, file)).catch(() => undefined)] as const),
  );
  return new Map(found.filter((entry): entry is readonly [string, Stats] => entry[1] !== undefined));
}

/** The build failed: logged and counted; the status is read back (runCycle records its own failures there). */
async function recordFailure(parts: BuildParts, error: unknown, started: number): Promise<Status | undefined> {
  parts.metrics.recordFailedBuild(performance.now() - started);
  parts.log.error(`build failed, last good files kept: ${errorLine(error)}`);
  parts.buildLog.failed(parts.deps.now());
  return readStatus(parts.stateDir);
}

/** Queued, never awaited: a channel that is down does not slow a build. */
async function observeAlerts(parts: BuildParts, status: Status | undefined): Promise<void> {
  if (!parts.notifier || !status) return;
  const monitors = await parts.readers.problems(parts.deps.now());
  // The build's own (health counts them); a standby keeps none: the public copy is the leader's, judged by the leader.
  const outside = (status.outsideProblems ?? []).map((problem) => ({ ...problem, level: 'degraded' as const }));
  await parts.notifier.observe(status, parts.deps.now(), [...monitors.problems, ...outside], monitors.recoveries);
}
