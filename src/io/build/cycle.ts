// One build cycle as both `ratefile build` and the scheduler run it: read the state, build, publish,
// keep the state and status, and a one-line summary.
import { build, type BuildDeps, type BuildResult, type GuardContext } from './build.js';
import { withdrawLate } from './late-quotes.js';
import { gateFiles, refusedError } from '../../pure/check/gate.js';
import { RatefileError } from '../../base/errors.js';
import { s3Publisher } from '../hosting/s3.js';
import { uploadProblems, type UploadResult } from '../hosting/s3-report.js';
import type { Config, OutputFile } from '../../model/config.js';
import { Compressions, fileSizes, type Compressed } from './compressions.js';
import { PlaceRefused, publishFiles, removeExports, type PublishResult } from './publish.js';
import { placeFence, uploadFence } from '../ha/placed.js';
import { slowBuildText } from '../../pure/ha/role.js';
import {
  acceptRequests,
  clearAcceptRequests,
  maintenanceFlag,
  readGuardState,
  readPauses,
  readPublishedExports,
  writeGuardState,
  writePublishedExports,
} from '../state/state.js';
import type { PublishGate } from '../ha/standby.js';
import type { Archive } from '../archive/archive.js';
import { successStatus, type StatusContext } from '../../pure/status/status.js';
import { writeLiveCodes } from '../state/live-codes.js';
import { keepStatus, readStatus, recordFailure, stateNotKept } from './cycle-status.js';
import { removeStaleStateTemporaries } from '../state/state-files.js';
import { lastExportsLoader } from '../state/last-exports.js';
import { readAnswers, writeYardsticks } from '../state/answer-state.js';
import { readWarMemory, warDirections, writeWarMemory } from '../state/war-state.js';
import { readListingMemory, writeListingMemory } from '../state/listing-state.js';
import type { BuildReport, OutsideProblem, Status } from '../../pure/status/report.js';
import { cycleWarnings, liveCodesNotKept } from '../../pure/status/cycle-lines.js';

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
  /** The watch from outside's problems now (`outside:<file>`), kept in the status: health counts them. */
  outside?: readonly OutsideProblem[];
  /** With an `ha:` block: asked right before publishing; only the lock's holder publishes. */
  ha?: PublishGate;
  /** The gzip and brotli compression (tests count its calls); absent: publish's `compress`. */
  compress?: (bytes: Buffer) => Promise<Compressed>;
  /** The archive of published exports (src/io/archive/archive.ts): told of each publish, never failing it. */
  archive?: Pick<Archive, 'published' | 'status'>;
};

export { readStatus, recordFailure };

export async function runCycle(config: Config, outDir: string, deps: CycleDeps): Promise<CycleResult> {
  const elapsed = deps.elapsed ?? (() => performance.now());
  const cycle: Cycle = {
    config,
    outDir,
    deps,
    elapsed,
    started: elapsed(),
    at: deps.now(),
    context: {
      healthPolicy: config.health,
      ...(deps.configError === undefined ? {} : { configError: deps.configError }),
      ...(deps.outside ? { outside: deps.outside } : {}),
    },
  };
  try {
    const state = await readState(cycle);
    const built = await buildFromState(cycle, state);
    const { compressions } = built;
    // Quotes that passed their maxAge while the build ran are not published: their directions are withheld now.
    const result = withdrawLate(config, built.result, state.guard.state, deps.now());
    if (deps.ha) {
      refuseSlowBuild(cycle, deps.ha);
      if (!(await deps.ha.mayPublish(config, cycle.at))) return asStandby(cycle, state, result, []);
    }
    const publishStarted = elapsed();
    const published = await publish(cycle, state.published, result.files, result.report.liveCodes, compressions);
    if ('lost' in published) return asStandby(cycle, state, result, [published.lost]);
    const publishMs = elapsed() - publishStarted;
    // The state files are independent of one another: their writes wait on the disk together.
    const [liveCodesProblem, guardShared, archived] = await Promise.all([
      keepLiveCodes(config.stateDir, result.report.liveCodes),
      writeState(cycle, result.report, state.guard.yardsticks).catch(stateNotKept),
      archive(cycle, result.report, published.gate.passing, published.removed),
    ]);
    const { upload, lostLock } = await uploadExports(cycle, published.gate.passing, published.declared);
    if (published.gate.refused.length > 0) throw refusedError(published.gate.refused);
    const durationMs = Math.round(elapsed() - cycle.started);
    const status = await recordStatus(cycle, state.previousStatus, result, durationMs).catch(stateNotKept);
    const problems = { guardShared, lostLock, stateRead: state.problems, liveCodes: liveCodesProblem };
    const warnings = cycleWarnings({ ...problems, upload: upload ? uploadProblems(upload) : [] });
    if (archived?.warning) warnings.push(archived.warning);
    const { publish: files, removed } = published;
    return {
      build: result,
      publish: files,
      removed,
      durationMs,
      publishMs,
      status,
      ...(upload ? { upload } : {}),
      warnings,
    };
  } catch (error) {
    await recordFailure(config, cycle.at, Math.round(elapsed() - cycle.started), error, withRole(cycle));
    throw error;
  }
}

