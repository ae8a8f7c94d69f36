// `ratefile start`: build now, rebuild on the cron schedule and when a `file` source's file changes (never two at
// once), serve, and stop cleanly on a signal.
import type { Server } from 'node:http';
import { createServer as createProbe } from 'node:net';
import { relative } from 'node:path';
import { readStatus } from '../../io/build/cycle.js';
import { buildRunner, scheduleBuilds } from './schedule.js';
import { type BuildParts, runServiceBuild, type ServiceState } from './service-build.js';
import { waitForFirstFeeds } from './service-feeds.js';
import { sourceMaxAgeMs } from '../../io/quotes/source-options.js';
import { freshnessNotes } from '../../pure/sources/freshness.js';
import { boundUrl, requestPath, type Route } from '../server/server.js';
import {
  type Address,
  healthRoutes,
  openListeners,
  pagesNoteOf,
  portOfServer,
  type Listeners,
} from '../server/listeners.js';
import type { Status } from '../../pure/status/report.js';
import { standbyRefusal } from '../ha/serve.js';
import { startControl } from '../control/bot.js';
import { openBuildParts, type ServiceOptions } from './service-parts.js';
import { quoteRoute } from '../server/quote.js';

export type { ServiceOptions } from './service-parts.js';

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
