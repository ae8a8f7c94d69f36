// One build cycle as both `ratefile build` and the scheduler run it: read the state, build, publish,
// keep the state and status, and a one-line summary.
import { build, type BuildDeps, type BuildResult } from './build.js';
import { gateFiles, refusedError } from './check/gate.js';
import { describeError, RatefileError } from './errors.js';
import { s3Publisher } from './hosting/s3.js';
import { uploadProblems, type UploadResult } from './hosting/s3-report.js';
import type { Config } from './model.js';
import { Compressions, fileSizes, type Compressed } from './compressions.js';
import { PlaceRefused, publishFiles, removeExports, type PublishResult } from './publish.js';
import { placeFence, uploadFence } from './ha/placed.js';
import {
  acceptRequests,
  clearAcceptRequests,
  maintenanceFlag,
  readGuardState,
  readPauses,
  readPublishedExports,
  readStatusFile,
  writeGuardState,
  writePublishedExports,
  writeStatusFile,
} from './state.js';
import type { PublishGate } from './ha/standby.js';
import { failedStatus, successStatus, type StatusContext } from './status.js';
import { writeLiveCodes } from './live-codes.js';
import { readWarMemory, warDirections, writeWarMemory } from './war-state.js';
import { readListingMemory, writeListingMemory } from './listing-state.js';
import type { Status } from './report.js';
import { directionName, plural } from './words.js';

export interface CycleResult {
  build: BuildResult;
  publish: PublishResult;
  /** Exports ratefile published before that no template declares any more: removed with their compressed copies. */
  removed: string[];
  durationMs: number;
  publishMs: number;
  status: Status;
  /** The upload to `publish.s3` after the files were written, when the config has one. */
  upload?: UploadResult;
  /** Problems with the state folder worth a log line (an unreadable guard file), and failed uploads. */
  warnings: string[];
  /** True when another instance holds the `ha:` lock: this build published nothing. */
  standby?: true;
}

export type CycleDeps = Omit<BuildDeps, 'guard' | 'onFile'> & {
  elapsed?: () => number;
  /** Why the config file was rejected on reload, when `config` is the last good one (kept in the status). */
  configError?: string;
  /** With an `ha:` block: asked right before publishing; only the lock's holder publishes. */
  ha?: PublishGate;
  /** The gzip and brotli compression (tests count its calls); absent: publish's `compress`. */
  compress?: (bytes: Buffer) => Promise<Compressed>;
};

export async function readStatus(stateDir: string): Promise<Status | undefined> {
  try {
    return (await readStatusFile(stateDir)) as Status | undefined;
  } catch {
    return undefined;
  }
}

/** Record a build that failed before publishing (the last good files stay), and rethrow nothing: returns the status. */
export async function recordFailure(
  config: Pick<Config, 'stateDir' | 'schedulePeriodMs' | 'health'>,
  at: Date,
  durationMs: number,
  error: unknown,
  context: StatusContext = {},
): Promise<Status> {
  const details = error instanceof RatefileError && error.details.length > 0 ? ` — ${error.details.join('; ')}` : '';
  const status = failedStatus(
    await readStatus(config.stateDir),
    at,
    durationMs,
    `${describeError(error)}${details}`,
    config.schedulePeriodMs,
    {
      healthPolicy: config.health,
      ...context,
    },
  );
  await writeStatusFile(config.stateDir, status).catch(() => undefined);
  return status;
}

