// QuoteCache: what the long-running service keeps of each source across builds, and its feed fetches under way.
import type { SourceConfig } from '../../model/config.js';
import type { Quote, SourceFeed } from '../../model/source.js';
import type { Yardstick } from '../../pure/sources/scale.js';
import type { StreamReport } from '../../pure/status/report.js';

/** A streamed source's quotes as they stand (src/io/streams/hub.ts): a build reads them instead of asking the source. */
export interface LiveResult {
  quotes: Quote[];
  rejected: string[];
  /** When the newest of them arrived. */
  fetchedAt: number;
  stream: StreamReport;
}

export interface LiveQuotes {
  /** The source's quotes now, or undefined when it is not streamed or has none yet (then it is asked as usual). */
  quotesFor(source: SourceConfig, now: number): LiveResult | undefined;
}

/**
 * Last good quotes per source, kept across builds by the long-running service; `ratefile build` starts empty.
 * With `background` (the service's), a feed source is fetched beside the builds: a build never waits for a
 * fetch under way: it uses the last good feed while that is within maxAge, else none (competing directions fall back).
 */
export class QuoteCache {
  readonly entries = new Map<string, CacheEntry>();
  readonly background: boolean;
  /** Feed fetches under way in the background, by source name: at most one per source. */
  readonly fetching = new Map<string, { since: number; done: Promise<void> }>();
  /** What sources keep between fetches beyond their last good result (`SourceContext.kept`), by their own keys. */
  readonly kept = new Map<string, unknown>();
  /** Each source's last accepted answer (src/pure/sources/scale.ts), read from the state folder once, then kept here. */
  yardsticks: Map<string, Yardstick> | undefined;
  readonly #stopper = new AbortController();
  /** The service's streams (`stream:` sources); absent in `ratefile build`, where every source is asked over REST. */
  live: LiveQuotes | undefined;
  /** Told of each background fetch that failed, with when the source is asked next (the service logs it). */
  readonly onFeedFailure: ((failure: string, nextTry: Date) => void) | undefined;

  constructor(options: { background?: boolean; onFeedFailure?: (failure: string, nextTry: Date) => void } = {}) {
    this.background = options.background ?? false;
    this.live = undefined;
    this.onFeedFailure = options.onFeedFailure;
  }

  /** Aborts the feed fetches under way (the service stops). */
  close(): void {
    this.#stopper.abort(new Error('the service stopped'));
  }

  get signal(): AbortSignal {
    return this.#stopper.signal;
  }

  /** Resolves once no background fetch is under way. */
  async settled(): Promise<void> {
    while (this.fetching.size > 0) await Promise.all([...this.fetching.values()].map((fetch) => fetch.done));
  }
}

export interface CacheEntry {
  /** The source's type, options and base URL override: a changed config does not reuse old quotes. */
  fingerprint: string;
  quotes: Quote[];
  rejected: string[];
  /** A feed source's last good result. */
  feed?: SourceFeed;
  fetchedAt: number;
  /** Not asked before this: the source asked so (Retry-After beyond what a build waits for), or a feed failed. */
  notBefore?: number;
  /** Why a feed source's last fetch failed: it is asked again only after `notBefore` (its refresh), not every build. */
  failure?: string;
}
