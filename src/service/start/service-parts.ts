// The parts a running service builds with, opened once at start: the archive and the dashboard, the caches, the
// standby (`ha:`), the metrics, the readers, the outside watch, the notifier, the source-file watch and the streams.
import { createBuildLog } from './build-log.js';
import { reasonLog } from './reasons.js';
import type { BuildParts, ServiceState } from './service-build.js';
import { serviceQuoteCache } from './service-feeds.js';
import { watchSourceFiles } from './source-watch.js';
import { openStreams } from './streams.js';
import { createChannels } from '../alerts/channels.js';
import { createNotifier } from '../alerts/notifier.js';
import { createMetrics } from '../server/metrics.js';
import { ReserveCache } from '../../io/reserves/fetch.js';
import { openDashboard } from '../dashboard/board.js';
import { openReaders } from '../readers/tracker.js';
import { createStandby } from '../../io/ha/standby.js';
import { repeatFilter } from '../../pure/ha/repeats.js';
import { guardPlaced } from '../../io/ha/placed-watch.js';
import { lastGoodConfig } from './last-good-config.js';
import { openOutsideWatch } from './outside-watch.js';
import { alertButtons } from '../control/buttons.js';
import { openServiceArchive } from './service-archive.js';
import type { BuildDeps } from '../../io/build/build.js';
import type { Logger } from '../../base/log.js';
import type { Config } from '../../model/config.js';
import type { CommandRunner } from '../control/context.js';

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

export interface BuildTriggers {
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
export async function openBuildParts(
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
