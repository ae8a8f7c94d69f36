// The `watch:` block of the config: the public address of each export, fetched by `ratefile start` as a monitor
// would (src/service/start/outside-watch.ts) and compared with what was published (src/pure/watch/judge.ts).
import { z } from 'zod';
import { duration, userAgentText } from '../base/config/fields.js';
import { monitorLikeAgent } from '../base/requests.js';

const publicUrl = z.url({ protocol: /^https?$/, error: 'expected the http(s) URL monitors fetch the export from' });

const exportFile = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*\.(xml|json|txt)$/, {
  error: 'expected an export file name like "parserfile.xml"',
});

const atLeast = (ms: number, words: string) => duration.refine((value) => value >= ms, { error: words });

export const watchSchema = z
  .strictObject({
    exports: z
      .record(exportFile, publicUrl)
      .refine((entries) => Object.keys(entries).length > 0, { error: 'expected at least one export and its URL' })
      .describe('Each export file and the public URL monitors fetch it from: `parserfile.xml: https://…`.'),
    every: atLeast(30_000, 'expected a duration of 30s or more, like "5m"')
      .default(300_000)
      .describe('How often each public copy is fetched (default 5m).'),
    userAgent: userAgentText
      .optional()
      .describe(
        'The User-Agent of the fetches (default: the config\'s `userAgent` followed by "(a monitor-like check of an exchange-rates export file)"): a monitor-like one shows what an anti-bot layer does to monitors.',
      ),
    timeout: atLeast(1_000, 'expected a duration of 1s or more, like "10s"')
      .default(10_000)
      .describe('A fetch is cut off after this long, body included (default 10s): state `slow`.'),
    slowAfter: atLeast(100, 'expected a duration of 100ms or more, like "3s"')
      .default(3_000)
      .describe("A whole answer that takes longer than this is `slow` (default 3s, under the monitors' own timeouts)."),
    maxBytes: z
      .int()
      .min(1024)
      .max(100 * 1024 * 1024)
      .default(16 * 1024 * 1024)
      .describe('The largest body read, in bytes (default 16 MiB); more is an `error`.'),
    alertAfter: duration
      .default(900_000)
      .describe('An alert (`outside:<file>`) starts when a copy has been other than `same` this long (default 15m).'),
    keep: z
      .int()
      .min(2)
      .max(1000)
      .default(50)
      .describe('How many published versions of each export are remembered, to say how many builds behind a copy is.'),
  })
  .optional()
  .describe(
    'A watch from outside: `start` fetches the public copy of each export as a monitor would and says whether it is the latest build, an older one, a challenge page, an error or too slow.',
  );

/** The `watch:` block, normalized. */
export interface WatchConfig {
  readonly exports: Readonly<Record<string, string>>;
  readonly everyMs: number;
  readonly userAgent: string;
  readonly timeoutMs: number;
  readonly slowAfterMs: number;
  readonly maxBytes: number;
  readonly alertAfterMs: number;
  readonly keep: number;
}

/** The `watch:` block, normalized; `userAgent` is the config's (`userAgent:`), which the watch's own replaces. */
export function normalizeWatch(entry: z.output<typeof watchSchema>, userAgent: string): WatchConfig | undefined {
  if (!entry) return undefined;
  return {
    exports: entry.exports,
    everyMs: entry.every,
    userAgent: entry.userAgent ?? monitorLikeAgent(userAgent),
    timeoutMs: entry.timeout,
    slowAfterMs: entry.slowAfter,
    maxBytes: entry.maxBytes,
    alertAfterMs: entry.alertAfter,
    keep: entry.keep,
  };
}
