// The `file` reserve source: a JSON file the back office writes, `{ "SBERRUB": { "reserve": "5000000", "min": …,
// "max": …, "enabled": true }, "BTC": "3.5" }`, optionally under `reserves` with a `time`.
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { RatefileError } from '../errors.js';
import { commonOptions } from '../sources/options.js';
import { jsonSyntaxError } from '../sources/syntax.js';
import { isRecord, parseJsonExact, shown } from '../sources/values.js';
import { entriesOf } from './entry.js';
import { defineReserveSource } from './source.js';

const { priority: _priority, ...timing } = commonOptions;

/** `time` in a document: ISO 8601 with an offset. */
export function documentTime(value: unknown, fallback: Date, where: string): Date {
  if (value === undefined) return fallback;
  const valid = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));
  if (!valid) throw new RatefileError('E_SOURCE', `${where}: time ${shown(value)} is not an ISO 8601 time like "2026-11-21T12:00:00Z"`);
  // A clock ahead of ours must not make reserves look newer than their reading.
  const time = new Date(value);
  return time < fallback ? time : fallback;
}

export const fileReserves = defineReserveSource({
  type: 'file',
  options: z.strictObject({
    type: z.literal('file'),
    path: z.string().min(1).describe('Reserves JSON file, relative to the config file.'),
    ...timing,
  }),
  async fetchReserves(options, context) {
    const path = resolve(context.configDir, options.path);
    let text: string;
    let modified: Date;
    try {
      const handle = await open(path, 'r');
      try {
        modified = (await handle.stat()).mtime;
        text = await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
    } catch (cause) {
      throw new RatefileError('E_SOURCE', `${context.name}: cannot read reserves file ${path}: ${(cause as Error).message}`, { cause });
    }
    let data: unknown;
    try {
      data = parseJsonExact(text);
    } catch (cause) {
      const error = jsonSyntaxError(text);
      const where = error ? `line ${error.line}, column ${error.column}: ${error.problem}` : (cause as Error).message;
      throw new RatefileError('E_SOURCE', `${context.name}: ${path}: not valid JSON: ${where}`, { cause });
    }
    // Either the mapping itself, or `{ "reserves": mapping, "time": … }`.
    const wrapped = isRecord(data) && isRecord(data.reserves);
    const entries = entriesOf(wrapped ? (data as Record<string, unknown>).reserves : data);
    if (!entries) throw new RatefileError('E_SOURCE', `${context.name}: ${path}: expected a mapping of currency codes to reserves, got ${shown(data)}`);
    // The file's age, unless it dates itself: a back office that stopped writing must show.
    const now = context.now();
    const time = wrapped ? documentTime((data as Record<string, unknown>).time, modified < now ? modified : now, `${context.name}: ${path}`) : modified < now ? modified : now;
    return { entries, time };
  },
});
