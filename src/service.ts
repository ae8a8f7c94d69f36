// `ratefile start`: build now, rebuild on the cron schedule (never two at once), serve, and stop cleanly on a signal.
import type { Server } from 'node:http';
import { createServer as createProbe } from 'node:net';
import cron from 'node-cron';
import type { BuildDeps } from './build.js';
import { buildFields, problemLines, readStatus, recordFailure, runCycle, summarize } from './cycle.js';
import { describeError, RatefileError } from './errors.js';
import { health, type Status } from './status.js';
import type { Logger } from './log.js';
import type { Config } from './model.js';
import { QuoteCache } from './quotes.js';
import { createExportServer, listen } from './server.js';
import { previewRoute, type PreviewState } from './preview/route.js';

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
}

export interface Service {
  /** The port bound; undefined when not serving. */
  port: number | undefined;
  server: Server | undefined;
  /** Run one build now unless one is running; resolves when it is done. */
  rebuild(): Promise<void>;
  /** Stop scheduling, let a running build finish, close the server. */
  stop(): Promise<void>;
  /** Status after the latest build (also in the state folder's status.json). */
  status(): Status | undefined;
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
  const { log, outDir } = options;
  const serve = options.serve ?? true;
  if (serve && options.port !== 0) await assertCanListen(options.port, options.host);
  let running: Promise<void> | undefined;
  let lastProblems = '';
  // The latest build that published, for the preview page at `/`.
  let latest: PreviewState['latest'];
  let status = await readStatus(options.config.stateDir);
  // Quotes within their source's refresh interval are reused across builds (a daily fixing is not refetched every 30 s).
  const deps: BuildDeps = { ...options.deps, quoteCache: options.deps.quoteCache ?? new QuoteCache() };

  const cycle = async (): Promise<void> => {
    const started = performance.now();
    let loaded = false;
    try {
      const config = await options.loadConfig();
      loaded = true;
      // The state folder, like the output folder, is the one the service started with.
      const result = await runCycle({ ...config, stateDir: options.config.stateDir }, outDir, deps);
      status = result.status;
      latest = { report: result.build.report, exports: config.exports };
      for (const warning of result.warnings) log.warn(warning);
      // Details only when they change, so a 30-second schedule does not repeat the same lines forever.
      const problems = problemLines(result.build);
      if (problems.join('\n') !== lastProblems) for (const line of problems) log.warn(line);
      lastProblems = problems.join('\n');
      log.info(`build: ${summarize(result)}`, buildFields(result));
    } catch (error) {
      const details = error instanceof RatefileError && error.details.length > 0 ? ` — ${error.details.join('; ')}` : '';
      log.error(`build failed, last good files kept: ${describeError(error)}${details}`);
      // runCycle records its own failures; a config that no longer loads is recorded here, in the
      // state folder of the config the service started with.
      status = loaded
        ? await readStatus(options.config.stateDir)
        : await recordFailure(options.config, options.deps.now(), Math.round(performance.now() - started), error);
    }
  };

  const rebuild = (): Promise<void> => {
    if (running) {
      log.warn('build skipped: the previous build is still running');
      return running;
    }
    running = cycle().finally(() => {
      running = undefined;
    });
    return running;
  };

  await rebuild();
  const server = serve
    ? createExportServer(outDir, {
        '/': previewRoute(() => ({ latest, status, now: options.deps.now() })),
        '/healthz': (_request, response) => {
          const { healthy, reason } = health(status, options.deps.now());
          response.writeHead(healthy ? 200 : 503, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache' });
          response.end(`${JSON.stringify({ healthy, reason, ...status }, null, 2)}\n`);
        },
      })
    : undefined;
  const port = server ? await listen(server, options.port, options.host) : undefined;
  const task = cron.schedule(options.config.schedule, () => void rebuild(), { name: 'ratefile-build' });
  const shown = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host;
  const files = options.config.exports.map((e) => e.file).join(', ');
  log.info(
    server
      ? `serving ${outDir} at http://${shown}:${port}/ (${files}); rebuilding on "${options.config.schedule}"`
      : `writing ${outDir} (${files}), not serving; rebuilding on "${options.config.schedule}"`,
  );

  return {
    port,
    server,
    rebuild,
    status: () => status,
    async stop() {
      await task.stop();
      await task.destroy();
      if (running) await running;
      if (server) {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      }
    },
  };
}
