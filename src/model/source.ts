// The one interface every rate source implements, and the quote shape they all return.
import type { z } from 'zod';
import type { Decimal } from '../base/decimal.js';
import type { FeedPair } from './config.js';

/** A market quote as a source reports it: prices still as decimal text, checked by `checkQuote`. */
export interface RawQuote {
  /** `BASE/QUOTE`, e.g. `BTC/USDT`: one BASE costs `bid`..`ask` of QUOTE. */
  pair: string;
  bid: string;
  ask: string;
  /** When the source says the price was valid; otherwise when the source last changed or was fetched. */
  time: Date;
}

/** A checked quote in the quote book. */
export interface Quote {
  pair: string;
  base: string;
  quote: string;
  bid: Decimal;
  ask: Decimal;
  time: Date;
  /** Name of the configured source it came from. */
  source: string;
  /** The source's configured priority (higher wins a tie between chains); 0 when not set. */
  priority?: number;
  /**
   * A pair of `rates:` that could not be made this build, and why: it stays in the book without a price, so a
   * chain through it is withheld with this reason instead of going round it (src/pure/rates/book.ts).
   */
  missing?: string;
  /** Made by a rule of `rates:` (its `source` then says how: `formula`, `median of 3`), not sent by a source. */
  ruled?: true;
  /**
   * The answers it comes from, each `source@fetch` (the source's name and which of its fetches): one for a source's
   * quote, its terms' for a ruled one. The jump guard confirms a new rate only on answers it has not seen yet, so a
   * quote reused between fetches never confirms itself. Absent (quotes made by hand): `source@time`.
   */
  answers?: readonly string[];
  /**
   * Fed by the source's stream (`stream:`): the number of the frame it came in, counting up from 1 per source and
   * process (its answer's identity: `<source>@stream#<n>`); absent for a quote a REST answer gave.
   */
  streamSeq?: number;
}

export interface SourceContext {
  /** The source's name in the config (`sources.<name>`), for messages. */
  name: string;
  /** Folder of the config file; relative paths in source options resolve against it. */
  configDir: string;
  fetch: typeof globalThis.fetch;
  /** The User-Agent its requests carry (the config's `userAgent:`, else `ratefile/<version>`). */
  userAgent: string;
  signal: AbortSignal;
  now: () => Date;
  /** Environment variables (`RATEFILE_<TYPE>_URL` base URL overrides, API keys). */
  env: Readonly<Record<string, string | undefined>>;
  /** Waits between HTTP retries; tests replace it to check waits without spending them. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * A feed source's last good result (`SourceResult.feed`), for conditional requests and the row-count check;
   * kept across builds by the service's QuoteCache, absent in `ratefile build`.
   */
  previous?: SourceFeed;
  /** A bestchange source: the pairs the config competes in (`SourceConfig.competes`). */
  competes?: readonly FeedPair[];
  /** `previous` is older than the source's maxAge: still good for a conditional request, no yardstick for the row count. */
  previousStale?: boolean;
  /**
   * What a source keeps between its fetches beyond its last good result (API v2: the catalogues read before a
   * failed `rates`), by the source's own key: the service's QuoteCache's, so it outlives the config objects a
   * reload replaces; absent in `ratefile build`.
   */
  kept?: Map<string, unknown>;
}

/** What a feed source (one that provides no quotes, like `bestchange`) returns instead: a parsed feed. */
export interface SourceFeed {
  /** Rows in the feed, for the build report and status. */
  rows: number;
  /** The parsed feed, as the source's module types it. */
  value: unknown;
}

/**
 * What a source returns when some pairs it was asked for are unusable (missing, zero, bid above ask):
 * the usable quotes, and one line per dropped pair naming the URL path and the problem.
 */
export interface SourceResult {
  quotes: RawQuote[];
  problems: string[];
  /** A feed source's result (its `quotes` are empty). */
  feed?: SourceFeed;
}

export interface SourceDefinition<Options extends { type: string } = { type: string }> {
  /** The `type:` that selects this source in the config. */
  type: Options['type'];
  /** Schema of the source's config block, `type` included; unknown keys are errors. */
  options: z.ZodType<Options>;
  /** How often it is asked by default, in ms (`refresh`); 0 or absent: every build. */
  defaultRefreshMs?: number;
  /** A feed source: no quotes, its result is `SourceResult.feed` (reported by rows, kept like quotes). */
  feed?: boolean;
  fetchQuotes(options: Options, context: SourceContext): Promise<RawQuote[] | SourceResult>;
}

/** Identity helper that keeps each source module's option type attached to its functions. */
export function defineSource<Options extends { type: string }>(
  definition: SourceDefinition<Options>,
): SourceDefinition<Options> {
  return definition;
}

/**
 * Quotes by pair (`BTC/USDT`). One quote per market: when two sources quote the same pair (either way
 * round), the higher `priority` wins, then the source listed first in the config.
 */
export type QuoteBook = ReadonlyMap<string, Quote>;
