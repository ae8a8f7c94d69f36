// Each quote source's last accepted answer (src/pure/sources/scale.ts: the yardstick a units or scale mistake is told
// by), kept in .ratefile/answers.json between `ratefile build` runs and restarts; under `start` the QuoteCache holds
// it between builds. Read before a build, written after it when it changed.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { YARDSTICK_PAIRS, type Yardstick } from '../../pure/sources/scale.js';
import { writeStateFile } from './state-files.js';
import type { Config } from '../../model/config.js';
import type { QuoteCache } from '../quotes/quote-cache.js';

const answersFile = (dir: string) => join(dir, 'answers.json');

/** A few dozen bytes per pair, YARDSTICK_PAIRS per source: a larger file is not ratefile's, and is not read. */
const maxBytes = 8 * 1024 * 1024;

/** The text this process last read or wrote, by path: an unchanged memory is not written again. */
const last = new Map<string, string>();

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const midPattern = /^\d{1,40}(\.\d{1,40})?$/;
const pairPattern = /^[A-Z0-9]{1,20}\/[A-Z0-9]{1,20}$/;

/** One source's yardstick as written, or undefined: a hand-edited or foreign entry is dropped, never trusted in part. */
function yardstickOf(value: unknown): Yardstick | undefined {
  if (!isRecord(value) || typeof value.at !== 'string' || Number.isNaN(Date.parse(value.at)) || !isRecord(value.mids))
    return undefined;
  const entries = Object.entries(value.mids);
  if (entries.length > YARDSTICK_PAIRS) return undefined;
  const mids: Record<string, string> = {};
  for (const [pair, mid] of entries) {
    if (!pairPattern.test(pair) || typeof mid !== 'string' || !midPattern.test(mid) || /^0*(\.0*)?$/.test(mid))
      return undefined;
    mids[pair] = mid;
  }
  return { at: value.at, mids };
}

/** The yardsticks of the config's sources; an unreadable file starts without (the caller logs the problem). */
export async function readYardsticks(
  dir: string,
  sources: readonly string[],
): Promise<{ yardsticks: Map<string, Yardstick>; problem?: string }> {
  const path = answersFile(dir);
  const yardsticks = new Map<string, Yardstick>();
  try {
    if ((await stat(path)).size > maxBytes)
      return { yardsticks, problem: `${path}: larger than ${maxBytes} bytes, starting without last accepted answers` };
    const text = await readFile(path, 'utf8');
    last.set(path, text);
    const data = JSON.parse(text) as unknown;
    const bySource = isRecord(data) && isRecord(data.sources) ? data.sources : {};
    for (const name of sources) {
      const yardstick = Object.hasOwn(bySource, name) ? yardstickOf(bySource[name]) : undefined;
      if (yardstick) yardsticks.set(name, yardstick);
    }
    return { yardsticks };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { yardsticks };
    return {
      yardsticks,
      problem: `${path}: unreadable, starting without last accepted answers: ${(error as Error).message}`,
    };
  }
}

/** Each source's last accepted answer for a build: the service's QuoteCache's once read, else the state folder's. */
export async function readAnswers(
  config: Pick<Config, 'stateDir' | 'sources'>,
  cache: QuoteCache | undefined,
): Promise<{ yardsticks: Map<string, Yardstick>; problem?: string }> {
  if (cache?.yardsticks) return { yardsticks: cache.yardsticks };
  const read = await readYardsticks(
    config.stateDir,
    config.sources.map((source) => source.name),
  );
  if (cache) cache.yardsticks = read.yardsticks;
  return read;
}

/** Written (atomically, owner-only) when it differs from what this process last read or wrote there. */
export async function writeYardsticks(dir: string, yardsticks: ReadonlyMap<string, Yardstick>): Promise<void> {
  const path = answersFile(dir);
  if (yardsticks.size === 0 && !last.has(path)) return;
  const sources = Object.fromEntries([...yardsticks].sort(([a], [b]) => a.localeCompare(b)));
  const text = `${JSON.stringify({ version: 1, sources })}\n`;
  if (last.get(path) === text) return;
  await writeStateFile(path, text);
  last.set(path, text);
}
