// The history file `.ratefile/history/history.jsonl`: one line appended per build, off the build's path
// (queued, never awaited by it); rewritten trimmed and thinned every ten minutes; read back on start.
import { appendFile, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import { History, parseLine, type RatePair } from './history.js';

const COMPACT_EVERY_MS = 10 * 60 * 1000;

export interface HistoryStore {
  readonly history: History;
  /** Adds the build to the history now and queues its line for the file; never throws, never waits for the disk. */
  record(at: Date, build: { durationMs: number; published: number; withheld: number }, rates: ReadonlyMap<string, RatePair>): void;
  /** Resolves when every queued write is done (for tests and a clean stop). */
  idle(): Promise<void>;
}

export const historyFile = (stateDir: string) => join(stateDir, 'history', 'history.jsonl');

/** Reads what the file holds (a missing or unreadable file is an empty history, said once in the log). */
export async function openHistory(stateDir: string, log: Pick<Logger, 'warn'>, now: Date): Promise<HistoryStore> {
  const file = historyFile(stateDir);
  const history = new History();
  let skipped = 0;
  try {
    for (const text of (await readFile(file, 'utf8')).split('\n')) {
      if (text.trim() === '') continue;
      const line = parseLine(text);
      if (line) history.apply(line);
      else skipped++;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log.warn(`history: cannot read ${join('history', 'history.jsonl')} in the state folder, starting empty: ${(error as Error).message}`);
  }
  if (skipped > 0) log.warn(`history: skipped ${skipped} unreadable line${skipped === 1 ? '' : 's'} of the history file`);
  history.compact(now);

  let queue: Promise<void> = Promise.resolve();
  let failing = false;
  let compactedAt = -Infinity;
  const write = async (line: string, at: Date) => {
    await mkdir(join(stateDir, 'history'), { recursive: true });
    if (at.getTime() - compactedAt < COMPACT_EVERY_MS) {
      await appendFile(file, line);
      return;
    }
    // The whole history up to this build rewritten (later builds' lines are queued behind this one): a temporary file renamed into place, so a crash leaves the old file or the new.
    history.compact(at);
    const temp = join(stateDir, 'history', '.history.jsonl.tmp');
    await writeFile(temp, history.lines(at.getTime()).map((l) => `${JSON.stringify(l)}\n`).join(''));
    await rename(temp, file);
    compactedAt = at.getTime();
  };
  return {
    history,
    record(at, build, rates) {
      const line = history.lineFor(at, build, rates);
      history.apply(line);
      const text = `${JSON.stringify(line)}\n`;
      queue = queue
        .then(() => write(text, at))
        .then(() => {
          if (failing) log.warn('history: the history file is written again');
          failing = false;
        })
        .catch((error: unknown) => {
          // Said once while it lasts: a full disk must not fill the log too.
          if (!failing) log.warn(`history: cannot write the history file (charts go on from memory): ${(error as Error).message}`);
          failing = true;
        });
    },
    idle: () => queue,
  };
}

/** Size of the history file in bytes, 0 when there is none (for the dashboard's footer and tests). */
export async function historySize(stateDir: string): Promise<number> {
  return (await stat(historyFile(stateDir)).catch(() => undefined))?.size ?? 0;
}
