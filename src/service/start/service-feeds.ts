// The service's quotes: a cache kept across builds, whose feeds are fetched in the background, and the first
// build's short wait for the feeds' first answers.
import type { BuildDeps } from '../../io/build/build.js';
import type { Logger } from '../../base/log.js';
import type { Config } from '../../model/config.js';
import { QuoteCache, startFeedFetches } from '../../io/quotes/quotes.js';

/** How long the first build waits for the feeds' first answers (BestChange's info.zip is about 1.5 MB). */
export const FIRST_FEED_WAIT_MS = 5_000;

/**
 * Quotes within their source's refresh interval are reused across builds (a daily fixing is not refetched every
 * 30 s); feeds are fetched in the background, so a feed host that hangs never holds a build.
 */
export function serviceQuoteCache(log: Logger): QuoteCache {
  return new QuoteCache({
    background: true,
    onFeedFailure: (failure, next) =>
      log.warn(`feed fetch failed: ${failure}; next try after ${next.toISOString()}`, {
        event: 'feed-fetch',
        ok: false,
      }),
  });
}

/**
 * The feeds asked first and waited for a little, at most FIRST_FEED_WAIT_MS, so the first files compete already
 * (a feed host that hangs delays start-up by that much once; builds never wait for it).
 */
export async function waitForFirstFeeds(config: Config, deps: BuildDeps & { quoteCache: QuoteCache }): Promise<void> {
  await startFeedFetches(config.sources, {
    configDir: config.dir,
    fetch: deps.fetch ?? globalThis.fetch,
    userAgent: config.userAgent,
    now: deps.now,
    env: deps.env ?? process.env,
    schedulePeriodMs: config.schedulePeriodMs,
    cache: deps.quoteCache,
  });
  await settledWithin(deps.quoteCache, FIRST_FEED_WAIT_MS);
}

async function settledWithin(cache: QuoteCache, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([cache.settled(), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
