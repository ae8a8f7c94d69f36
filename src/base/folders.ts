// The output and state folders, checked before a build writes anything: a state folder that turns out to be a
// file, or an output folder nobody may write in, must stop the command before the exports go out, not after.
import { chmod, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { RatefileError } from './errors.js';

export interface Folder {
  /** What the operator set it with: `output`, `--out` or `state`. */
  key: string;
  path: string;
}

const reason = (error: unknown) => (error as Error).message;

/**
 * Why `folder` cannot be used (created if missing), or undefined when it can be read and written. `ownerOnly` (the
 * state folder: alert texts, client addresses, margins): created 0700, or made 0700 when it exists (an older version
 * made it 0755; a folder someone else owns keeps its mode).
 */
async function folderProblem({ key, path }: Folder, ownerOnly = false): Promise<string | undefined> {
  if (path.includes('\0')) return `${key}: expected a folder path, got one with a NUL character`;
  try {
    const info = await stat(path);
    if (!info.isDirectory()) return `${key}: expected a folder, got a file (${path})`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return `${key}: cannot use ${path}: ${reason(error)}`;
    try {
      await mkdir(path, { recursive: true, ...(ownerOnly ? { mode: 0o700 } : {}) });
    } catch (cause) {
      return `${key}: cannot create the folder ${path}: ${reason(cause)}`;
    }
  }
  try {
    await readdir(path);
  } catch (error) {
    return `${key}: cannot read the folder ${path}: ${reason(error)}`;
  }
  // Permission bits say nothing for root, a read-only mount or an immutable folder: only a real write tells.
  const probe = join(path, `.ratefile-probe-${process.pid}`);
  try {
    await writeFile(probe, '', { flag: 'wx' });
  } catch (error) {
    return `${key}: cannot write in the folder ${path}: ${reason(error)}`;
  }
  await rm(probe, { force: true });
  if (ownerOnly) await ownerOnlyTree(path);
  return undefined;
}

/**
 * The state folder, its folders and files made the owner's only (0700, 0600): what an older version wrote 0755/0644
 * (or a file the next builds would not rewrite, like an unchanged exports.json) is closed at once. Symlinks are left
 * alone, and so is anything someone else owns (chmod refuses it).
 */
async function ownerOnlyTree(path: string): Promise<void> {
  await chmod(path, 0o700).catch(() => undefined);
  const entries = await readdir(path, { withFileTypes: true, recursive: true }).catch(() => []);
  await Promise.all(
    entries
      .filter((entry) => entry.isDirectory() || entry.isFile())
      .map((entry) =>
        chmod(join(entry.parentPath, entry.name), entry.isDirectory() ? 0o700 : 0o600).catch(() => undefined),
      ),
  );
}

/**
 * Check (and create when missing) the state folder alone, for commands that write only there (`accept`, `maintenance`);
 * its mode is left to `build` and `start`, which know whether the output folder is inside it.
 */
export async function checkStateFolder(state: Folder): Promise<void> {
  const problem = await folderProblem(state);
  if (problem) throw new RatefileError('E_CONFIG', 'cannot use the state folder', { details: [problem] });
}

/**
 * Check (and create when missing) the folders a build writes to; throws E_CONFIG naming every unusable one.
 * The config itself refuses a state folder inside its `output`; this also covers one inside `--out`.
 */
export async function checkFolders(output: Folder, state: Folder): Promise<void> {
  const problems: string[] = [];
  const way = relative(output.path, state.path);
  if (!(way === '..' || way.startsWith(`..${sep}`) || isAbsolute(way))) {
    problems.push(
      `${state.key}: expected a folder outside the output folder ${output.path} (${output.key}), got ${state.path}`,
    );
  }
  // An output folder inside the state folder (allowed) must stay reachable by nginx: then the state folder keeps its mode.
  const inside = relative(state.path, output.path);
  const outputInside = inside === '' || !(inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside));
  for (const [folder, ownerOnly] of [
    [output, false],
    [state, !outputInside],
  ] as const) {
    const problem = await folderProblem(folder, ownerOnly);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) {
    // words.ts brings decimal.js: loaded only on this path, as commands import this module at startup.
    const { plural } = await import('./words.js');
    throw new RatefileError(
      'E_CONFIG',
      `cannot use the output and state folders: ${plural(problems.length, 'problem')}`,
      {
        details: problems,
      },
    );
  }
}
