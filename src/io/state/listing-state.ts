// The monitor's-view memory (src/pure/compete/listing.ts): recently published rates per competing direction, so the lag
// BestChange takes to show one survives a restart. Kept in .ratefile/listing.json, read before a build and written
// after it published, like wars.json; at most MAX_VERSIONS rates of the last hour per direction and city.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  MAX_VERSIONS,
  type ListingEntry,
  type ListingMemory,
  type ListingVersion,
} from '../../pure/compete/listing.js';
import { writeStateFile } from './state-files.js';

const listingFile = (dir: string) => join(dir, 'listing.json');
/** About 1.5 KB per direction and city: a larger file is not ratefile's, and is not read. */
const maxBytes = 4 * 1024 * 1024;
/** What this process last wrote or read, by path: an unchanged memory is not written again. */
const last = new Map<string, string>();
/** A memory this process holds but has not written yet (LISTING_WRITE_LAG_MS): the next build reads it, not the file. */
const unwritten = new Map<string, ListingMemory>();

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isTime = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= 40 && !Number.isNaN(Date.parse(value));
const isRate = (value: unknown): value is string =>
  typeof value === 'string' && /^\d{1,60}(\.\d{1,40})?:\d{1,60}(\.\d{1,40})?$/.test(value);

/** One entry as written, or undefined: a hand-edited or foreign entry is dropped, never trusted in part. */
function entryOf(value: unknown): ListingEntry | undefined {
  if (!isRecord(value) || !Array.isArray(value.versions) || value.versions.length > MAX_VERSIONS) return undefined;
  const versions: ListingVersion[] = [];
  for (const v of value.versions) {
    if (!isRecord(v) || !isRate(v.rate) || !isTime(v.at)) return undefined;
    if (v.seenAt !== undefined && !isTime(v.seenAt)) return undefined;
    versions.push({
      rate: v.rate,
      at: v.at,
      ...(v.seenAt === undefined ? {} : { seenAt: v.seenAt }),
      ...(v.unmeasured === true ? { unmeasured: true } : {}),
    });
  }
  const entry: ListingEntry = { versions };
  if (isTime(value.since)) entry.since = value.since;
  if (Number.isInteger(value.lagSeconds) && (value.lagSeconds as number) >= 0)
    entry.lagSeconds = value.lagSeconds as number;
  return entry;
}

/** The memory, keys `id` or `id@city` of the config's competing directions only; an unreadable file starts afresh. */
export async function readListingMemory(
  dir: string,
  ids: ReadonlySet<string>,
): Promise<{ memory: ListingMemory; problem?: string }> {
  const path = listingFile(dir);
  const memory: ListingMemory = {};
  if (ids.size === 0) return { memory };
  const held = unwritten.get(path);
  if (held) {
    for (const [key, entry] of Object.entries(held)) if (ids.has(key.split('@')[0]!)) memory[key] = entry;
    return { memory };
  }
  try {
    if ((await stat(path)).size > maxBytes)
      return { memory, problem: `${path}: larger than ${maxBytes} bytes, starting without the published rates' times` };
    const text = await readFile(path, 'utf8');
    last.set(path, text);
    const data = JSON.parse(text) as unknown;
    const directions = isRecord(data) && isRecord(data.directions) ? data.directions : {};
    for (const [key, value] of Object.entries(directions)) {
      const entry = ids.has(key.split('@')[0]!) ? entryOf(value) : undefined;
      if (entry) memory[key] = entry;
    }
    return { memory };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { memory };
    return {
      memory,
      problem: `${path}: unreadable, starting without the published rates' times: ${(error as Error).message}`,
    };
  }
}

/**
 * How long a changed memory may stay unwritten: a direction on its floor publishes a new rate every build, and
 * writing some KB a direction every few seconds buys little. A restart within it forgets the rates of that minute:
 * a feed showing one of them reads as `differs` until the next feed, and its lag is not measured.
 */
export const LISTING_WRITE_LAG_MS = 60_000;
const writtenAt = new Map<string, number>();

/** Written atomically when it differs from what this process last read or wrote there, at most once a minute. */
export async function writeListingMemory(dir: string, memory: ListingMemory, now: Date): Promise<void> {
  const path = listingFile(dir);
  if (Object.keys(memory).length === 0 && !last.has(path)) return;
  const before = writtenAt.get(path);
  if (before !== undefined && Math.abs(now.getTime() - before) < LISTING_WRITE_LAG_MS) {
    unwritten.set(path, memory);
    return;
  }
  unwritten.delete(path);
  const text = `${JSON.stringify({ version: 1, directions: memory })}\n`;
  if (last.get(path) === text) return;
  await writeStateFile(path, text);
  last.set(path, text);
  writtenAt.set(path, now.getTime());
}
