// The history file `.ratefile/history/history.jsonl`: one line appended per build, off the build's path
// (queued, never awaited by it); rewritten trimmed and thinned every ten minutes; read back on start.
import { appendFile, chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../base/log.js';
import { STATE_FILE_MODE, stateFolder } from '../../io/state/state-files.js';
import { History, parseLine, type RatePair } from './history.js';

const COMPACT_EVERY_MS = 10 * 60 * 1000;

export interface HistoryStore {
  readonly history: History;
  /** Adds the build to the history now and queues its line for the file; never throws, never waits for the disk. */
  record(
    at: Date,
    build: { durationMs: number; published: number; withheld: number },
    rates: ReadonlyMap<string, RatePair>,
  ): void;
  /** Resolves when every queued write is done (for tests and a clean stop). */
  idle(): Promise<void>;
}

export const historyFile = (stateDir: string) => join(stateDir, 'history', 'history.jsonl');

/** Reads what the file holds (a missing or unreadable file is an empty history, said once in the log). */
export async function openHistory(stateDir: string, log: Pick<Logger, 'warn'>, now: Date): Promise<HistoryStore> {
  const file = historyFile(stateDir);
  const history = new History();
  const problems: string[] = [];
  try {
    (await readFile(file, 'utf8')).split('\n').forEach((text, index) => {
      if (text.trim() === '') return;
      const line = parseLine(text);
      if ('problem' in line) problems.push(`line ${index + 1}: ${line.problem}`);
      else history.apply(line);
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      log.warn(`history: cannot read ${file}, starting empty: ${(error as Error).message}`);
  }
  // One warning for the lot: a crash leaves at most a cut last line, anything more is worth a look.
  if (problems.length > 0) {
    const more =
      problems.length > 1 ? ` (and ${problems.length - 1} more line${problems.length === 2 ? '' : 's'})` : '';
    log.warn(`history: ${file}, ${problems[0]}; skipped${more}`);
  }
  history.compact(now);

  let queue: Promise<void> = Promise.resolve();
  let failing = false;
  let compactedAt = -Infinity;
  const write = async (line: string, at: Date) => {
    await stateFolder(join(stateDir, 'history'));
    if (at.getTime() - compactedAt < COMPACT_EVERY_MS) {
      await appendFile(file, line, { mode: STATE_FILE_MODE });
      return;
    }
    // The whole history up to this build rewritten (later builds' lines are queued behind this one): a temporary file renamed into place, so a crash leaves the old file or the new.
    history.compact(at);
    const temp = join(stateDir, 'history', '.history.jsonl.tmp');
    await writeFile(
      temp,
      history
        .lines(at.getTime())
        .map((l) => `${JSON.stringify(l)}\n`)
        .join(''),
      { mode: STATE_FILE_MODE },
    );
    // A temporary an older version or a crash left keeps its mode through writeFile: made owner-only here.
    await chmod(temp, STATE_FILE_MODE);
    await rename(temp, file);
    compactedAt = at.getTime();
  };
  return {
    history,
    record(at, build, rates) {
      const line = history.lineFor(at, build, rates);
      history.add(line);
      const text = `${JSON.stringify(line)}\n`;
      queue = queue
        .then(() => write(text, at))
        .then(() => {
          if (failing) log.warn('history: the history file is written again');
          failing = false;
        })
        .catch((error: unknown) => {
          // Said once while it lasts: a full disk must not fill the log too.
          if (!failing)
            log.warn(`history: cannot write the history file (charts go on from memory): ${(error as Error).message}`);
          failing = true;
        });
    },
    idle: () => queue,
  };
}
