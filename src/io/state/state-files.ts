// The state folder's files (`.ratefile/`: the status, alert texts in the outbox, client addresses in readers.json,
// margins and competitors in the history): the owner's only. Files 0600 whatever the umask (a file an older version
// made 0644 is fixed at its next write: a new file is renamed over it), folders created 0700 (an existing state
// folder is made 0700 when a command checks it: folders.ts). And the temporaries a killed process left there are
// removed once they are stale, as in the output folder.
import { mkdir, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { removeStaleTemporaries, writeFileAtomic } from '../build/publish.js';

export const STATE_FOLDER_MODE = 0o700;
export const STATE_FILE_MODE = 0o600;

/** A folder of the state, created the owner's only when missing. */
export async function stateFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: STATE_FOLDER_MODE });
}

/** Write a file of the state folder atomically, owner-only, its folder created owner-only when missing. */
export async function writeStateFile(path: string, bytes: Buffer | string): Promise<void> {
  await stateFolder(dirname(path));
  await writeFileAtomic(path, bytes, { mode: STATE_FILE_MODE });
}

/** When each state folder was last swept by this process (real clock: file times are real). */
const sweptAt = new Map<string, number>();

/**
 * Stale temporaries removed from the state folder and its folders (history/, paused/, accept/), one level deep; at
 * most once a minute per folder. Every cycle asks (`runCycle` as it reads the state), so `ratefile build` cleans what
 * a killed build or service left as `start` does.
 */
export async function removeStaleStateTemporaries(stateDir: string): Promise<void> {
  const now = Date.now();
  if (now - (sweptAt.get(stateDir) ?? Number.NEGATIVE_INFINITY) < 60_000) return;
  sweptAt.set(stateDir, now);
  const entries = await readdir(stateDir, { withFileTypes: true }).catch(() => []);
  const folders = [
    stateDir,
    ...entries.filter((entry) => entry.isDirectory()).map((entry) => join(stateDir, entry.name)),
  ];
  await Promise.all(folders.map((folder) => removeStaleTemporaries(folder, now).catch(() => undefined)));
}