/** One cycle's givens: the clock read once (`at`), the elapsed-time clock and the status's context. */
interface Cycle {
  config: Config;
  outDir: string;
  deps: CycleDeps;
  elapsed: () => number;
  started: number;
  at: Date;
  context: StatusContext;
}

type CycleState = Awaited<ReturnType<typeof readState>>;

/** Everything kept in `.ratefile/` that the build and the publish need, read at once. */
async function readState({ config, outDir, deps }: Cycle) {
  const competing = new Set(config.directions.filter((d) => d.compete).map((d) => d.id));
  const declared = config.exports.map((e) => e.file);
  const all = await Promise.all([
    readGuardState(config.stateDir),
    acceptRequests(config.stateDir),
    maintenanceFlag(config.stateDir),
    readPublishedExports(config.stateDir, outDir),
    readPauses(config.stateDir),
    readWarMemory(config.stateDir, warDirections(config)),
    readListingMemory(config.stateDir, competing),
    fileSizes(outDir, declared),
    // Only cycles write the status: the one read now is still the last when this cycle records its own.
    readStatus(config.stateDir),
    readAnswers(config, deps.quoteCache),
    removeStaleStateTemporaries(config.stateDir),
  ]);
  const [guardFile, accepted, maintenance, published, pauses, warFile, listingFile, sizes, previousStatus, answers] =
    all;
  // A standby builds from the guard state the holder last published, so a jump it held back stays held back.
  const shared = await deps.ha?.sharedGuard();
  const guard: GuardContext = {
    state: shared ?? guardFile.state,
    accepted,
    maintenance,
    pauses,
    wars: warFile.memory,
    listing: listingFile.memory,
    lastExports: lastExportsLoader(config, outDir),
    yardsticks: answers.yardsticks,
  };
  const problems = [guardFile.problem, warFile.problem, listingFile.problem, published.problem, answers.problem];
  return { guard, published: published.files, sizes, problems, previousStatus };
}

/** The build, each changed export compressing while the next renders. */
async function buildFromState({ config, deps, at }: Cycle, state: CycleState) {
  // Each export whose size differs from its published file has surely changed: it compresses on libuv's pool
  // while the next export renders. One the same size may be unchanged: publish compares it first, as it
  // compresses nothing unchanged. A standby (by its last known role) publishes nothing, so compresses nothing.
  const compressions = new Compressions(deps.compress);
  const early = !deps.ha || deps.ha.status().role === 'leader';
  const onFile = (file: OutputFile) => {
    if (state.sizes.get(file.file) !== file.bytes.length) compressions.start(file);
  };
  const result = await build(config, { ...deps, now: () => at, ...(early ? { onFile } : {}), guard: state.guard });
  return { result, compressions };
}

/**
 * The gate and the publish: each file must pass the export check first (one that fails is not written and its
 * last good version stays; the check runs while the changed files compress), then exports no template declares
 * any more are removed. `lost`: the `ha:` lock was lost on the way.
 */
async function publish(
  { config, outDir, deps, at }: Cycle,
  published: readonly string[],
  files: OutputFile[],
  liveCodes: ReadonlySet<string> | undefined,
  compressions: Compressions,
) {
  // Recorded before they are written, so a build killed mid-publish still leaves them to be removed one day.
  const declared = config.exports.map((e) => e.file);
  if (declared.some((file) => !published.includes(file)))
    await writePublishedExports(config.stateDir, outDir, [...published, ...declared]);
  let gate: ReturnType<typeof gateFiles> = { passing: [], refused: [] };
  // Under `ha:`, each file is confirmed on the lock (and by the build's age) right before its rename.
  const beforePlace = deps.ha ? placeFence(deps.ha, at, fenceClock(config, deps)) : undefined;
  // Only exports ratefile itself published here are removed: the folder may hold other files.
  const removed = published.filter((file) => !declared.includes(file));
  try {
    const written = await publishFiles(files, outDir, {
      admit: (candidates) => (gate = gateFiles(candidates, liveCodes)).passing,
      compressions,
      ...(beforePlace ? { beforePlace } : {}),
    });
    if (removed.length > 0) {
      await beforePlace?.(`${outDir}/${removed[0]}`);
      await removeExports(removed, outDir);
      await writePublishedExports(config.stateDir, outDir, declared);
    }
    return { publish: written, removed, declared, gate };
  } catch (error) {
    if (!(error instanceof PlaceRefused)) throw error;
    // A lost lock: this instance is a standby now, and the new holder publishes. A build too old: it fails.
    if (!error.lost) throw new RatefileError('E_PUBLISH', `${error.message}; the next build publishes`);
    return { lost: error.message };
  }
}

