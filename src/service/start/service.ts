// `ratefile start`: build now, rebuild on the cron schedule and when a `file` source's file changes (never two at
// once), serve, and stop cleanly on a signal.
import type { Server } from 'node:http';
import { createServer as createProbe } from 'node:net';
import { relative } from 'node:path';
import type { BuildDeps } from '../../io/build/build.js';
import { readStatus } from '../../io/build/cycle.js';
import { createBuildLog } from './build-log.js';
import { reasonLog } from './reasons.js';
import { buildRunner, scheduleBuilds } from './schedule.js';
import { type BuildParts, runServiceBuild, type ServiceState } from './service-build.js';
import { serviceQuoteCache, waitForFirstFeeds } from './service-feeds.js';
import { watchSourceFiles } from './source-watch.js';
import { openStreams } from './streams.js';
import type { Logger } from '../../base/log.js';
import type { Config } from '../../model/config.js';
import { createChannels } from '../alerts/channels.js';
import { createNotifier } from '../alerts/notifier.js';
import { createMetrics } from '../server/metrics.js';
import { sourceMaxAgeMs } from '../../io/quotes/source-options.js';
import { freshnessNotes } from '../../pure/sources/freshness.js';
import { ReserveCache } from '../../io/reserves/fetch.js';
import { boundUrl, requestPath, type Route } from '../server/server.js';
import {
  type Address,
  healthRoutes,
  openListeners,
  pagesNoteOf,
  portOfServer,
  type Listeners,
} from '../server/listeners.js';
import { openDashboard } from '../dashboard/board.js';
import { openReaders } from '../readers/tracker.js';
import type { Status } from '../../pure/status/report.js';
import { createStandby } from '../../io/ha/standby.js';
import { standbyRefusal } from '../ha/serve.js';
import { repeatFilter } from '../../pure/ha/repeats.js';
import { guardPlaced } from '../../io/ha/placed-watch.js';
import { lastGoodConfig } from './last-good-config.js';
import { openOutsideWatch } from './outside-watch.js';
import { alertButtons } from '../control/buttons.js';
import { startControl } from '../control/bot.js';
import type { CommandRunner } from '../control/context.js';
import { openServiceArchive } from './service-archive.js';
import { quoteRoute } from '../server/quote.js';

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
  /** false: build on the schedule only, not also when a `file` source's file changes (src/service/start/source-watch.ts). Default true. */
  watchFiles?: boolean;
  /** Checked once the port is known to be free and before the first build writes anything (see checkFolders). */
  checkFolders?: () => Promise<void>;
  /** The CLI the control bot runs its commands with (`control:`; src/commands/control-runner.ts). */
  commands?: CommandRunner;
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
  /** With `watch:`: fetch every public copy now and judge it (the watch does it every `watch.every`). */
  checkOutside(): Promise<void>;
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

export async function startService(options: ServiceOptions): Promise<Service> {
  const serve = options.serve ?? true;
  const privateAddress = serve ? options.config.server.private : undefined;
  // A taken port is reported before anything is created or written; then the folders, then the first build.
  if (serve && options.port !== 0) await assertCanListen(options.port, options.host);
  if (privateAddress && privateAddress.port !== 0) await assertCanListen(privateAddress.port, privateAddress.host);
  await options.checkFolders?.();
  const state: ServiceState = {
    status: await readStatus(options.config.stateDir),
    config: options.config,
    declared: new Set(options.config.exports.map((e) => e.file)),
    headers: options.config.server.headers,
    firstReport: undefined,
  };
  const parts = await openBuildParts(options, serve, state, {
    rebuild: () => rebuild(),
    changed: (files) => builds.changed(files.map((file) => relative(options.config.dir, file))),
    moved: (sources) => builds.changed(sources),
  });
  const builds = buildRunner((changed) => runServiceBuild(parts, state, changed), options.log);
  const rebuild = builds.build;
  // The first files should compete already: the feeds are asked first and waited for a little.
  await waitForFirstFeeds(options.config, parts.deps);
  await rebuild();
  // A start that fails here leaves no watch behind to start builds.
  const listeners = serve
    ? await openServing(options, parts, state, privateAddress).catch((error: unknown) => {
        parts.sourceWatch.close();
        throw error;
      })
    : undefined;
  const task = scheduleBuilds(options.config.schedule, () => void rebuild(), options.log);
  // The public copies are first judged once the first build published, then every `watch.every`.
  const firstCheck = parts.outside?.checkNow();
  announceStart(options, listeners, state.firstReport);
  const control = startControl(options.config, {
    env: options.deps.env ?? process.env,
    fetch: options.deps.fetch ?? globalThis.fetch,
    now: options.deps.now,
    log: options.log,
    standby: parts.standby,
    run: options.commands,
  });
  return {
    port: listeners?.port,
    server: listeners?.main,
    privatePort: listeners?.private ? portOfServer(listeners.private) : undefined,
    rebuild,
    status: () => state.status,
    alertsIdle: async () => parts.notifier?.idle(),
    checkOutside: async () => parts.outside?.checkNow(),
    async stop() {
      await control?.stop();
      parts.sourceWatch.close();
      parts.streams.stop();
      await firstCheck;
      await parts.outside?.stop();
      await task.stop();
      await task.destroy();
      await builds.stop();
      // The lock goes with the session: the standby takes it at its next build.
      parts.placed?.close();
      parts.standby?.close();
      parts.deps.quoteCache.close();
      // Undelivered alerts stay in the state folder for the next start.
      await parts.notifier?.stop();
      await parts.dashboard.idle();
      await parts.archive.stop();
      await listeners?.close();
      await parts.readers.stop();
    },
  };
}

