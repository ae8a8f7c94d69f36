// Options every source shares (priority, refresh, maxAge), those of sources reached over HTTP (baseUrl,
// timeout, retries), and the `pairs` list; with the defaults they stand for.
import { z } from 'zod';
import { describeValue, duration, pairText } from '../../base/config/fields.js';

const expected = (what: string) => (issue: { input?: unknown }) =>
  `expected ${what}, got ${describeValue(issue.input)}`;

const integer = (min: number, max: number, what: string) =>
  z
    .int({ error: expected(what) })
    .min(min, { error: expected(what) })
    .max(max, { error: expected(what) });

export const httpUrl = z.string({ error: expected('an http(s) URL like "https://api.example.com"') }).refine(
  (value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.search === '' && url.hash === '';
    } catch {
      return false;
    }
  },
  { error: expected('an http(s) URL without query like "https://api.example.com"'), abort: true },
);

/** Options of every source. */
export const commonOptions = {
  priority: integer(-1000, 1000, 'an integer -1000..1000')
    .optional()
    .describe(
      'When two sources quote the same pair, or two equally short chains exist, the higher priority wins (default 0; then the source listed first).',
    ),
  refresh: duration
    .optional()
    .describe(
      'Fetch at most this often; in between the last good quotes are reused (default: every build; 1m for coingecko, 1h for cbr and ecb).',
    ),
  maxAge: z
    .union([z.literal('off').transform(() => Number.POSITIVE_INFINITY), duration], {
      error: (issue) => `expected a duration like "2m" or "off", got ${describeValue(issue.input)}`,
    })
    .optional()
    .describe(
      'Quotes older than this are not used; one exactly this old still is (default: twice the refresh interval or the schedule period, whichever is longer); "off": no limit.',
    ),
};

/** Option of the sources that read a file the back office writes (`file`, and the `file` reserve source). */
export const watchOption = z
  .boolean({ error: expected('true or false') })
  .optional()
  .describe(
    '`ratefile start` builds as soon as the file changes, besides the schedule (default true; a source with `refresh` is not watched).',
  );

/** Options of sources reached over HTTP. */
export const httpOptions = {
  ...commonOptions,
  baseUrl: httpUrl
    .optional()
    .describe(
      'Base URL of the API, for a mirror or a replay; the RATEFILE_<TYPE>_URL environment variable overrides it.',
    ),
  timeout: duration.optional().describe('Per request (default 10s).'),
  retries: integer(0, 5, 'an integer 0..5')
    .optional()
    .describe(
      'Retries after a timeout, a network error, a 5xx or a 429 (default 2), with backoff; Retry-After is honoured, for 10 minutes at most.',
    ),
};

const pairsExpected = (input: unknown) =>
  `${input === undefined ? 'required: ' : ''}expected a list of pairs like [BTC/USDT] or a mapping like { BTC/USDT: BTCUSDT }${input === undefined ? '' : `, got ${describeValue(input)}`}`;

/** The pairs a source supplies: a list of `BASE/QUOTE`, or a mapping of them to the source's own symbols. */
export const pairsOption = z
  .union(
    [
      z.array(pairText).min(1, { error: 'expected at least one pair' }),
      z.record(
        pairText,
        z
          .string({ error: expected("the source's symbol for the pair") })
          .regex(/^[A-Za-z0-9_.:-]{1,40}$/, { error: expected('a symbol like "XBTUSDT"') }),
      ),
    ],
    // A list or a mapping with a bad entry is reported at the entry (the loader picks the branch); only
    // something that is neither gets this message.
    {
      error: (issue) =>
        typeof issue.input === 'object' && issue.input !== null ? undefined : pairsExpected(issue.input),
    },
  )
  .describe(
    "Pairs to take, as BASE/QUOTE (one BASE costs bid..ask of QUOTE); a mapping gives the source's own symbol for a pair.",
  );

export const defaultTimeoutMs = 10_000;
export const defaultRetries = 2;
