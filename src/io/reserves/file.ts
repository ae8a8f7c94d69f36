// The `file` reserve source: a JSON file the back office writes, `{ "SBERRUB": { "reserve": "5000000", "min": …,
// "max": …, "enabled": true }, "BTC": "3.5" }`, optionally under `reserves` with a `time`.
import { resolve } from 'node:path';
import { z } from 'zod';
import { RatefileError } from '../../base/errors.js';
import { commonOptions, watchOption } from '../../pure/sources/options.js';
import { readJsonFile } from '../sources/json-file.js';
import { isRecord, shown } from '../../pure/sources/values.js';
import { entriesOf } from '../../pure/reserves/entry.js';
import { defineReserveSource } from '../../model/reserve-source.js';

const { priority: _priority, ...timing } = commonOptions;

/** `time` in a document: ISO 8601 with an offset. */
export function documentTime(value: unknown, fallback: Date, where: string): Date {
  if (value === undefined) return fallback;
  const valid =
    typeof value === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value));
  if (!valid)
    throw new RatefileError(
      'E_SOURCE',
      `${where}: time ${shown(value)} is not an ISO 8601 time like "2026-11-21T12:00:00Z"`,
    );
  // A clock ahead of ours must not make reserves look newer than their reading.
  const time = new Date(value);
  return time < fallback ? time : fallback;
}

export const fileReserves = defineReserveSource({
  type: 'file',
  options: z.strictObject({
    type: z.literal('file'),
    path: z.string().min(1).describe('Reserves JSON file, relative to the config file.'),
    watch: watchOption,
    ...timing,
  }),
  async fetchReserves(options, context) {
    const path = resolve(context.configDir, options.path);
    const { data, modified } = await readJsonFile(context.name, path, 'reserves');
    // Either the mapping itself, or `{ "reserves": mapping, "time": … }`.
    const wrapped = isRecord(data) && isRecord(data.reserves);
    const entries = entriesOf(wrapped ? (data as Record<string, unknown>).reserves : data);
    if (!entries)
      throw new RatefileError(
        'E_SOURCE',
        `${context.name}: ${path}: expected a mapping of currency codes to reserves, got ${shown(data)}`,
      );
    // The file's age, unless it dates itself: a back office that stopped writing must show.
    const now = context.now();
    const time = wrapped
      ? documentTime(
          (data as Record<string, unknown>).time,
          modified < now ? modified : now,
          `${context.name}: ${path}`,
        )
      : modified < now
        ? modified
        : now;
    return { entries, time };
  },
});
