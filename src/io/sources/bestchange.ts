// The `bestchange` source: BestChange's public feed, GET /info.zip, or with `api: v2` its keyed JSON API
// (bestchange-v2.ts). A feed source: it provides no quotes but
// the competitors' rates (src/pure/bestchange/feed.ts), kept across builds like quotes. Conditional requests
// (ETag / Last-Modified) keep the last parsed feed on a 304; a feed with far fewer rows than the last fails
// while the last can still stand in. Only a feed that was used is the yardstick: a refused one never is.
import { z } from 'zod';
import { cityCode, duration, percentage } from '../../base/config/fields.js';
import { isRatefileError } from '../../base/errors.js';
import { parseFeed, type BestChangeFeed } from '../../pure/bestchange/feed.js';
import { fetchWithRetries, httpTarget, looksLikeHtml, SourceError } from './http.js';
import { httpOptions, httpUrl } from '../../pure/sources/options.js';
import { defaultKeyEnv, fetchV2, type V2State } from './bestchange-v2.js';
import { defineSource, type SourceContext, type SourceFeed, type SourceResult } from '../../model/source.js';

const path = '/info.zip';
/** BestChange asks clients not to fetch info.zip more often than this. */
export const minRefreshMs = 30_000;
/** A feed with fewer rows than this share of the last good one is taken as broken, not as a market change. */
export const minRowShare = 0.5;

/** The value of a bestchange source's `SourceFeed`: the parsed feed and what the next conditional request sends. */
export interface BestChangeState {
  feed: BestChangeFeed;
  etag?: string;
  lastModified?: string;
  /** API v2: the catalogue kept between fetches. */
  v2?: V2State;
}

const isState = (value: unknown): value is BestChangeState =>
  typeof value === 'object' && value !== null && 'feed' in value;

/** The parsed feed of a `SourceFeed` a bestchange source returned; undefined for any other. */
export const bestChangeFeed = (feed: SourceFeed | undefined): BestChangeFeed | undefined =>
  isState(feed?.value) ? feed.value.feed : undefined;

const bestchangeOptions = z
  .strictObject({
    type: z.literal('bestchange'),
    ...httpOptions,
    refresh: duration
      .refine((ms) => ms >= minRefreshMs, {
        error: (issue) =>
          `expected at least "30s" (BestChange asks for one fetch per 30 s at most), got "${Number(issue.input) / 1000}s"`,
      })
      .optional()
      .describe('Fetch info.zip at most this often (default and least: 30s, as BestChange asks).'),
    self: z
      .union([z.int().min(0), z.array(z.int().min(0)).max(100)])
      .optional()
      .describe('The exchanger’s own BestChange id(s) (bm_exch.dat): its rows are never counted as competitors.'),
    listing: z
      .strictObject({
        alertAfter: duration
          .prefault('10m')
          .describe('Alert when a direction stays listed other than published (or missing) for longer than this.'),
        tolerance: percentage
          .refine((value) => !value.trim().startsWith('-'), { error: 'expected a tolerance of 0% or more like "1%"' })
          .default('1%')
          .describe('How far a listed reserve or limit may be from the published one (BestChange rounds them).'),
      })
      .optional()
      .describe(
        'With self: compare BestChange’s listing of the exchanger with what ratefile published (lag, differences, missing directions).',
      ),
    cities: z
      .record(z.string().min(1).max(100), cityCode)
      .optional()
      .describe(
        'BestChange city id or name (bm_cities.dat) → export city code, for cities not found by name in data/city-codes.tsv.',
      ),
    api: z
      .literal('v2', { error: 'expected "v2" (BestChange\'s keyed JSON API); leave it out for info.zip' })
      .optional()
      .describe(
        'v2: BestChange’s keyed JSON API (rates with rankrate, for exactly the competing pairs); absent: the public info.zip.',
      ),
    keyEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/)
      .optional()
      .describe(`API v2: the environment variable holding the key (default ${defaultKeyEnv}); never logged.`),
    mirrors: z
      .array(httpUrl)
      .max(5)
      .optional()
      .describe(
        'API v2: hosts tried in order after the first when it fails (default mirror1. and mirror2.bestchange.app; none when baseUrl is set).',
      ),
    catalogueRefresh: duration
      .refine((ms) => ms >= 600_000, { error: 'expected at least "10m" (the catalogues change rarely)' })
      .optional()
      .describe('API v2: read the currencies, cities and changers lists at most this often (default 6h).'),
    fallback: z
      .string()
      .min(1)
      .optional()
      .describe(
        'API v2: a bestchange source reading info.zip whose feed stands in while the API fails (ranked by the bare rate then).',
      ),
  })
  .superRefine((options, context) => {
    if (options.listing !== undefined && options.self === undefined)
      context.addIssue({
        code: 'custom',
        path: ['listing'],
        message: 'only with self: (the ids whose listing is compared)',
      });
    if (options.api === 'v2') return;
    for (const key of ['keyEnv', 'mirrors', 'catalogueRefresh', 'fallback'] as const)
      if (options[key] !== undefined)
        context.addIssue({ code: 'custom', path: [key], message: 'only with api: v2 (info.zip takes no key)' });
  });

