// The updates the control bot has handled (`.ratefile/control/seen.json`), saved before it acts on a batch: after a
// restart, an update Telegram sends again is known as a replay (src/pure/control/replay.ts).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Seen, seenOf } from '../../pure/control/replay.js';
import { writeStateFile } from '../state/state-files.js';
import { controlFolder } from './log.js';

export const seenFile = (stateDir: string) => join(controlFolder(stateDir), 'seen.json');

/** The saved list; empty when there is none or it cannot be read (refusing by age still holds). */
export async function readSeen(stateDir: string): Promise<[number, number][]> {
  try {
    return seenOf((JSON.parse(await readFile(seenFile(stateDir), 'utf8')) as { seen?: unknown }).seen);
  } catch {
    return [];
  }
}

export async function writeSeen(stateDir: string, seen: Seen): Promise<void> {
  await writeStateFile(seenFile(stateDir), `${JSON.stringify({ seen })}\n`);
}
