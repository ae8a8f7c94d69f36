// `.ratefile/readers.json`: the fetch log (fetches.ts) and how far nginx's access log was read, written whole
// (atomically) at most every SAVE_EVERY_MS while something changed, and on stop; read back on start.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../publish.js';
import type { FetchLog } from './fetches.js';
import type { LogPosition } from './nginx-log.js';

export const SAVE_EVERY_MS = 5_000;

export const readersFile = (stateDir: string) => join(stateDir, 'readers.json');

interface Saved {
  version: 1;
  fetches: unknown;
  /** Per access log path (as configured, absolute). */
  accessLog?: { path: string } & LogPosition;
}

/** Fills `log` from the file; returns the saved access-log position and a problem to log, if any. */
export async function readReaders(
  stateDir: string,
  log: FetchLog,
): Promise<{ position?: { path: string } & LogPosition; problem?: string }> {
  let text: string;
  try {
    text = await readFile(readersFile(stateDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { problem: `${readersFile(stateDir)}: unreadable, fetch records start empty: ${(error as Error).message}` };
  }
  try {
    const data = JSON.parse(text) as Partial<Saved> | null;
    if (data?.version !== 1) throw new Error('not a ratefile readers file');
    log.restore(data.fetches);
    const p = data.accessLog;
    const valid =
      p !== undefined &&
      typeof p.path === 'string' &&
      [p.dev, p.ino, p.offset].every((n) => Number.isSafeInteger(n) && (n as number) >= 0);
    return valid ? { position: p } : {};
  } catch (error) {
    return { problem: `${readersFile(stateDir)}: unreadable, fetch records start empty: ${(error as Error).message}` };
  }
}

export async function writeReaders(
  stateDir: string,
  log: FetchLog,
  position: ({ path: string } & LogPosition) | undefined,
): Promise<void> {
  const saved: Saved = { version: 1, fetches: log.toJSON(), ...(position ? { accessLog: position } : {}) };
  await mkdir(stateDir, { recursive: true });
  await writeFileAtomic(readersFile(stateDir), `${JSON.stringify(saved)}\n`);
}