type BestChangeOptions = z.output<typeof bestchangeOptions>;

export const bestchangeSource = defineSource({
  type: 'bestchange',
  feed: true,
  options: bestchangeOptions,
  defaultRefreshMs: minRefreshMs,
  async fetchQuotes(options, context) {
    const previous = isState(context.previous?.value) ? context.previous.value : undefined;
    if (options.api === 'v2') {
      const { feed, state, problems } = await fetchV2(options, context, previous?.v2);
      return { quotes: [], problems, feed: { rows: feed.rows, value: { feed, v2: state } } };
    }
    return fetchZip(options, context, previous);
  },
});

/** info.zip, conditionally against the last good one. */
async function fetchZip(
  options: BestChangeOptions,
  context: SourceContext,
  previous: BestChangeState | undefined,
): Promise<SourceResult> {
  const target = httpTarget('bestchange', 'http://api.bestchange.ru', options, context);
  const headers: Record<string, string> = { accept: 'application/zip, */*;q=0.5' };
  if (previous?.etag) headers['if-none-match'] = previous.etag;
  if (previous?.lastModified) headers['if-modified-since'] = previous.lastModified;
  return fetchWithRetries(context, target, { path, headers, conditional: previous !== undefined }, (fetched) => {
    const fail = (problem: string, cause?: unknown) =>
      new SourceError(`${context.name}: ${fetched.where}: ${problem}`, cause === undefined ? {} : { cause });
    if (fetched.status === 304) {
      if (!previous) throw fail('HTTP 304 Not Modified to a request that was not conditional');
      return { quotes: [], problems: [], feed: { rows: previous.feed.rows, value: previous } };
    }
    const head = Buffer.from(fetched.bytes.subarray(0, 512)).toString('latin1');
    if (looksLikeHtml(fetched.contentType, head))
      throw fail(
        `got an HTML page instead of info.zip (HTTP ${fetched.status}, ${fetched.contentType || 'no content type'})`,
      );
    let feed: BestChangeFeed;
    try {
      feed = parseFeed(fetched.bytes, options.cities ? { cities: options.cities } : {});
    } catch (error) {
      if (isRatefileError(error, 'E_SOURCE')) throw fail(error.message, error);
      throw error;
    }
    // Against a last good feed too old to stand in, refusing would leave no feed at all: the new one is taken.
    if (previous && !context.previousStale && feed.rows < previous.feed.rows * minRowShare) {
      throw fail(
        `${feed.rows} rows, fewer than half of the last good feed's ${previous.feed.rows}: taken as a broken feed`,
      );
    }
    const etag = fetched.headers.get('etag') ?? undefined;
    const lastModified = fetched.headers.get('last-modified') ?? undefined;
    const state: BestChangeState = { feed, ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
    return { quotes: [], problems: [], feed: { rows: feed.rows, value: state } };
  });
}
