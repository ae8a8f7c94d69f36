// The competing directions' chart points (compete-chart.ts) in .ratefile/history/compete.json: read back on start,
// written (atomically, off the build's path) at most every ten minutes and when the service stops. At most
// MAX_CHARTED directions × 1,440 points: about 1 MB. A lost file costs the charts' past, nothing else.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../base/log.js';
import { writeStateFile } from '../../io/state/state-files.js';
import { CompeteHistory, competeHistoryFile, loadCompeteHistory } from './compete-chart.js';

const SAVE_EVERY_MS = 10 * 60 * 1000;
const MAX_BYTES = 4 * 1024 * 1024;

export const competeHistoryPath = (stateDir: string) => join(stateDir, 'history', 'compete.json');

export interface CompeteStore {
  readonly history: CompeteHistory;
  /** After `history.record`: queues a write when the last one is ten minutes old. Never throws. */
  recorded(at: Date): void;
  /** Writes what is not written yet, then resolves (on stop, and for tests). */
  flush(): Promise<void>;
}

export async function openCompeteStore(stateDir: string, log: Pick<Logger, 'warn'>, now: Date): Promise<CompeteStore> {
  const path = competeHistoryPath(stateDir);
  const history = new CompeteHistory();
  try {
    if ((await stat(path)).size > MAX_BYTES) log.warn(`history: ${path} is larger than ${MAX_BYTES} bytes; not read`);
    else {
      const skipped = loadCompeteHistory(history, JSON.parse(await readFile(path, 'utf8')), now);
      if (skipped > 0) log.warn(`history: ${path}: ${skipped} malformed or old points skipped`);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      log.warn(
        `history: cannot read ${path}, the competing directions' charts start empty: ${(error as Error).message}`,
      );
  }
  let savedAt = now.getTime();
  let dirty = false;
  let queue: Promise<void> = Promise.resolve();
  let failing = false;
  const save = () => {
    dirty = false;
    const text = `${JSON.stringify(competeHistoryFile(history))}\n`;
    queue = queue
      .then(async () => {
        await writeStateFile(path, text);
        failing = false;
      })
      .catch((error: unknown) => {
        if (!failing) log.warn(`history: cannot write ${path}: ${(error as Error).message}`);
        failing = true;
      });
  };
  return {
    history,
    recorded(at) {
      dirty = true;
      if (at.getTime() - savedAt < SAVE_EVERY_MS) return;
      savedAt = at.getTime();
      save();
    },
    async flush() {
      if (dirty) save();
      await queue;
    },
  };
}
