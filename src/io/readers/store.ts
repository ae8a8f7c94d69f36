// `.ratefile/readers.json`: the fetch log (fetches.ts) and how far nginx's access log was read, written whole
// (atomically) at most every SAVE_EVERY_MS while something changed (and once after start, for `since`), and on stop;
// read back on start, and by `ratefile status` (savedWatches: another process than the service).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeStateFile } from '../state/state-files.js';
import type { MonitorConfig } from '../../model/readers.js';
import { FetchLog } from '../../pure/readers/fetches.js';
import type { LogPosition } from './nginx-log.js';
import { watchMonitors, type MonitorWatch } from '../../pure/readers/watch.js';

export const SAVE_EVERY_MS = 5_000;

export const readersFile = (stateDir: string) => join(stateDir, 'readers.json');

interface Saved {
  version: 1;
  fetches: unknown;
  /** When the service began watching (ms since the epoch): a monitor never seen is silent once its window has passed. */
  since?: number;
  /** Per access log path (as configured, absolute). */
  accessLog?: { path: string } & LogPosition;
}

/** Fills `log` from the file; returns the saved access-log position and a problem to log, if any. */
export async function readReaders(
  stateDir: string,
  log: FetchLog,
): Promise<{ position?: { path: string } & LogPosition; since?: number; problem?: string }> {
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
    const since = Number.isSafeInteger(data.since) ? { since: data.since as number } : {};
    return valid ? { position: p, ...since } : since;
  } catch (error) {
    return { problem: `${readersFile(stateDir)}: unreadable, fetch records start empty: ${(error as Error).message}` };
  }
}

export async function writeReaders(
  stateDir: string,
  log: FetchLog,
  position: ({ path: string } & LogPosition) | undefined,
  since?: number,
): Promise<void> {
  const saved: Saved = {
    version: 1,
    fetches: log.toJSON(),
    ...(since === undefined ? {} : { since }),
    ...(position ? { accessLog: position } : {}),
  };
  await writeStateFile(readersFile(stateDir), `${JSON.stringify(saved)}\n`);
}

/**
 * Each expected monitor as the service last saved its fetches (`ratefile status`); without a saved `since` (no
 * service has saved one) a monitor never seen is not seen yet, not silent.
 */
export async function savedWatches(
  stateDir: string,
  monitors: readonly MonitorConfig[],
  exports: readonly string[],
  now: number,
): Promise<{ watches: MonitorWatch[]; problem?: string }> {
  const log = new FetchLog(
    exports,
    monitors.map((m) => m.name),
  );
  const saved = await readReaders(stateDir, log);
  const watches = watchMonitors(monitors, log, Math.min(saved.since ?? now, now), now);
  return { watches, ...(saved.problem === undefined ? {} : { problem: saved.problem }) };
}
