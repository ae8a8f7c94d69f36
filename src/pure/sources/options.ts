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

const wsUrl = z.string({ error: expected('a ws(s) URL like "wss://stream.example.com"') }).refine(
  (value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'ws:' || url.protocol === 'wss:') && url.search === '' && url.hash === '';
    } catch {
      return false;
    }
  },
  { error: expected('a ws(s) URL without query like "wss://stream.example.com"'), abort: true },
);

const bounded = (min: number, max: number, what: string) =>
  duration.refine((ms) => ms >= min && ms <= max, { error: expected(what) });

/** The stream mode of a venue that pushes its best bid/ask (binance, bybit, okx, kraken): docs/sources.md "Streams". */
export const streamOption = z
  .union(
    [
      z.boolean({ error: expected('true, false or a mapping of stream settings') }),
      z.strictObject({
        url: wsUrl
          .optional()
          .describe("The stream's address, for a mirror or a replay; RATEFILE_<TYPE>_STREAM_URL overrides it."),
        silence: bounded(100, 300_000, 'a duration from 100ms to 5m')
          .optional()
          .describe(
            'Nothing heard for this long (no frame, ping or pong; a heartbeat is sent after half of it): the connection is dropped and made again, REST feeding the pairs meanwhile (default 5s).',
          ),
        minInterval: bounded(0, 3_600_000, 'a duration from 0s to 1h')
          .optional()
          .describe(
            '`ratefile start` builds when a streamed quote moves a published number, at most this often (default 1s).',
          ),
      }),
    ],
    { error: (issue) => `expected true, false or a mapping of stream settings, got ${describeValue(issue.input)}` },
  )
  .optional()
  .describe(
    "`ratefile start` keeps the venue's WebSocket stream of best bid/ask open for these pairs and builds when a quote moves a published number; REST feeds the pairs the stream does not (default false; `ratefile build` always asks REST).",
  );

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
