// `ratefile start`: build now, rebuild on the cron schedule and when a `file` source's file changes (never two at
// once), serve, and stop cleanly on a signal.
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createServer as createProbe } from 'node:net';
import { join, relative } from 'node:path';
import type { BuildDeps } from './build.js';
import { readStatus, runCycle } from './cycle.js';
import { createBuildLog } from './build-log.js';
import { reasonLog } from './reasons.js';
import { buildRunner, scheduleBuilds } from './schedule.js';
import { watchedFiles, watchSourceFiles } from './source-watch.js';
import { describeError, RatefileError } from './errors.js';
import type { Logger } from './log.js';
import type { Config } from './model.js';
import { createChannels } from './alerts/channels.js';
import { createNotifier } from './alerts/notifier.js';
import { createMetrics } from './metrics.js';
import { QuoteCache, startFeedFetches } from './quotes.js';
import { sourceMaxAgeMs } from './source-options.js';
import { freshnessNotes } from './freshness.js';
import { ReserveCache } from './reserves/fetch.js';
import { boundUrl, requestPath, type Route } from './server.js';
import { healthRoutes, openListeners, pagesNoteOf, portOfServer, type Listeners } from './listeners.js';
import { openDashboard } from './dashboard/board.js';
import { openReaders } from './readers/tracker.js';
import type { BuildReport, Status } from './report.js';
import { createStandby } from './ha/standby.js';
import { standbyRefusal } from './ha/serve.js';
import { repeatFilter } from './ha/repeats.js';
import { guardPlaced } from './ha/placed.js';
import { lastGoodConfig } from './last-good-config.js';
import { removeStaleStateTemporaries } from './state-files.js';

export interface ServiceOptions {
  /** Loads the config afresh for each build, so edits apply without a restart. */
  loadConfig: () => Promise<Config>;
  /** The config as validated at start-up: its schedule and output folder hold for the process's life. */
  config: Config;
  outDir: string;
  port: number;
  host: string;
  /** false: build on the schedule without listening (nginx or S3 serves the files). Default true. */
  serve?: boolean;
  log: Logger;
  deps: BuildDeps;
  /** false: build on the schedule only, not also when a `file` source's file changes (src/source-watch.ts). Default true. */
  watchFiles?: boolean;
  /** Checked once the port is known to be free and before the first build writes anything (see checkFolders). */
  checkFolders?: () => Promise<void>;
}

export interface Service {
  /** The port bound; undefined when not serving. */
  port: number | undefined;
  server: Server | undefined;
  /** The port of the `server.private` listener; undefined without one. */
  privatePort: number | undefined;
  /** Run one build now unless one is running; resolves when it is done. */
  rebuild(): Promise<void>;
  /** Stop scheduling, let a running build finish, close the server. */
  stop(): Promise<void>;
  /** Status after the latest build (also in the state folder's status.json). */
  status(): Status | undefined;
  /** Resolves once no alert waits undelivered (never while a channel stays down). */
  alertsIdle(): Promise<void>;
}