export async function runCycle(config: Config, outDir: string, deps: CycleDeps): Promise<CycleResult> {
  const elapsed = deps.elapsed ?? (() => performance.now());
  const started = elapsed();
  const at = deps.now();
  const context: StatusContext = {
    healthPolicy: config.health,
    ...(deps.configError === undefined ? {} : { configError: deps.configError }),
  };
  try {
    const [guardFile, accepted, maintenance, published, pauses, warFile, listingFile, sizes] = await Promise.all([
      readGuardState(config.stateDir),
      acceptRequests(config.stateDir),
      maintenanceFlag(config.stateDir),
      readPublishedExports(config.stateDir, outDir),
      readPauses(config.stateDir),
      readWarMemory(config.stateDir, warDirections(config)),
      readListingMemory(config.stateDir, new Set(config.directions.filter((d) => d.compete).map((d) => d.id))),
      fileSizes(
        outDir,
        config.exports.map((e) => e.file),
      ),
    ]);
    // A standby builds from the guard state the holder last published, so a jump it held back stays held back.
    const shared = await deps.ha?.sharedGuard();
    // Each export whose size differs from its published file has surely changed: it compresses on libuv's pool
    // while the next export renders. One the same size may be unchanged: publish compares it first, as it
    // compresses nothing unchanged. A standby (by its last known role) publishes nothing, so compresses nothing.
    const compressions = new Compressions(deps.compress);
    const early = !deps.ha || deps.ha.status().role === 'leader';
    const result = await build(config, {
      ...deps,
      now: () => at,
      ...(early
        ? {
            onFile: (file) => {
              if (sizes.get(file.file) !== file.bytes.length) compressions.start(file);
            },
          }
        : {}),
      guard: {
        state: shared ?? guardFile.state,
        accepted,
        maintenance,
        pauses,
        wars: warFile.memory,
        listing: listingFile.memory,
      },
    });
    /** The build's status (with this instance's role under `ha:`), written to the state folder. */
    const recordStatus = async (durationMs: number) => {
      const status = successStatus(
        await readStatus(config.stateDir),
        result.report,
        durationMs,
        config.schedulePeriodMs,
        { ...context, ...(deps.ha ? { ha: deps.ha.status() } : {}) },
      );
      await writeStatusFile(config.stateDir, status);
      return status;
    };
    /** A standby's cycle (not the holder, or the lock lost mid-publish): built, nothing (more) published. */
    const asStandby = async (warnings: string[]): Promise<CycleResult> => {
      const durationMs = Math.round(elapsed() - started);
      const status = await recordStatus(durationMs);
      const publish = { written: [], unchanged: [] };
      return { build: result, publish, removed: [], durationMs, publishMs: 0, status, warnings, standby: true };
    };
    if (deps.ha && !(await deps.ha.mayPublish(config, at))) return asStandby([]);
    const publishStarted = elapsed();
    // Recorded before they are written, so a build killed mid-publish still leaves them to be removed one day.
    const declared = config.exports.map((e) => e.file);
    if (declared.some((file) => !published.files.includes(file)))
      await writePublishedExports(config.stateDir, outDir, [...published.files, ...declared]);
    // Each file must pass the export check first: one that fails is not written and its last good version
    // stays. The check runs while the changed files compress.
    let gate: ReturnType<typeof gateFiles> = { passing: [], refused: [] };
    const { liveCodes } = result.report;
    // Under `ha:`, each file is confirmed on the lock (and by the build's age) right before its rename.
    const clock = { now: deps.now, periodMs: config.schedulePeriodMs };
    const beforePlace = deps.ha ? placeFence(deps.ha, at, clock) : undefined;
    // Only exports ratefile itself published here are removed: the folder may hold other files.
    const removed = published.files.filter((file) => !declared.includes(file));
    let publish: PublishResult;
    try {
      publish = await publishFiles(result.files, outDir, {
        admit: (files) => (gate = gateFiles(files, liveCodes)).passing,
        compressions,
        ...(beforePlace ? { beforePlace } : {}),
      });
      if (removed.length > 0) {
        await beforePlace?.(`${outDir}/${removed[0]}`);
        await removeExports(removed, outDir);
        await writePublishedExports(config.stateDir, outDir, declared);
      }
    } catch (error) {
      if (!(error instanceof PlaceRefused)) throw error;
      // A lost lock: this instance is a standby now, and the new holder publishes. A build too old: it fails.
      if (!error.lost) throw new RatefileError('E_PUBLISH', `${error.message}; the next build publishes`);
      return asStandby([error.message]);
    }
    // Only config warnings read it: a state folder that cannot take it is a warning, never a failed build.
    const codesProblem = liveCodes
      ? await writeLiveCodes(config.stateDir, liveCodes).then(
          () => undefined,
          (error: unknown) => `cannot record BestChange's code list in ${config.stateDir}: ${(error as Error).message}`,
        )
      : undefined;
    const publishMs = elapsed() - publishStarted;
    // Kept only once the files are out, so the state always describes what was published.
    await writeGuardState(config.stateDir, result.report.guardState, at);
    if (result.report.warMemory) await writeWarMemory(config.stateDir, result.report.warMemory, at);
    if (result.report.listingMemory) await writeListingMemory(config.stateDir, result.report.listingMemory, at);
    await clearAcceptRequests(config.stateDir, result.report.acceptedUsed);
    const guardProblem = await deps.ha?.published(result.report.guardState);
    // Never throws: a failed upload is a warning, the local files stay, and the next build retries it.
    const lostLock = config.publish.s3 && deps.ha && !(await deps.ha.stillHolds());
    const upload =
      config.publish.s3 && !lostLock
        ? await s3Publisher(config.publish.s3, config.stateDir).upload(gate.passing, {
            declared,
            ...(deps.ha ? { beforePut: uploadFence(deps.ha, at, clock) } : {}),
          })
        : undefined;
    if (gate.refused.length > 0) throw refusedError(gate.refused);
    const durationMs = Math.round(elapsed() - started);
    const status = await recordStatus(durationMs);
    const warnings = [
      ...(guardProblem ? [guardProblem] : []),
      ...(lostLock ? ['ha: the lock was lost after the local publish: the S3 upload was left to the new holder'] : []),
      ...(guardFile.problem ? [guardFile.problem] : []),
      ...(warFile.problem ? [warFile.problem] : []),
      ...(listingFile.problem ? [listingFile.problem] : []),
      ...(published.problem ? [published.problem] : []),
      ...(codesProblem ? [codesProblem] : []),
      ...(upload ? uploadProblems(upload) : []),
    ];
    return { build: result, publish, removed, durationMs, publishMs, status, ...(upload ? { upload } : {}), warnings };
  } catch (error) {
    await recordFailure(config, at, Math.round(elapsed() - started), error, {
      ...context,
      ...(deps.ha ? { ha: deps.ha.status() } : {}),
    });
    throw error;
  }
}

