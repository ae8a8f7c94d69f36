// `.ratefile/outside.json`: what the watch from outside keeps, the versions of each export published (to say how many
// builds behind a public copy is, across a restart) and the last check of each public copy (for `ratefile status`,
// another process than the service). Written whole and atomically after each round of fetches and each new version.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OutsideCheck, PublishedVersion } from '../../pure/watch/judge.js';
import { writeStateFile } from '../state/state-files.js';

export const outsideFile = (stateDir: string) => join(stateDir, 'outside.json');

export interface OutsideSaved {
  /** Per export file, its versions oldest first. */
  versions: Record<string, PublishedVersion[]>;
  /** Per export file, the last check of its public copy. */
  checks: Record<string, OutsideCheck>;
}

const isVersion = (value: unknown): value is PublishedVersion => {
  const v = value as Partial<PublishedVersion> | null;
  return typeof v?.sha256 === 'string' && typeof v.etag === 'string' && typeof v.at === 'string';
};

const isCheck = (value: unknown): value is OutsideCheck => {
  const c = value as Partial<OutsideCheck> | null;
  return [c?.file, c?.url, c?.state, c?.at, c?.since, c?.detail].every((field) => typeof field === 'string');
};

/** What was saved (empty when nothing was), and a problem to log when the file cannot be read. */
export async function readOutside(stateDir: string): Promise<OutsideSaved & { problem?: string }> {
  const empty: OutsideSaved = { versions: {}, checks: {} };
  let text: string;
  try {
    text = await readFile(outsideFile(stateDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty;
    return { ...empty, problem: `${outsideFile(stateDir)}: unreadable, the watch starts afresh: ${String(error)}` };
  }
  try {
    const data = JSON.parse(text) as { version?: unknown; versions?: unknown; checks?: unknown } | null;
    if (data?.version !== 1) throw new Error('not a ratefile outside-watch file');
    const saved: OutsideSaved = { versions: {}, checks: {} };
    for (const [file, list] of Object.entries((data.versions ?? {}) as Record<string, unknown>))
      if (Array.isArray(list)) saved.versions[file] = list.filter(isVersion);
    for (const [file, check] of Object.entries((data.checks ?? {}) as Record<string, unknown>))
      if (isCheck(check)) saved.checks[file] = check;
    return saved;
  } catch (error) {
    return {
      ...empty,
      problem: `${outsideFile(stateDir)}: unreadable, the watch starts afresh: ${(error as Error).message}`,
    };
  }
}

export async function writeOutside(stateDir: string, saved: OutsideSaved): Promise<void> {
  await writeStateFile(outsideFile(stateDir), `${JSON.stringify({ version: 1, ...saved })}\n`);
}