/** What the parts call back: a build now (a leader's files replaced), a build for changed source files or streamed moves. */
interface BuildTriggers {
  rebuild: () => Promise<void>;
  changed: (files: string[]) => void;
  moved: (sources: string[]) => void;
}

/** With `ha:`, every build runs and only the lock's holder publishes (src/io/ha/standby.ts). */
function openStandby(options: ServiceOptions, env: NodeJS.ProcessEnv, triggers: BuildTriggers) {
  const { log, outDir } = options;
  const standby = options.config.ha ? createStandby(options.config, { env, log, now: options.deps.now }) : undefined;
  // A leader's files replaced by another writer (an old leader resumed from a pause) are put back at once.
  const placed = standby
    ? guardPlaced({
        dir: outDir,
        standby,
        log,
        now: options.deps.now,
        periodMs: options.config.schedulePeriodMs,
        rebuild: triggers.rebuild,
      })
    : undefined;
  return { standby, placed };
}

/** Alerts as the config at start-up says: a channel is not added or dropped by a reload. */
function openNotifier(options: ServiceOptions, env: NodeJS.ProcessEnv, state: ServiceState) {
  const alerts = options.config.alerts;
  if (!alerts) return undefined;
  return createNotifier({
    channels: createChannels(alerts, env, options.deps.fetch, {
      telegramButtons: alertButtons(options.config, env, () => state.status, options.deps.now),
    }),
    stateDir: options.config.stateDir,
    reminderMs: alerts.reminder,
    log: options.log,
  });
}