/** Only config warnings read it: a state folder that cannot take it is a warning, never a failed build. */
async function keepLiveCodes(stateDir: string, liveCodes: ReadonlySet<string> | undefined) {
  if (!liveCodes) return undefined;
  return writeLiveCodes(stateDir, liveCodes).then(
    () => undefined,
    (error: unknown) => liveCodesNotKept(stateDir, error),
  );
}

/** Kept only once the files are out, so the state always describes what was published; the shared guard's problem. */
async function writeState({ config, deps, at }: Cycle, report: BuildReport, yardsticks: GuardContext['yardsticks']) {
  // Each file on its own, at once; an acceptance is used up (and the guard state shared) only once the guard
  // state that took it is kept.
  const [shared] = await Promise.all([
    writeGuardState(config.stateDir, report.guardState, at).then(async () => {
      await clearAcceptRequests(config.stateDir, report.acceptedUsed);
      return deps.ha?.published(report.guardState);
    }),
    report.warMemory && writeWarMemory(config.stateDir, report.warMemory, at),
    report.listingMemory && writeListingMemory(config.stateDir, report.listingMemory, at),
    yardsticks && writeYardsticks(config.stateDir, yardsticks),
  ]);
  return shared;
}

/** The exports served now into the archive, as of when they were in place. */
async function archive(
  { config, deps, at, elapsed, started }: Cycle,
  report: BuildReport,
  files: readonly OutputFile[],
  removed: string[],
) {
  const instance = deps.ha?.status().instance;
  return deps.archive?.published({
    config,
    at,
    published: deps.now(),
    files,
    removed,
    report,
    elapsedMs: elapsed() - started,
    ...(instance ? { instance } : {}),
  });
}

/** To `publish.s3`, unless the lock was lost. Never throws: a failed upload is a warning, the next build retries it. */
async function uploadExports({ config, deps, at }: Cycle, passing: readonly OutputFile[], declared: string[]) {
  const lostLock = Boolean(config.publish.s3 && deps.ha && !(await deps.ha.stillHolds()));
  const upload =
    config.publish.s3 && !lostLock
      ? await s3Publisher(config.publish.s3, config.stateDir).upload(passing, {
          declared,
          ...(deps.ha ? { beforePut: uploadFence(deps.ha, at, fenceClock(config, deps)) } : {}),
        })
      : undefined;
  return { upload, lostLock };
}

/**
 * Under `ha:`, a build that took a period or more is never published (the fence refuses it, and while it ran the
 * lock's session may have gone silent): the cause said as such, before the lock is asked or taken.
 */
function refuseSlowBuild({ config, elapsed, started, at }: Cycle, ha: PublishGate): void {
  const buildMs = elapsed() - started;
  if (buildMs < config.schedulePeriodMs) return;
  ha.tooSlow(buildMs, at);
  throw new RatefileError('E_PUBLISH', slowBuildText(buildMs, config.schedulePeriodMs));
}

const fenceClock = (config: Config, deps: CycleDeps) => ({ now: deps.now, periodMs: config.schedulePeriodMs });

/** The status context with this instance's role under `ha:`, as it is now. */
const withRole = ({ context, deps }: Cycle): StatusContext => ({
  ...context,
  ...(deps.ha ? { ha: deps.ha.status() } : {}),
  ...(deps.archive ? { archive: deps.archive.status() } : {}),
});

/** The build's status, written to the state folder. */
async function recordStatus(
  cycle: Cycle,
  previous: Status | undefined,
  result: BuildResult,
  durationMs: number,
): Promise<Status> {
  const { config } = cycle;
  const status = successStatus(previous, result.report, durationMs, config.schedulePeriodMs, withRole(cycle));
  await keepStatus(config.stateDir, status);
  return status;
}

/** A standby's cycle (not the holder, or the lock lost mid-publish): built, nothing (more) published. */
async function asStandby(
  cycle: Cycle,
  state: CycleState,
  result: BuildResult,
  warnings: string[],
): Promise<CycleResult> {
  const durationMs = Math.round(cycle.elapsed() - cycle.started);
  const status = await recordStatus(cycle, state.previousStatus, result, durationMs);
  const publish = { written: [], unchanged: [] };
  return { build: result, publish, removed: [], durationMs, publishMs: 0, status, warnings, standby: true };
}
