// The competing directions' memory of moves and price wars (src/pure/compete/war.ts), kept in .ratefile/wars.json
// between builds and restarts like the guard state: read before a build, written after it published.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { WarEntry, WarMemory } from '../../pure/compete/war.js';
import type { Config } from '../../model/config.js';
import { writeStateFile } from './state-files.js';

const warFile = (dir: string) => join(dir, 'wars.json');

/** A few hundred bytes per competing direction: a file larger than this is not ratefile's, and is not read. */
const maxBytes = 4 * 1024 * 1024;

/** The file's text as this process last wrote or read it, by path, the memory in it and when it was written. */
const last = new Map<string, { text: string; memory?: WarMemory; writtenAt?: number }>();

/**
 * How long a memory whose moves, answers and wars did not change may stay unwritten: only the last rates moved
 * (a floor or ceiling following the market, every build). A restart within it reads a rate that lags: at worst a
 * rise from it is taken for a move, which counts only once the same competitor answers it in time.
 */
export const WAR_RATE_LAG_MS = 5 * 60_000;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value.length <= 200;
const isTime = (value: unknown): value is string => isText(value) && !Number.isNaN(Date.parse(value));
const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;

/** One entry as written, or undefined: a hand-edited or foreign entry is dropped, never trusted in part. */
function entryOf(value: unknown): WarEntry | undefined {
  if (!isRecord(value) || !isText(value.rate) || !isCount(value.rounds)) return undefined;
  const entry: WarEntry = { rate: value.rate, rounds: value.rounds };
  const { pending, war } = value;
  if (isRecord(pending)) {
    if (!isTime(pending.at) || !isCount(pending.rivalId) || !isText(pending.rival) || !isText(pending.rivalRate))
      return undefined;
    entry.pending = { at: pending.at, rivalId: pending.rivalId, rival: pending.rival, rivalRate: pending.rivalRate };
  }
  if (isRecord(war)) {
    const { rival, rivalId, rounds, since, until, hold } = war;
    if (!isText(rival) || !isCount(rivalId) || !isCount(rounds) || !isTime(since) || !isTime(until) || !isText(hold))
      return undefined;
    entry.war = { rival, rivalId, rounds, since, until, hold };
  }
  return entry;
}

/** The directions whose memory is kept: those competing with war detection on. Anything else in the file is dropped. */
export const warDirections = (config: Pick<Config, 'directions'>): Set<string> =>
  new Set(config.directions.filter((d) => d.compete?.war).map((d) => d.id));

/** The memory of the config's competing directions; an unreadable file starts afresh (the caller logs the problem). */
export async function readWarMemory(
  dir: string,
  ids: ReadonlySet<string>,
): Promise<{ memory: WarMemory; problem?: string }> {
  const path = warFile(dir);
  const memory: WarMemory = {};
  if (ids.size === 0) return { memory };
  try {
    if ((await stat(path)).size > maxBytes)
      return { memory, problem: `${path}: larger than ${maxBytes} bytes, starting without the memory of price wars` };
    const text = await readFile(path, 'utf8');
    last.set(path, { text });
    const data = JSON.parse(text) as unknown;
    const directions = isRecord(data) && isRecord(data.directions) ? data.directions : {};
    for (const id of ids) {
      const entry = Object.hasOwn(directions, id) ? entryOf(directions[id]) : undefined;
      if (entry) memory[id] = entry;
    }
    return { memory };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { memory };
    return {
      memory,
      problem: `${path}: unreadable, starting without the memory of price wars: ${(error as Error).message}`,
    };
  }
}

/**
 * Written (atomically) when it differs from what this process last read or wrote there, except when only the
 * last rates moved and the last write is less than WAR_RATE_LAG_MS old. `now`: the build's clock.
 */
export async function writeWarMemory(dir: string, memory: WarMemory, now: Date): Promise<void> {
  const path = warFile(dir);
  const known = last.get(path);
  if (Object.keys(memory).length === 0 && !known) return;
  if (
    known?.memory &&
    known.writtenAt !== undefined &&
    Math.abs(now.getTime() - known.writtenAt) < WAR_RATE_LAG_MS &&
    sameDecisions(known.memory, memory)
  )
    return;
  const text = `${JSON.stringify({ version: 1, directions: memory }, null, 2)}\n`;
  if (known?.text === text) return;
  await writeStateFile(path, text);
  last.set(path, { text, memory, writtenAt: now.getTime() });
}

/** The same directions with the same rounds, pending moves and wars: only their last rates may differ. */
function sameDecisions(a: WarMemory, b: WarMemory): boolean {
  const ids = Object.keys(b);
  if (ids.length !== Object.keys(a).length) return false;
  return ids.every((id) => {
    const [x, y] = [a[id], b[id]];
    return (
      x !== undefined &&
      y !== undefined &&
      x.rounds === y.rounds &&
      JSON.stringify(x.pending) === JSON.stringify(y.pending) &&
      JSON.stringify(x.war) === JSON.stringify(y.war)
    );
  });
}