/** The dashboard, the caches, the standby, the metrics, the readers and the notifier, in that order. */
async function openBuildParts(
  options: ServiceOptions,
  serve: boolean,
  state: ServiceState,
  triggers: BuildTriggers,
): Promise<BuildParts> {
  const { log, outDir } = options;
  const env = options.deps.env ?? process.env;
  const logReasons = reasonLog(log);
  const buildLog = createBuildLog(log);
  // Every published export kept (`archive:`): the dashboard's history of the last 24 hours is read back from it.
  const archive = await openServiceArchive({ config: options.config, outDir, env, log, now: options.deps.now });
  const dashboard = await openDashboard({
    config: options.config,
    outDir,
    env,
    log,
    now: options.deps.now,
    archive: archive.archive,
  });
  const deps = {
    ...options.deps,
    quoteCache: options.deps.quoteCache ?? serviceQuoteCache(log),
    reserveCache: options.deps.reserveCache ?? new ReserveCache(),
  };
  const { standby, placed } = openStandby(options, env, triggers);
  const configs = lastGoodConfig(options.loadConfig, options.config, log);
  const metrics = createMetrics(
    () => state.status,
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
  // The public copies as the config at start-up names them (`watch:`).
  const watch = options.config.watch;
  const outside = watch
    ? await openOutsideWatch({
        config: watch,
        stateDir: options.config.stateDir,
        log,
        now: options.deps.now,
        registry: metrics.registry,
      })
    : undefined;
  const notifier = openNotifier(options, env, state);
  // A changed quotes or reserves file is built at once (the build line names it, relative to the config).
  const sourceWatch = watchSourceFiles({ log, onChange: triggers.changed });
  // The streamed sources' feeds, and a build when a streamed quote moves a published number.
  const streams = openStreams({
    cache: deps.quoteCache,
    log,
    now: options.deps.now,
    fetch: options.deps.fetch ?? globalThis.fetch,
    env,
    build: triggers.moved,
    registry: metrics.registry,
  });
  return {
    log,
    outDir,
    stateDir: options.config.stateDir,
    deps,
    configs,
    sourceWatch,
    streams,
    watchFiles: options.watchFiles !== false,
    standby,
    placed,
    standbyReasons: repeatFilter(),
    archive,
    metrics,
    dashboard,
    readers,
    outside,
    notifier,
    logReasons,
    buildLog,
  };
}

/** The pages (dashboard, /healthz, /metrics) and the exports, on the main address and `server.private`. */
async function openServing(
  options: ServiceOptions,
  parts: BuildParts,
  state: ServiceState,
  privateAddress: Address | undefined,
): Promise<Listeners> {
  const { standby, metrics, readers } = parts;
  const healthz = healthRoutes({
    status: () => state.status,
    now: options.deps.now,
    ...(standby ? { ha: () => standby.status() } : {}),
    shown: parts.dashboard.shown,
  });
  const pages: Record<string, Route> = {
    ...parts.dashboard.routes(() => state.status, readers.view, parts.outside?.view),
    '/healthz': healthz.full,
    '/metrics': metrics.route,
    // The signed quote for the exchanger's engine: a page, so never on an address others reach.
    '/quote': quoteRoute({
      archive: parts.archive.archive,
      config: () => state.config,
      status: () => state.status,
      now: options.deps.now,
      ...(standby ? { ha: () => standby.status() } : {}),
    }),
  };
  // Requests counted by route: the pages, each export file by name, everything else as `other`.
  const exportPaths = new Set(options.config.exports.map((e) => `/${e.file}`));
  return openListeners({
    outDir: options.outDir,
    main: { host: options.host, port: options.port },
    private: privateAddress,
    pages,
    publicRoutes: { '/healthz': healthz.bare },
    refuse: standby ? (exposed) => standbyRefusal(() => standby.status(), exposed) : undefined,
    declared: () => state.declared,
    headers: () => state.headers,
    onRequest: (routes, request, response) => {
      const path = requestPath(request.url ?? '');
      const route = Object.hasOwn(routes, path) || exportPaths.has(path) ? path : 'other';
      response.once('finish', () => metrics.recordRequest(route, response.statusCode));
      if (route === 'other' || exportPaths.has(path))
        readers.served(request, response, path, route === 'other' ? undefined : path.slice(1));
    },
  });
}

/** Where the files are written and served, where the pages are, and when the file sources' quotes expire. */
function announceStart(
  options: ServiceOptions,
  listeners: Listeners | undefined,
  firstReport: ServiceState['firstReport'],
): void {
  const { log, outDir } = options;
  const server = listeners?.main;
  const files = options.config.exports.map((e) => e.file).join(', ');
  // The address really bound: 0.0.0.0 says every interface, never dressed up as localhost.
  log.info(
    server
      ? `serving ${outDir} at ${boundUrl(server)} (${files}); rebuilding on "${options.config.schedule}"`
      : `writing ${outDir} (${files}), not serving; rebuilding on "${options.config.schedule}"`,
  );
  const pagesNote = listeners && pagesNoteOf(listeners, options.host);
  if (pagesNote) log.info(pagesNote);
  // When the file sources' quotes expire and what renews them: a newcomer learns it before the directions go. Told
  // at the clock of the line, not of the build: after a slow first build "in 33 s" may already be past.
  if (!firstReport) return;
  const { report, config } = firstReport;
  for (const note of freshnessNotes(
    config.sources,
    report.sources,
    (source) => sourceMaxAgeMs(source, config.schedulePeriodMs),
    options.deps.now(),
  ))
    log[note.level](note.text);
}
