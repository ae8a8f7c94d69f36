// The control log `.ratefile/control/log.jsonl`: every command the bot was given and what came of it (done, failed,
// refused and why, waiting for a second operator, confirmed, expired), one JSON object a line, appended off the
// bot's path in order. Owner-only like the rest of the state folder; at `maxBytes` it is rotated to log.1.jsonl …
// log.<keep>.jsonl, the oldest dropped, so it is kept for a long while and never fills the disk.
import { appendFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { redactValue } from '../../base/secrets.js';
import { STATE_FILE_MODE, stateFolder } from '../state/state-files.js';

export interface ControlLogEntry {
  at: string;
  outcome: 'done' | 'failed' | 'refused' | 'waiting' | 'confirmed' | 'expired';
  update?: number;
  /** The Telegram user id, and the name the config gives them. */
  user?: number;
  name?: string;
  chat?: number;
  /** As typed (cut to 200 characters), or as a button said it. */
  command?: string;
  /** The id of a command waiting for a second operator. */
  waiting?: string;
  reason?: string;
  /** The first line of the reply. */
  reply?: string;
  /** The exit code of the `ratefile` command it ran (1: it ran and said no, as the CLI would). */
  exit?: number;
}

export interface ControlLog {
  /** Queues the entry; never throws (a failing disk is said once through `warn`). */
  append(entry: ControlLogEntry): void;
  /** Resolves when every queued entry is written. */
  idle(): Promise<void>;
}

export const controlFolder = (stateDir: string) => join(stateDir, 'control');
export const controlLogFile = (stateDir: string, generation = 0) =>
  join(controlFolder(stateDir), generation === 0 ? 'log.jsonl' : `log.${generation}.jsonl`);

export function openControlLog(
  stateDir: string,
  warn: (line: string) => void,
  limits: { maxBytes?: number; keep?: number } = {},
): ControlLog {
  const maxBytes = limits.maxBytes ?? 1_048_576;
  const keep = limits.keep ?? 3;
  let size: number | undefined;
  let failing = false;
  let queue: Promise<void> = Promise.resolve();
  const rotate = async () => {
    for (let generation = keep - 1; generation >= 0; generation -= 1)
      await rename(controlLogFile(stateDir, generation), controlLogFile(stateDir, generation + 1)).catch(
        () => undefined,
      );
    size = 0;
  };
  const write = async (line: string) => {
    await stateFolder(controlFolder(stateDir));
    size ??= await stat(controlLogFile(stateDir)).then(
      (info) => info.size,
      () => 0,
    );
    if (size > 0 && size + Buffer.byteLength(line) > maxBytes) await rotate();
    await appendFile(controlLogFile(stateDir), line, { mode: STATE_FILE_MODE });
    size += Buffer.byteLength(line);
  };
  return {
    append(entry) {
      // Texts quote what people typed and what commands answered: no credential is kept.
      const line = `${JSON.stringify(redactValue(entry))}\n`;
      queue = queue
        .then(() => write(line))
        .then(() => {
          failing = false;
        })
        .catch((error: unknown) => {
          if (!failing) warn(`control: cannot write the control log: ${(error as Error).message}`);
          failing = true;
        });
    },
    idle: () => queue,
  };
}
