// The `json` source: any JSON URL (a venue of the operator's choice), with each pair mapped to simple paths
// in the body: `data.ticker.bid`, `result["USDT-RUB"].ask`, `rates[0].price`.
import { z } from 'zod';
import { describeValue, pairText } from '../../base/config/fields.js';
import { getJson, httpTarget, SourceError, type EnvelopeProblem } from './http.js';
import { commonOptions, httpOptions } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { collectQuotes, isRecord, quoteFrom, shown } from '../../pure/sources/values.js';

/** `a.b[0]["c-d"]` → `['a', 'b', 0, 'c-d']`; undefined when it is not such a path. */
export function parsePath(text: string): (string | number)[] | undefined {
  const steps: (string | number)[] = [];
  const step = /\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]|\["([^"\\]+)"\]/y;
  let position = 0;
  while (position < text.length) {
    step.lastIndex = position;
    const match = step.exec(text);
    if (!match || (position === 0 && match[0].startsWith('.'))) return undefined;
    steps.push(match[1] ?? (match[2] !== undefined ? Number(match[2]) : match[3]!));
    position = step.lastIndex;
  }
  return steps.length > 0 ? steps : undefined;
}

/** The value at a path, or undefined; only own properties, so `constructor` finds nothing. */
export function valueAt(body: unknown, path: readonly (string | number)[]): unknown {
  let value = body;
  for (const step of path) {
    if (typeof step === 'number') value = Array.isArray(value) ? value[step] : undefined;
    else value = isRecord(value) && Object.hasOwn(value, step) ? value[step] : undefined;
    if (value === undefined) return undefined;
  }
  return value;
}

const jsonPath = z
  .string({ error: (issue) => `expected a path like "data.bid", got ${describeValue(issue.input)}` })
  .refine((text) => parsePath(text) !== undefined, {
    error: (issue) =>
      `expected a path like "data.bid" or "result[\\"BTC-RUB\\"].ask", got ${describeValue(issue.input)}`,
    abort: true,
  });

// A bad path or a missing ask is reported where it is (the loader picks the branch); only something that is
// neither a text nor a mapping gets this message.
const pricePaths = z.union([jsonPath, z.strictObject({ bid: jsonPath, ask: jsonPath })], {
  error: (issue) =>
    typeof issue.input === 'string' || (typeof issue.input === 'object' && issue.input !== null)
      ? undefined
      : `expected a path to one price, or { bid: path, ask: path }, got ${describeValue(issue.input)}`,
});

const absoluteUrl = z.string().refine(
  (value) => {
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  },
  { error: (issue) => `expected an http(s) URL, got ${describeValue(issue.input)}`, abort: true },
);

/** A time in the body: ISO 8601 text, or Unix seconds or milliseconds. */
function timeOf(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  if (/^\d{10}(\.\d+)?$/.test(value)) return new Date(Math.round(Number(value) * 1000));
  if (/^\d{13}$/.test(value)) return new Date(Number(value));
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value)) return new Date(value);
  return undefined;
}

const { baseUrl: _baseUrl, ...requestOptions } = httpOptions;

export const jsonSource = defineSource({
  type: 'json',
  options: z.strictObject({
    type: z.literal('json'),
    url: absoluteUrl.describe(
      'The JSON document; RATEFILE_JSON_URL replaces its scheme, host and port (for a mirror or a replay).',
    ),
    pairs: z
      .record(pairText, pricePaths)
      .refine((pairs) => Object.keys(pairs).length > 0, { error: 'expected at least one pair' })
      .describe('Each pair (BASE/QUOTE) and where its prices are: one path (bid = ask) or { bid: path, ask: path }.'),
    error: jsonPath
      .optional()
      .describe('Path of an error in the body: when present and not empty, false or null, the source fails with it.'),
    time: jsonPath
      .optional()
      .describe(
        'Path of the time the prices are valid (ISO 8601, Unix seconds or ms); default: when they were fetched.',
      ),
    ...commonOptions,
    ...requestOptions,
  }),
  async fetchQuotes(options, context) {
    const configured = new URL(options.url);
    const target = httpTarget('json', configured.origin, options, context);
    const errorPath = options.error === undefined ? undefined : parsePath(options.error);
    const envelope = (body: unknown): EnvelopeProblem | undefined => {
      if (!errorPath) return undefined;
      const error = valueAt(body, errorPath);
      if (
        error === undefined ||
        error === null ||
        error === '' ||
        error === 'false' ||
        error === '0' ||
        error === false ||
        (Array.isArray(error) && error.length === 0)
      )
        return undefined;
      return { message: `${options.error}: ${typeof error === 'string' ? error : JSON.stringify(error)}` };
    };
    const { where, body } = await getJson(context, target, { path: configured.pathname + configured.search, envelope });
    const fetchedAt = context.now();
    let time = fetchedAt;
    if (options.time !== undefined) {
      const value = valueAt(body, parsePath(options.time) ?? []);
      const parsed = timeOf(value);
      if (!parsed || Number.isNaN(parsed.getTime()))
        throw new SourceError(
          `${context.name}: ${where}: ${options.time} ${shown(value)} is not a time (ISO 8601, Unix seconds or milliseconds)`,
        );
      // A clock ahead of ours must not make prices look newer than their fetch.
      if (parsed < fetchedAt) time = parsed;
    }
    const pairs = Object.entries(options.pairs).map(([pair, paths]) => {
      const [base = '', quote = ''] = pair.split('/');
      const { bid, ask } = typeof paths === 'string' ? { bid: paths, ask: paths } : paths;
      return { pair, base, quote, symbol: bid === ask ? bid : `${bid}, ${ask}`, bid, ask };
    });
    return collectQuotes(
      pairs,
      where,
      (pair) => {
        const bid = valueAt(body, parsePath(pair.bid) ?? []);
        const ask = valueAt(body, parsePath(pair.ask) ?? []);
        return bid === undefined && ask === undefined ? undefined : { bid, ask };
      },
      (entry, pair, label) =>
        quoteFrom(pair.pair, label, { bid: [pair.bid, entry.bid], ask: [pair.ask, entry.ask] }, time),
    );
  },
});
