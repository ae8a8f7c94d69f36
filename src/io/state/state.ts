// The state folder (.ratefile/): guard state, the last build's status, the exports published per output
// folder, and the operator's flags.
// Flags are separate files so `ratefile accept` and `ratefile maintenance` never race the service's writes.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { emptyGuardState, type GuardState, type PendingJump } from '../../pure/guards/guards.js';
import { writeStateFile } from './state-files.js';
import { redactValue } from '../../base/secrets.js';
import type { Pause } from '../../pure/pause/switches.js';
import { exportFileName } from '../../model/formats.js';

const guardFile = (dir: string) => join(dir, 'guard.json');
const statusFile = (dir: string) => join(dir, 'status.json');
const maintenanceFile = (dir: string) => join(dir, 'maintenance');
const acceptDir = (dir: string) => join(dir, 'accept');
const exportsFile = (dir: string) => join(dir, 'exports.json');
const pausedDir = (dir: string) => join(dir, 'paused');

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The guard state this process last wrote, by file: while the file is as it was written (same inode, size
 * and change time) the next build takes it from memory instead of parsing thousands of rates again.
 * `state` is the latest state (a skipped write leaves it newer than the file in its `at` times alone).
 */
const written = new Map<string, { stamp: string; state: GuardState; writtenAt: number }>();
const stampOf = (info: { ino: number; size: number; ctimeMs: number }) => `${info.ino}:${info.size}:${info.ctimeMs}`;

/**
 * How long a guard state whose rates and confirmations did not change may stay unwritten: only the `at` times of
 * its entries move, which nothing decides by (the dashboard shows them), so the file's lag behind them is bounded.
 */
export const GUARD_AT_LAG_MS = 5 * 60_000;

/** The guard state; an unreadable file starts afresh rather than stopping every build (the caller logs it). */
export async function readGuardState(dir: string): Promise<{ state: GuardState; problem?: string }> {
  const path = guardFile(dir);
  try {
    const known = written.get(path);
    if (known && known.stamp === stampOf(await stat(path))) return { state: known.state };
    const data = (await readJson(path)) as Partial<GuardState> | undefined;
    if (data === undefined) return { state: emptyGuardState() };
    return { state: { published: data.published ?? {}, pending: data.pending ?? {} } };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: emptyGuardState() };
    return {
      state: emptyGuardState(),
      problem: `${path}: unreadable, starting without last published rates (the export files on disk bound first rates): ${(error as Error).message}`,
    };
  }
}

/**
 * Builds never change a guard state they were given (guardDirections makes a new one), so it can be kept as it is.
 * Not rewritten (nor synced to disk) when the published rates and pending confirmations are those this process last
 * wrote, the file is still as written, and the last write is less than GUARD_AT_LAG_MS old.
 */
export async function writeGuardState(dir: string, state: GuardState, now: Date): Promise<void> {
  const path = guardFile(dir);
  const known = written.get(path);
  if (known && Math.abs(now.getTime() - known.writtenAt) < GUARD_AT_LAG_MS && sameDecisions(known.state, state)) {
    const stamp = await stat(path).then(stampOf, () => undefined);
    if (stamp === known.stamp) {
      written.set(path, { ...known, state });
      return;
    }
  }
  written.delete(path);
  // Compact: at tens of thousands of directions the indentation alone is a fifth of the bytes written every build.
  await writeStateFile(path, `${JSON.stringify(state)}\n`);
  written.set(path, { stamp: stampOf(await stat(path)), state, writtenAt: now.getTime() });
}

/** Whether two guard states hold the same last published rates and the same pending confirmations (`at` aside). */
function sameDecisions(a: GuardState, b: GuardState): boolean {
  return (
    sameEntries(a.published, b.published, (x, y) => x.rate === y.rate) && sameEntries(a.pending, b.pending, samePending)
  );
}

const samePending = (x: PendingJump, y: PendingJump): boolean =>
  x.rate === y.rate && x.builds === y.builds && x.hard === y.hard && String(x.answers) === String(y.answers);

function sameEntries<T>(a: Record<string, T>, b: Record<string, T>, same: (x: T, y: T) => boolean): boolean {
  const keys = Object.keys(b);
  if (keys.length !== Object.keys(a).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(a, key) || !same(a[key]!, b[key]!)) return false;
  }
  return true;
}

export async function readStatusFile(dir: string): Promise<unknown> {
  return readJson(statusFile(dir));
}

export async function writeStatusFile(dir: string, status: unknown): Promise<void> {
  // Its texts quote sources' answers: no credential is written, whoever made the status.
  await writeStateFile(statusFile(dir), `${JSON.stringify(redactValue(status), null, 2)}\n`);
}

export async function maintenanceFlag(dir: string): Promise<boolean> {
  return (await readJson(maintenanceFile(dir)).catch(() => true)) !== undefined;
}

export async function setMaintenanceFlag(dir: string, on: boolean, now: Date): Promise<void> {
  if (!on) return rm(maintenanceFile(dir), { force: true });
  await writeStateFile(maintenanceFile(dir), `${JSON.stringify({ since: now.toISOString() })}\n`);
}

