// The live code list in the state folder: read on every config load, written after a build read a BestChange feed.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeStateFile } from './state-files.js';

/**
 * The live code list: the currency codes of the last BestChange feed (bm_cycodes.dat) a build read, kept in the
 * state folder so config warnings (on every load) count them as known too. Empty when no feed was ever read.
 */
const liveCodesFile = (stateDir: string) => join(stateDir, 'codes.json');

export async function readLiveCodes(stateDir: string): Promise<ReadonlySet<string>> {
  try {
    const data = JSON.parse(await readFile(liveCodesFile(stateDir), 'utf8')) as { version?: unknown; codes?: unknown };
    return new Set(
      data.version === 1 && Array.isArray(data.codes)
        ? data.codes.filter((code): code is string => typeof code === 'string')
        : [],
    );
  } catch {
    // Missing or unreadable: only the shipped list counts, as before any feed was read.
    return new Set();
  }
}

/** Record the live list when it differs from the one recorded (a feed's list rarely changes: no write per build). */
export async function writeLiveCodes(stateDir: string, codes: ReadonlySet<string>): Promise<void> {
  const known = await readLiveCodes(stateDir);
  if (known.size === codes.size && [...codes].every((code) => known.has(code))) return;
  await writeStateFile(liveCodesFile(stateDir), `${JSON.stringify({ version: 1, codes: [...codes].sort() })}\n`);
}
