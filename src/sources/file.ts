// The `file` source: quotes from a JSON file that the operator's back office writes (pair, bid, ask, time).
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { RatefileError } from '../errors.js';
import { problemsFromIssues, formatPath } from '../config/problems.js';
import { amount, pairText } from '../config/fields.js';
import { commonOptions } from './options.js';
import { defineSource } from './source.js';

const quoteEntry = z.strictObject({
  pair: pairText,
  bid: amount,
  ask: amount,
  time: z.iso.datetime({ offset: true, error: (issue) => `expected an ISO 8601 time like "2026-11-21T12:00:00Z", got ${JSON.stringify(issue.input)}` }).optional(),
});

/** The file holds a list of quotes, bare or under `quotes`. */
export const quotesFileSchema = z.union([z.array(quoteEntry), z.strictObject({ quotes: z.array(quoteEntry) })]);

export const fileSource = defineSource({
  type: 'file',
  options: z.strictObject({
    type: z.literal('file'),
    path: z.string().min(1).describe('Quotes JSON file, relative to the config file.'),
    ...commonOptions,
  }),
  async fetchQuotes(options, context) {
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
      throw new RatefileError('E_SOURCE', `${context.name}: cannot read quotes file ${path}: ${(cause as Error).message}`, { cause });
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (cause) {
      throw new RatefileError('E_SOURCE', `${context.name}: ${path}: not valid JSON: ${(cause as Error).message}`, { cause });
    }
    const parsed = quotesFileSchema.safeParse(data, { reportInput: true });
    if (!parsed.success) {
      const problems = problemsFromIssues(parsed.error.issues, quotesFileSchema);
      throw new RatefileError('E_SOURCE', `${context.name}: ${path}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`, {
        details: problems.map((problem) => `${formatPath(problem.path)}: ${problem.message}`),
      });
    }
    const entries = Array.isArray(parsed.data) ? parsed.data : parsed.data.quotes;
    // A quote without its own time is as old as the file: a back office that stopped writing must show.
    return entries.map((entry) => ({
      pair: entry.pair,
      bid: entry.bid,
      ask: entry.ask,
      time: entry.time === undefined ? modified : new Date(entry.time),
    }));
  },
});