/** `FROM>TO` as a file name: codes are capitals and digits, so `FROM-TO` is unambiguous. */
const acceptName = (id: string) => id.replace('>', '-');

export async function requestAccept(dir: string, id: string): Promise<void> {
  await writeStateFile(join(acceptDir(dir), acceptName(id)), '');
}

export async function acceptRequests(dir: string): Promise<Set<string>> {
  try {
    return new Set((await readdir(acceptDir(dir))).map((name) => name.replace('-', '>')));
  } catch {
    return new Set();
  }
}

export async function clearAcceptRequests(dir: string, ids: readonly string[]): Promise<void> {
  await Promise.all(ids.map((id) => rm(join(acceptDir(dir), acceptName(id)), { force: true })));
}

/** A pause as a file name: `FROM-TO`, or `FROM-TO@CITY` for one city (codes are capitals and digits). */
const pauseName = (id: string, city?: string) => `${acceptName(id)}${city === undefined ? '' : `@${city}`}`;
const pausePattern = /^([A-Z0-9]+)-([A-Z0-9]+)(?:@([A-Z0-9]+))?$/;

/** Pause a direction (or one city of it): one file per pause, written whole, so the service never reads half of one. */
export async function writePause(dir: string, pause: Pause): Promise<void> {
  await writeStateFile(
    join(pausedDir(dir), pauseName(pause.direction, pause.city)),
    `${JSON.stringify(pause, null, 2)}\n`,
  );
}

/** Resume a direction: its whole-direction pause and, without a city, every city pause too. Returns how many were removed. */
export async function removePauses(dir: string, id: string, city?: string): Promise<number> {
  const names = await readdir(pausedDir(dir)).catch(() => [] as string[]);
  const matching = names.filter((name) => {
    const match = pausePattern.exec(name);
    return match !== null && `${match[1]}>${match[2]}` === id && (city === undefined || match[3] === city);
  });
  await Promise.all(matching.map((name) => rm(join(pausedDir(dir), name), { force: true })));
  return matching.length;
}

/**
 * The pauses in the state folder. The file name says what is paused; a file that cannot be read or parsed
 * still pauses it (the safe side), with a reason saying so.
 */
export async function readPauses(dir: string): Promise<Pause[]> {
  const names = await readdir(pausedDir(dir)).catch(() => [] as string[]);
  const pauses = await Promise.all(
    names.map(async (name): Promise<Pause | undefined> => {
      const match = pausePattern.exec(name);
      if (!match) return undefined;
      const where = { direction: `${match[1]}>${match[2]}`, ...(match[3] === undefined ? {} : { city: match[3] }) };
      try {
        const data = JSON.parse(await readFile(join(pausedDir(dir), name), 'utf8')) as Partial<Pause>;
        return {
          ...where,
          since: typeof data.since === 'string' ? data.since : 'unknown',
          ...(typeof data.until === 'string' && !Number.isNaN(Date.parse(data.until)) ? { until: data.until } : {}),
          ...(typeof data.reason === 'string' ? { reason: data.reason } : {}),
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        return { ...where, since: 'unknown', reason: `pause file ${name} unreadable, kept paused` };
      }
    }),
  );
  return pauses.filter((pause) => pause !== undefined);
}

/** An export's file name as ratefile writes it (`exportFileName`): nothing else is ever taken from the record. */
const exportName = exportFileName;

interface ExportsRecord {
  version: 1;
  /** By absolute output folder: the exports ratefile wrote there and has not removed. */
  folders: Record<string, string[]>;
}

async function readExportsRecord(dir: string): Promise<ExportsRecord> {
  const data = (await readJson(exportsFile(dir))) as Partial<ExportsRecord> | undefined;
  if (data === undefined) return { version: 1, folders: {} };
  if (data.version !== 1 || typeof data.folders !== 'object' || data.folders === null)
    throw new Error('not a ratefile exports record');
  return { version: 1, folders: data.folders };
}

/**
 * The exports ratefile published into `outDir` (and has not removed since). Only these are ever removed
 * when no template declares them any more: the output folder may hold files that are not ratefile's.
 */
export async function readPublishedExports(
  dir: string,
  outDir: string,
): Promise<{ files: string[]; problem?: string }> {
  try {
    const listed = (await readExportsRecord(dir)).folders[resolve(outDir)] ?? [];
    return {
      files: Array.isArray(listed) ? listed.filter((name) => typeof name === 'string' && exportName.test(name)) : [],
    };
  } catch (error) {
    return {
      files: [],
      problem: `${exportsFile(dir)}: unreadable, no export removed this build: ${(error as Error).message}`,
    };
  }
}

/** Keep the exports published into `outDir`; other output folders' entries stay as they are. */
export async function writePublishedExports(dir: string, outDir: string, files: readonly string[]): Promise<void> {
  const record = await readExportsRecord(dir).catch((): ExportsRecord => ({ version: 1, folders: {} }));
  record.folders[resolve(outDir)] = [...new Set(files)].sort();
  await writeStateFile(exportsFile(dir), `${JSON.stringify(record, null, 2)}\n`);
}