/** Fails (EADDRINUSE, EACCES) when the port cannot be bound, so a taken port is reported before a first build runs. */
async function assertCanListen(port: number, host: string): Promise<void> {
  const probe = createProbe();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(port, host, () => resolve());
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

/** How long the first build waits for the feeds' first answers (BestChange's info.zip is about 1.5 MB). */
export const FIRST_FEED_WAIT_MS = 5_000;

async function settledWithin(cache: QuoteCache, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([cache.settled(), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export async function startService(options: ServiceOptions): Promise<Service> {
  const { log, outDir } = options;
  const serve = options.serve ?? true;
  // A taken port is reported before anything is created or written; then the folders, then the first build.
  if (serve && options.port !== 0) await assertCanListen(options.port, options.host);
  const privateAddress = serve ? options.config.server.private : undefined;
  if (privateAddress && privateAddress.port !== 0) await assertCanListen(privateAddress.port, privateAddress.host);
  await options.checkFolders?.();
  const logReasons = reasonLog(log);
  const buildLog = createBuildLog(log);
  let status = await readStatus(options.config.stateDir);
  // The dashboard at `/`: the latest build that published and the history of the last 24 hours (read back now).
  const dashboard = await openDashboard({
    config: options.config,
    outDir,
    env: options.deps.env ?? process.env,
    log,
    now: options.deps.now,
  });
  // Quotes within their source's refresh interval are reused across builds (a daily fixing is not refetched every 30 s);
  // feeds are fetched in the background, so a feed host that hangs never holds a build.
  const quoteCache =
    options.deps.quoteCache ??
    new QuoteCache({
      background: true,
      onFeedFailure: (failure, next) =>
        log.warn(`feed fetch failed: ${failure}; next try after ${next.toISOString()}`, {
          event: 'feed-fetch',
          ok: false,
        }),
    });
  const deps: BuildDeps = {
    ...options.deps,
    quoteCache,
    reserveCache: options.deps.reserveCache ?? new ReserveCache(),
  };
  // With `ha:`, every build runs and only the lock's holder publishes (src/ha/standby.ts).
  const standby = options.config.ha
    ? createStandby(options.config, { env: options.deps.env ?? process.env, log, now: options.deps.now })
    : undefined;
  // A leader's files replaced by another writer (an old leader resumed from a pause) are published over at once.
  const placed = standby
    ? guardPlaced({ dir: outDir, standby, log, now: options.deps.now, rebuild: () => rebuild() })
    : undefined;
  // A standby's reason once (again after a while), however many others alternate with it.
  const standbyReasons = repeatFilter();

  // The last config that loaded: when an edit breaks the file, builds go on with it (health is degraded).
  const configs = lastGoodConfig(options.loadConfig, options.config, log);
  // The export files the server answers: the ones the latest build's config declares, nothing else in the folder.
  let declared: ReadonlySet<string> = new Set(options.config.exports.map((e) => e.file));

  const metrics = createMetrics(
    () => status,
    () => options.deps.now(),
  );
  // Who fetches the exports (this server, nginx's access log) and whether the expected monitors do, as the config at start-up says.
  const readers = await openReaders({
    config: options.config,
    log,
    now: options.deps.now,
    registry: metrics.registry,
    serving: serve,
  });
  // Alerts as the config at start-up says: a channel is not added or dropped by a reload.
  const alerts = options.config.alerts;
  const notifier = alerts
    ? createNotifier({
        channels: createChannels(alerts, options.deps.env ?? process.env, options.deps.fetch),
        stateDir: options.config.stateDir,
        reminderMs: alerts.reminder,
        log,
      })
    : undefined;
  /** Each export file's size and when it last changed: a publish leaves an unchanged file alone, so its mtime says. */
  const fileStats = async (files: readonly string[]) =>
    new Map(
      (
        await Promise.all(
          files.map(async (file) => [file, await stat(join(outDir, file)).catch(() => undefined)] as const),
        )
      ).filter((entry): entry is readonly [string, Stats] => entry[1] !== undefined),
    );

  // Temporaries a killed process left in the state folder (an alert outbox mid-write at `kill -9`), removed once
  // stale, as the output folder's are at each publish; at most once a minute. File times are real: real clock.
  let sweptAt = Number.NEGATIVE_INFINITY;
  const sweepState = async () => {
    if (Date.now() - sweptAt < 60_000) return;
    sweptAt = Date.now();
    await removeStaleStateTemporaries(options.config.stateDir, sweptAt);
  };
  /** The first build that ran, for the notes on quote freshness logged once at start. */
  let firstReport: { report: BuildReport; config: Config } | undefined;
  const cycle = async (changed: readonly string[] | undefined): Promise<void> => {
    const started = performance.now();
    try {
      const config = await configs.current();
      declared = new Set(config.exports.map((e) => e.file));
      const configError = configs.error();
      // A reloaded config's file sources are watched from now on, before this build reads them.
      if (options.watchFiles !== false) sourceWatch.target(watchedFiles(config));
      // The state folder, like the output folder, is the one the service started with.
      placed?.busy();
      const result = await runCycle({ ...config, stateDir: options.config.stateDir }, outDir, {
        ...deps,
        ...(configError === undefined ? {} : { configError }),
        ...(standby ? { ha: standby } : {}),
      });
      placed?.settled(result.standby ? undefined : result.build.report.exports.map((e) => e.file));
      status = result.status;
      if (result.standby) {
        // A standby publishes nothing: one line per reason, not one per build.
        const reason = result.status.ha?.reason ?? 'not the holder';
        if (standbyReasons.fresh(reason, options.deps.now().getTime()))
          log.info(`ha: standby: ${reason}`, { event: 'ha', role: 'standby' });
        // The lock lost mid-publish: which file was not put in place.
        for (const warning of result.warnings) log.warn(warning, { event: 'ha', ok: false });
        metrics.recordBuild(result, new Map());
      } else {
        standbyReasons.clear();
        firstReport ??= { report: result.build.report, config };
        const files = await fileStats(result.build.report.exports.map((e) => e.file));
        const changedAt = new Map([...files].map(([file, stats]) => [file, stats.mtime]));
        metrics.recordBuild(result, changedAt);
        dashboard.built(result.build.report, config, result.durationMs, files);
        for (const warning of result.warnings) log.warn(warning);
        // Each reason when it starts and when it ends, so a 30-second schedule does not repeat the same lines forever.
        logReasons(result.build);
        // A line when something changed, else a heartbeat now and then: not 2,880 alike lines a day.
        await buildLog.built(result, config, changedAt, options.deps.now(), changed);
      }
    } catch (error) {
      metrics.recordFailedBuild(performance.now() - started);
      const details =
        error instanceof RatefileError && error.details.length > 0 ? ` — ${error.details.join('; ')}` : '';
      log.error(`build failed, last good files kept: ${describeError(error)}${details}`);
      buildLog.failed(options.deps.now());
      // runCycle records its own failures in the state folder.
      status = await readStatus(options.config.stateDir);
    }
    await sweepState();
    // Queued, never awaited: a channel that is down does not slow a build.
    if (notifier && status) {
      const monitors = await readers.problems(options.deps.now());
      await notifier.observe(status, options.deps.now(), monitors.problems, monitors.recoveries);
    }
  };

  const builds = buildRunner(cycle, log);
  const rebuild = builds.build;
  // A changed quotes or reserves file is built at once (the build line names it, relative to the config).
  const sourceWatch = watchSourceFiles({
    log,
    onChange: (files) => builds.changed(files.map((file) => relative(options.config.dir, file))),
  });

  // The first files should compete already: the feeds are asked first and waited for a little, at most
  // FIRST_FEED_WAIT_MS (a feed host that hangs delays start-up by that much once; builds never wait for it).
  await startFeedFetches(options.config.sources, {
    configDir: options.config.dir,
    fetch: options.deps.fetch ?? globalThis.fetch,
    now: options.deps.now,
    env: options.deps.env ?? process.env,
    schedulePeriodMs: options.config.schedulePeriodMs,
    cache: quoteCache,
  });
  await settledWithin(quoteCache, FIRST_FEED_WAIT_MS);
  await rebuild();
  const healthz = healthRoutes({
    status: () => status,
    now: options.deps.now,
    ...(standby ? { ha: () => standby.status() } : {}),
    shown: dashboard.shown,
  });
  const pages: Record<string, Route> = {
    ...dashboard.routes(() => status, readers.view),
    '/healthz': healthz.full,
    '/metrics': metrics.route,
  };
  // Requests counted by route: the pages, each export file by name, everything else as `other`.
  const exportPaths = new Set(options.config.exports.map((e) => `/${e.file}`));
  // A start that fails here leaves no watch behind to start builds.
  const listeners: Listeners | undefined = serve
    ? await openListeners({
        outDir,
        main: { host: options.host, port: options.port },
        private: privateAddress,
        pages,
        publicRoutes: { '/healthz': healthz.bare },
        refuse: standby ? (exposed) => standbyRefusal(() => standby.status(), exposed) : undefined,
        declared: () => declared,
        onRequest: (routes, request, response) => {
          const path = requestPath(request.url ?? '');
          const route = Object.hasOwn(routes, path) || exportPaths.has(path) ? path : 'other';
          response.once('finish', () => metrics.recordRequest(route, response.statusCode));
          if (route === 'other' || exportPaths.has(path))
            readers.served(request, response, path, route === 'other' ? undefined : path.slice(1));
        },
      }).catch((error: unknown) => {
        sourceWatch.close();
        throw error;
      })
    : undefined;
  const server = listeners?.main;
  const port = listeners?.port;
  const task = scheduleBuilds(options.config.schedule, () => void rebuild(), log);
  const files = options.config.exports.map((e) => e.file).join(', ');
  // The address really bound: 0.0.0.0 says every interface, never dressed up as localhost.
  log.info(
    server
      ? `serving ${outDir} at ${boundUrl(server)} (${files}); rebuilding on "${options.config.schedule}"`
      : `writing ${outDir} (${files}), not serving; rebuilding on "${options.config.schedule}"`,
  );
  const pagesNote = listeners && pagesNoteOf(listeners, options.host);
  if (pagesNote) log.info(pagesNote);
  // When the file sources' quotes expire and what renews them: a newcomer learns it before the directions go.
  if (firstReport) {
    const { report, config } = firstReport;
    for (const note of freshnessNotes(
      config.sources,
      report.sources,
      (source) => sourceMaxAgeMs(source, config.schedulePeriodMs),
      report.startedAt,
    ))
      log[note.level](note.text);
  }

  return {
    port,
    server,
    privatePort: listeners?.private ? portOfServer(listeners.private) : undefined,
    rebuild,
    status: () => status,
    alertsIdle: async () => notifier?.idle(),
    async stop() {
      sourceWatch.close();
      await task.stop();
      await task.destroy();
      await builds.stop();
      // The lock goes with the session: the standby takes it at its next build.
      placed?.close();
      standby?.close();
      quoteCache.close();
      // Undelivered alerts stay in the state folder for the next start.
      await notifier?.stop();
      await dashboard.idle();
      await listeners?.close();
      await readers.stop();
    },
  };
}
