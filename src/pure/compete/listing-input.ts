// What the monitor's-view check (listing.ts) compares, taken from the config and a build: the bestchange sources
// with `self:`, their feeds in use, and the directions the markup-free export publishes. Pure.
import { Decimal } from '../../base/decimal.js';
import type { Config } from '../../model/config.js';
import type { PricedDirection } from '../../model/priced.js';
import type { DirectionTally } from '../status/report.js';
import { compareListings, type ListingMemory, type ListingResult, type ListingSource } from './listing.js';
import type { FeedState } from './price.js';

interface ListingOptions {
  alertAfter?: number;
  tolerance?: string;
}

/**
 * The export BestChange reads is the one without a markup (`parserfile.xml` in the shipped configs): the first
 * such export is compared. With none, or no source with `self:`, nothing is compared (undefined).
 */
export function listingOf(
  config: Pick<Config, 'sources' | 'directions' | 'exports'>,
  feeds: ReadonlyMap<string, FeedState>,
  tally: DirectionTally,
  memory: Readonly<ListingMemory>,
  now: Date,
): ListingResult | undefined {
  const sources: ListingSource[] = [];
  for (const source of config.sources) {
    if (source.type !== 'bestchange') continue;
    const self = source.options.self;
    const ids = (Array.isArray(self) ? self : [self]).filter((id): id is number => typeof id === 'number');
    if (ids.length === 0) continue;
    const options = (source.options.listing ?? {}) as ListingOptions;
    const state = feeds.get(source.name);
    sources.push({
      name: source.name,
      selfIds: new Set(ids),
      alertAfterMs: options.alertAfter ?? 600_000,
      amountTolerance:
        options.tolerance === undefined
          ? new Decimal('0.01')
          : new Decimal(options.tolerance.replace('%', '').trim()).dividedBy(100),
      ...(state?.feed ? { feed: state.feed } : {}),
      ...(state?.fetchedAt ? { fetchedAt: state.fetchedAt } : {}),
    });
  }
  const primary = config.exports.find((template) => template.markup.isZero());
  if (sources.length === 0 || !primary) return undefined;
  const leftOut = new Set(tally.leftOut.filter((o) => o.files.includes(primary.file)).map((o) => o.direction.id));
  const published = new Map<string, PricedDirection>();
  for (const priced of tally.published)
    if (!leftOut.has(priced.direction.id)) published.set(priced.direction.id, priced);
  return compareListings({
    sources,
    directions: config.directions.filter((d) => d.compete),
    published,
    memory,
    now,
  });
}
