// The status file of the state folder as a cycle keeps it: read, written, and kept in memory when the folder cannot
// take it (a full disk), so a build that cannot keep its state is a failed build everywhere this process answers.
import { errorLine, RatefileError } from '../../base/errors.js';
import type { Config } from '../../model/config.js';
import { failedStatus, type StatusContext } from '../../pure/status/status.js';
import type { Status } from '../../pure/status/report.js';
import { readStatusFile, writeStatusFile } from '../state/state.js';

/**
 * The status of the last cycle whose status file could not be written (a full disk), by state folder: still the
 * status, so this process's /healthz, log and alerts say the build failed and why, while the file lags behind.
 */
const unwritten = new Map<string, Status>();

/** The status as this process last made it when its file could not be written, else the status file. */
export async function readStatus(stateDir: string): Promise<Status | undefined> {
  const kept = unwritten.get(stateDir);
  if (kept) return kept;
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
  const status = failedStatus(
    await readStatus(config.stateDir),
    at,
    durationMs,
    errorLine(error),
    config.schedulePeriodMs,
    {
      healthPolicy: config.health,
      ...context,
    },
  );
  await keepStatus(config.stateDir, status).catch(() => undefined);
  return status;
}

/** The status written; kept in memory instead (`readStatus`) when the state folder cannot take it. */
export async function keepStatus(stateDir: string, status: Status): Promise<void> {
  try {
    await writeStatusFile(stateDir, status);
    unwritten.delete(stateDir);
  } catch (error) {
    unwritten.set(stateDir, status);
    throw error;
  }
}

/** A state file that could not be written (a full disk: ENOSPC) fails the build, naming the file and why. */
export function stateNotKept(error: unknown): never {
  throw new RatefileError(
    'E_PUBLISH',
    `the exports are published, but the state folder cannot keep this build: ${errorLine(error)}`,
    { cause: error },
  );
}
