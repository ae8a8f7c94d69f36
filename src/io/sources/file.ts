// The `file` source: quotes from a JSON file that the operator's back office writes (pair, bid, ask, time).
import { resolve } from 'node:path';
import { z } from 'zod';
import { RatefileError } from '../../base/errors.js';
import { problemsFromIssues, formatPath } from '../../base/config/problems.js';
import { pairText, price } from '../../base/config/fields.js';
import { commonOptions, watchOption } from '../../pure/sources/options.js';
import { defineSource, type RawQuote } from '../../model/source.js';
import { readJsonFile } from './json-file.js';
import { isRecord, shown } from '../../pure/sources/values.js';
import { plural } from '../../base/words.js';

const quoteEntry = z.strictObject({
  pair: pairText,
  bid: price,
  ask: price,
  time: z.iso
    .datetime({
      offset: true,
      error: (issue) => `expected an ISO 8601 time like "2026-11-21T12:00:00Z", got ${JSON.stringify(issue.input)}`,
    })
    .optional(),
});

/** More keys than this at the top of the file: not a quotes file, said in one line. */
const maxTopKeys = 20;

/** The file holds a list of quotes, bare or under `quotes`; each entry is checked on its own (`quoteEntry`). */
const quotesFileSchema = z.union([z.array(z.unknown()), z.strictObject({ quotes: z.array(z.unknown()) })]);

export const fileSource = defineSource({
  type: 'file',
  options: z.strictObject({
    type: z.literal('file'),
    path: z.string().min(1).describe('Quotes JSON file, relative to the config file.'),
    watch: watchOption,
    ...commonOptions,
  }),
  async fetchQuotes(options, context) {
    const path = resolve(context.configDir, options.path);
    const { data, modified } = await readJsonFile(context.name, path, 'quotes');
    // An object of many keys is no quotes file, and one "unknown key" line each would flood the log (and, by the
    // hundred thousand, overflow the stack of the schema's checks): one line says what it is.
    if (isRecord(data) && Object.keys(data).length > maxTopKeys) {
      const keys = Object.keys(data);
      throw new RatefileError(
        'E_SOURCE',
        `${context.name}: ${path}: expected a list of quotes, bare or as {"quotes": [...]}, got an object of ${keys.length} keys (${keys
          .slice(0, 3)
          .map((key) => shown(key))
          .join(', ')}, …)`,
      );
    }
    const parsed = quotesFileSchema.safeParse(data, { reportInput: true });
    if (!parsed.success) {
      const problems = problemsFromIssues(parsed.error.issues, quotesFileSchema);
      throw new RatefileError('E_SOURCE', `${context.name}: ${path}: ${plural(problems.length, 'problem')}`, {
        details: problems.map((problem) => `${formatPath(problem.path)}: ${problem.message}`),
      });
    }
    const [entries, at] = Array.isArray(parsed.data) ? [parsed.data, []] : [parsed.data.quotes, ['quotes']];
    // One malformed entry is dropped like a zero price, by its index; the file's other quotes still count.
    const quotes: RawQuote[] = [];
    const problems: string[] = [];
    entries.forEach((raw, index) => {
      const entry = quoteEntry.safeParse(raw, { reportInput: true });
      if (entry.success) {
        // A quote without its own time is as old as the file: a back office that stopped writing must show.
        const { pair, bid, ask, time } = entry.data;
        quotes.push({ pair, bid, ask, time: time === undefined ? modified : new Date(time) });
        return;
      }
      const pair = isRecord(raw) && typeof raw.pair === 'string' && raw.pair.length <= 40 ? `${raw.pair}: ` : '';
      const lines = problemsFromIssues(entry.error.issues, quoteEntry).map(
        (problem) => `${formatPath([...at, index, ...problem.path])}: ${problem.message}`,
      );
      problems.push(`${pair}${lines.join('; ')}`);
    });
    return { quotes, problems };
  },
});
