// The builds chart's points (when, how long, directions published and withheld) kept across restarts in
// `.ratefile/history/builds.jsonl`. The archive records only builds that changed an export, so a history read back
// from it alone lost every build that changed nothing: the chart had fewer points after a restart than before it.
// One line a recorded build, appended off the build's path in order; once an hour the file is rewritten without what
// is older than 24 hours (about 5 MB at a 1 s schedule); a torn last line (a kill mid-append) is skipped when read.
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError } from '../../base/errors.js';
import type { Logger } from '../../base/log.js';
import { STATE_FILE_MODE, stateFolder, writeStateFile } from '../../io/state/state-files.js';
import { HISTORY_MS, type HistoryLine } from './history.js';

const TRIM_EVERY_MS = 3_600_000;

export type BuildLine = Required<Pick<HistoryLine, 't' | 'ms' | 'n' | 'w'>>;

export const buildPointsPath = (stateDir: string) => join(stateDir, 'history', 'builds.jsonl');

const isBuildLine = (value: unknown): value is BuildLine => {
  const line = value as Partial<BuildLine> | null;
  return (
    typeof line?.t === 'string' &&
    !Number.isNaN(Date.parse(line.t)) &&
    [line.ms, line.n, line.w].every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0)
  );
};

/** The lines of the last 24 hours before `now`, in time order; none when the file is missing. */
export async function readBuildPoints(stateDir: string, now: Date): Promise<BuildLine[]> {
  const text = await readFile(buildPointsPath(stateDir), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  const from = now.getTime() - HISTORY_MS;
  const lines: BuildLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch {
      continue;
    }
    if (!isBuildLine(line)) continue;
    const at = Date.parse(line.t);
    if (at >= from && at <= now.getTime()) lines.push({ t: line.t, ms: line.ms, n: line.n, w: line.w });
  }
  return lines.sort((a, b) => Date.parse(a.t) - Date.parse(b.t));
}

export interface BuildPointsWriter {
  /** Queue a build's line; never throws (a write that fails is said once until one succeeds). */
  append(line: BuildLine): void;
  /** Resolves once the queued lines are written. */
  idle(): Promise<void>;
}

export function buildPointsWriter(stateDir: string, log: Logger, openedAt: Date): BuildPointsWriter {
  const path = buildPointsPath(stateDir);
  let writing = Promise.resolve();
  let trimmedAt = Number.NEGATIVE_INFINITY;
  let failing = false;
  const trim = async (now: Date) => {
    const kept = await readBuildPoints(stateDir, now);
    await writeStateFile(path, kept.map((line) => `${JSON.stringify(line)}\n`).join(''));
    trimmedAt = now.getTime();
  };
  // The first append trims what an earlier run left (its first hour may lie a day back).
  trimmedAt = openedAt.getTime() - TRIM_EVERY_MS;
  return {
    append(line) {
      writing = writing
        .then(async () => {
          const at = new Date(line.t);
          await stateFolder(join(stateDir, 'history'));
          if (at.getTime() - trimmedAt >= TRIM_EVERY_MS) await trim(at);
          await appendFile(path, `${JSON.stringify(line)}\n`, { mode: STATE_FILE_MODE });
          if (failing) log.info('history: build points are written again');
          failing = false;
        })
        .catch((error: unknown) => {
          if (!failing) log.warn(`history: cannot keep the build points: ${describeError(error)}`);
          failing = true;
        });
    },
    idle: () => writing,
  };
}
