// The state folder (.ratefile/): guard state, the last build's status, and the operator's flags.
// Flags are separate files so `ratefile accept` and `ratefile maintenance` never race the service's writes.
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { emptyGuardState, type GuardState } from './guards.js';
import { writeFileAtomic } from './publish.js';

const guardFile = (dir: string) => join(dir, 'guard.json');
const statusFile = (dir: string) => join(dir, 'status.json');
const maintenanceFile = (dir: string) => join(dir, 'maintenance');
const acceptDir = (dir: string) => join(dir, 'accept');

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
 */
const written = new Map<string, { stamp: string; state: GuardState }>();
const stampOf = (info: { ino: number; size: number; ctimeMs: number }) => `${info.ino}:${info.size}:${info.ctimeMs}`;

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
    return { state: emptyGuardState(), problem: `${path}: unreadable, starting without last published rates: ${(error as Error).message}` };
  }
}

/** Builds never change a guard state they were given (guardDirections makes a new one), so it can be kept as it is. */
export async function writeGuardState(dir: string, state: GuardState): Promise<void> {
  const path = guardFile(dir);
  await mkdir(dir, { recursive: true });
  written.delete(path);
  await writeFileAtomic(path, `${JSON.stringify(state, null, 2)}\n`);
  written.set(path, { stamp: stampOf(await stat(path)), state });
}

export async function readStatusFile(dir: string): Promise<unknown> {
  return readJson(statusFile(dir));
}

export async function writeStatusFile(dir: string, status: unknown): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(statusFile(dir), `${JSON.stringify(status, null, 2)}\n`);
}

export async function maintenanceFlag(dir: string): Promise<boolean> {
  return (await readJson(maintenanceFile(dir)).catch(() => true)) !== undefined;
}

export async function setMaintenanceFlag(dir: string, on: boolean, now: Date): Promise<void> {
  if (!on) return rm(maintenanceFile(dir), { force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(maintenanceFile(dir), `${JSON.stringify({ since: now.toISOString() })}\n`);
}

/** `FROM>TO` as a file name: codes are capitals and digits, so `FROM-TO` is unambiguous. */
const acceptName = (id: string) => id.replace('>', '-');

export async function requestAccept(dir: string, id: string): Promise<void> {
  await mkdir(acceptDir(dir), { recursive: true });
  await writeFile(join(acceptDir(dir), acceptName(id)), '');
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