/** "published 36 directions, 2 held back; parserfile.xml 41 items (written), …; 12 ms; failing sources: x". */
export function summarize(cycle: CycleResult): string {
  const { report } = cycle.build;
  const files = report.exports
    .map(
      (e) =>
        `${e.file} ${plural(e.counted ?? e.items, 'item')} (${cycle.publish.written.includes(e.file) ? 'written' : 'unchanged'})`,
    )
    .join(', ');
  const failing = report.sources.filter((s) => !s.ok).map((s) => s.name);
  const { directions } = report;
  return [
    ...(report.maintenance ? ['MAINTENANCE: every export published empty'] : []),
    `published ${plural(directions.published.length, 'direction')}, ${directions.withheld.length} held back${directions.leftOut.length > 0 ? `, ${directions.leftOut.length} left out of some exports` : ''}`,
    files,
    ...(cycle.removed.length > 0
      ? [
          `removed ${cycle.removed.join(', ')} (no template declares ${cycle.removed.length === 1 ? 'it' : 'them'} any more)`,
        ]
      : []),
    ...(cycle.upload ? [uploadSummary(cycle.upload)] : []),
    `${cycle.durationMs} ms`,
    ...(failing.length > 0 ? [`failing sources: ${failing.join(', ')}`] : []),
  ].join('; ');
}

/** The build line's facts as fields, for `--log-format json`. */
export function buildFields(cycle: CycleResult): Record<string, unknown> {
  const { report } = cycle.build;
  return {
    event: 'build',
    maintenance: report.maintenance,
    published: report.directions.published.length,
    heldBack: report.directions.withheld.length,
    ...(report.directions.leftOut.length > 0 ? { leftOut: report.directions.leftOut.length } : {}),
    durationMs: cycle.durationMs,
    failingSources: report.sources.filter((s) => !s.ok).map((s) => s.name),
    exports: report.exports.map((e) => ({
      file: e.file,
      items: e.counted ?? e.items,
      written: cycle.publish.written.includes(e.file),
    })),
    removed: cycle.removed,
    ...(cycle.upload
      ? {
          s3: {
            uploaded: cycle.upload.uploaded,
            unchanged: cycle.upload.unchanged,
            removed: cycle.upload.removed,
            failed: cycle.upload.failed.map((f) => f.file),
          },
        }
      : {}),
  };
}

/** "s3 2 uploaded, 1 unchanged, 1 FAILED" (and "1 removed" when exports were dropped). */
export function uploadSummary(upload: UploadResult): string {
  const removed = upload.removed.length > 0 ? `, ${upload.removed.length} removed` : '';
  const failed = upload.failed.length > 0 ? `, ${upload.failed.length} FAILED` : '';
  return `s3 ${upload.uploaded.length} uploaded, ${upload.unchanged.length} unchanged${removed}${failed}`;
}

/** Detail lines worth a separate log line: failing sources, rejected quotes and held-back directions. */
export function problemLines(result: BuildResult): string[] {
  const { report } = result;
  return [
    ...report.sources.filter((s) => !s.ok).map((s) => `source ${s.name} failed: ${s.error ?? 'unknown error'}`),
    ...report.sources.flatMap((s) => s.rejected.map((reason) => `source ${s.name}: dropped quote ${reason}`)),
    ...report.reserves.filter((r) => r.error !== undefined).map((r) => `reserve source ${r.name} failed: ${r.error}`),
    ...report.directions.withheld.map(
      (w) =>
        `held back ${directionName(w.direction.from.code, w.direction.to.code)} (directions[${w.direction.index}]): ${w.reason}`,
    ),
    ...report.directions.leftOut.map(
      (o) =>
        `published ${directionName(o.direction.from.code, o.direction.to.code)} (directions[${o.direction.index}]) but ${o.reason}`,
    ),
  ];
}
