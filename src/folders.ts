// The output and state folders, checked before a build writes anything: a state folder that turns out to be a
// file, or an output folder nobody may write in, must stop the command before the exports go out, not after.
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { RatefileError } from './errors.js';

export interface Folder {
  /** What the operator set it with: `output`, `--out` or `state`. */
  key: string;
  path: string;
}

const reason = (error: unknown) => (error as Error).message;

/** Why `folder` cannot be used (created if missing), or undefined when it can be read and written. */
async function folderProblem({ key, path }: Folder): Promise<string | undefined> {
  if (path.includes('\0')) return `${key}: expected a folder path, got one with a NUL character`;
  try {
    const info = await stat(path);
    if (!info.isDirectory()) return `${key}: expected a folder, got a file (${path})`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return `${key}: cannot use ${path}: ${reason(error)}`;
    try {
      await mkdir(path, { recursive: true });
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
  return undefined;
}

/** Check (and create when missing) the state folder alone, for commands that write only there (`accept`, `maintenance`). */
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
  for (const folder of [output, state]) {
    const problem = await folderProblem(folder);
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
