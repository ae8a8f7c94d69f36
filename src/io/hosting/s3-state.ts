// What the S3 publisher last uploaded to each object (bytes' hash, headers, the ETag the store gave it), kept in the
// state folder's s3.json and in memory, so unchanged files are not uploaded again and each upload can be made
// conditional on the version this publisher last wrote.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeStateFile } from '../state/state-files.js';

/** What was last uploaded to one object: enough to tell whether the next bytes and headers differ. */
export interface Uploaded {
  sha256: string;
  contentType: string;
  cacheControl: string;
  etag?: string;
  at: string;
}

/** By object id (`<endpoint> <bucket>/<key>`): kept in memory too, so a state folder that cannot be written costs
 * re-uploads only after a restart. */
export type Memory = Map<string, Uploaded>;

interface StateFile {
  version: 1;
  objects: Record<string, Uploaded>;
}

/** The state file, in the state folder: never inside the served output folder. */
export const s3StateFile = (stateDir: string): string => join(stateDir, 's3.json');

function parseState(text: string): Record<string, Uploaded> {
  const data = JSON.parse(text) as Partial<StateFile>;
  if (data.version !== 1 || typeof data.objects !== 'object' || data.objects === null)
    throw new Error('not a ratefile S3 state file');
  return data.objects;
}

/** What the state file and memory say was last uploaded; the newer entry wins when both know an object. */
export async function readUploaded(stateDir: string, memory: Memory, warnings: string[]): Promise<Memory> {
  const known = new Map(memory);
  let text: string | undefined;
  try {
    text = await readFile(s3StateFile(stateDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      warnings.push(`${s3StateFile(stateDir)}: unreadable (${(error as Error).message})`);
  }
  if (text !== undefined) {
    try {
      for (const [id, entry] of Object.entries(parseState(text))) {
        const mine = known.get(id);
        if (!mine || entry.at > mine.at) known.set(id, entry);
      }
    } catch (error) {
      warnings.push(`${s3StateFile(stateDir)}: unreadable, every file is uploaded again (${(error as Error).message})`);
    }
  }
  return known;
}

/** The changes (undefined: forget the object) applied to memory and to the state file. */
export async function keepUploaded(
  stateDir: string,
  memory: Memory,
  known: Memory,
  changes: ReadonlyMap<string, Uploaded | undefined>,
  warnings: string[],
): Promise<void> {
  for (const [id, entry] of changes) {
    if (entry) {
      known.set(id, entry);
      memory.set(id, entry);
    } else {
      known.delete(id);
      memory.delete(id);
    }
  }
  const state: StateFile = {
    version: 1,
    objects: Object.fromEntries([...known].sort(([a], [b]) => a.localeCompare(b))),
  };
  try {
    await writeStateFile(s3StateFile(stateDir), `${JSON.stringify(state, null, 2)}\n`);
  } catch (error) {
    warnings.push(
      `cannot keep what was uploaded in ${s3StateFile(stateDir)}, so unchanged files are uploaded again after a restart: ${(error as Error).message}`,
    );
  }
}
