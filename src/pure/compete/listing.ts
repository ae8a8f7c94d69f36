// The monitor's view of us: BestChange's rows for our own ids (`self:`) in each competing direction, compared with
// what ratefile published there (the markup-free export BestChange reads), and how long BestChange took to show
// each new rate. Pure: the feed, the build's published directions, the memory of recent rates and the clock in;
// views, lags measured and the next memory out. docs/compete.md "The monitor's view of you".
import { directionKey, type BestChangeFeed, type CompetitorRow } from '../bestchange/feed.js';
import { Decimal, formatDecimal } from '../../base/decimal.js';
import type { Direction } from '../../model/config.js';
import type { PricedDirection } from '../../model/priced.js';
import { plural } from '../../base/words.js';

/** `same`: listed as published; `lagging`: an earlier published rate; `differs`: a rate, reserve or limit other
 *  than any published; `missing`: published, not listed; `unpublished`: listed while not published. */
export type ListingState = 'same' | 'lagging' | 'differs' | 'missing' | 'unpublished';

export interface ListingValues {
  /** `in:out` (ours) or `give:get` (the feed's row). */
  rate: string;
  reserve: string;
  min?: string;
  max?: string;
}

export interface ListingView {
  /** The direction id, and the city of a cash direction (each city is listed apart). */
  direction: string;
  city?: string;
  source: string;
  state: ListingState;
  published?: ListingValues;
  listed?: ListingValues;
  /** What differs, for people: `rate: listed 1:4940000.5, published 1:4940000.51`. */
  differences: string[];
  /** ISO: since when the listing has not shown what is published now; absent while `same`. */
  since?: string;
  /** The alert starts once `since` is this many seconds old. */
  alertAfterSeconds: number;
  /** The last lag measured: seconds from publishing a rate to the first feed that showed it. */
  lagSeconds?: number;
}

/** One published rate and when it was first published; `seenAt`: the fetch of the first feed that showed it. */
export interface ListingVersion {
  rate: string;
  at: string;
  seenAt?: string;
  /** Recorded with no earlier memory (a first build): it may have been published before, so no lag is measured. */
  unmeasured?: boolean;
}

export interface ListingEntry {
  versions: ListingVersion[];
  /** ISO: when the current `differs`, `missing` or `unpublished` began. */
  since?: string;
  lagSeconds?: number;
}

/** Per listing key (`direction id` or `id@city`). */
export type ListingMemory = Record<string, ListingEntry>;

/**
 * At most this many recent rates are kept per direction, none older than an hour but the newest: the memory is
 * bounded (about 6 KB a direction). A direction on its floor follows the market every build: 64 builds of 5 s still
 * cover five minutes of rates, more than BestChange's usual lag of one or two feeds.
 */
export const MAX_VERSIONS = 64;
const VERSION_MS = 60 * 60_000;

export interface ListingSource {
  name: string;
  selfIds: ReadonlySet<number>;
  alertAfterMs: number;
  /** Relative tolerance for the reserve and the limits (BestChange may round or convert them). */
  amountTolerance: Decimal;
  feed?: BestChangeFeed;
  fetchedAt?: Date;
}

export interface ListingInput {
  sources: readonly ListingSource[];
  /** Competing directions of the config, in order. */
  directions: readonly Direction[];
  /** Directions the compared export publishes, by id. */
  published: ReadonlyMap<string, PricedDirection>;
  memory: Readonly<ListingMemory>;
  now: Date;
}

export interface ListingResult {
  views: ListingView[];
  /** Lags (seconds) measured by this build: one per rate a feed showed for the first time. */
  lags: number[];
  memory: ListingMemory;
}

const ONE = new Decimal(1);
const ZERO = new Decimal(0);

/** One unit of the last digit a decimal text shows: `5044895.52` → 0.01. */
const unitOf = (text: string) => new Decimal(10).pow(-(text.split('.')[1]?.length ?? 0));

/**
 * The listed `give:get` shows the published `in:out` when their ratios agree within the feed's precision: one
 * unit of the last digit on each side the feed writes (a side of exactly 1 is exact), relative to that side.
 */
export function sameRate(give: string, get: string, published: { in: Decimal; out: Decimal }): boolean {
  const [g, G] = [new Decimal(give), new Decimal(get)];
  if (g.isZero() || G.isZero()) return false;
  const tolerance = [g, G]
    .map((side, i) => (side.equals(ONE) ? ZERO : unitOf(i === 0 ? give : get).dividedBy(side)))
    .reduce((a, b) => a.plus(b), ZERO);
  // |G/g − out/in| ≤ tolerance × G/g (relative to what the feed shows), multiplied through by g × in.
  const gap = G.times(published.in).minus(published.out.times(g)).abs();
  return gap.lessThanOrEqualTo(tolerance.times(G).times(published.in));
}

/** An amount as listed against ours: within the relative tolerance, or one unit of the listed text's last digit. */
const sameAmount = (listed: string, ours: Decimal, tolerance: Decimal) =>
  new Decimal(listed)
    .minus(ours)
    .abs()
    .lessThanOrEqualTo(Decimal.max(ours.abs().times(tolerance), unitOf(listed)));

const rateText = (form: { in: Decimal; out: Decimal }) => `${formatDecimal(form.in)}:${formatDecimal(form.out)}`;

/** What the build published for a direction without a markup: the one publication every reader shares. */
function publishedValues(priced: PricedDirection): ListingValues {
  const { rate, limits } = priced.published;
  return {
    rate: rateText(rate.form),
    reserve: formatDecimal(priced.terms.amount),
    ...(limits.min ? { min: formatDecimal(limits.min) } : {}),
    max: formatDecimal(limits.max),
  };
}

const listedValues = (row: CompetitorRow): ListingValues => ({
  rate: `${row.give}:${row.get}`,
  reserve: row.reserve,
  ...(row.min !== undefined && row.min !== '0' ? { min: row.min } : {}),
  ...(row.max !== undefined && row.max !== '0' ? { max: row.max } : {}),
});

/** Every competing direction of every source with `self:`, per city, compared; the memory of rates updated. */
export function compareListings(input: ListingInput): ListingResult {
  const { now } = input;
  const at = now.toISOString();
  const views: ListingView[] = [];
  const lags: number[] = [];
  const memory: ListingMemory = {};
  for (const source of input.sources) {
    // No feed: nothing is known of the listing; the memory of rates is kept for the next feed.
    const { feed, fetchedAt } = source;
    for (const direction of input.directions) {
      if (direction.compete?.source !== source.name) continue;
      const cities = direction.cities.length > 0 && feed?.layout !== 8 ? direction.cities : [undefined];
      for (const city of cities) {
        const key = city === undefined ? direction.id : `${direction.id}@${city}`;
        const known = Object.hasOwn(input.memory, key) ? input.memory[key] : undefined;
        const entry: ListingEntry = known
          ? { ...known, versions: known.versions.map((v) => ({ ...v })) }
          : { versions: [] };
        const priced = input.published.get(direction.id);
        const ours = priced ? publishedValues(priced) : undefined;
        if (ours && entry.versions.at(-1)?.rate !== ours.rate)
          entry.versions.push({ rate: ours.rate, at, ...(known ? {} : { unmeasured: true }) });
        trim(entry, now);
        memory[key] = entry;
        if (!feed) continue;
        const row = (feed.directions.get(directionKey(direction.from.code, direction.to.code, city)) ?? []).find((r) =>
          source.selfIds.has(r.exchangerId),
        );
        const view = compareOne(entry, ours, row, source, fetchedAt, now, lags);
        if (!view) continue;
        views.push({
          direction: direction.id,
          ...(city === undefined ? {} : { city }),
          source: source.name,
          ...view,
          alertAfterSeconds: Math.round(source.alertAfterMs / 1000),
          ...(entry.lagSeconds === undefined ? {} : { lagSeconds: entry.lagSeconds }),
        });
      }
    }
  }
  return { views, lags, memory };
}

type Compared = Pick<ListingView, 'state' | 'published' | 'listed' | 'differences' | 'since'>;

function compareOne(
  entry: ListingEntry,
  ours: ListingValues | undefined,
  row: CompetitorRow | undefined,
  source: ListingSource,
  fetchedAt: Date | undefined,
  now: Date,
  lags: number[],
): Compared | undefined {
  const listed = row ? listedValues(row) : undefined;
  const values: Pick<ListingView, 'published' | 'listed'> = {
    ...(ours ? { published: ours } : {}),
    ...(listed ? { listed } : {}),
  };
  const lasting = (state: ListingState, differences: string[]): Compared => {
    entry.since ??= now.toISOString();
    return { state, ...values, differences, since: entry.since };
  };
  if (!ours && !row) {
    delete entry.since;
    return undefined;
  }
  if (!ours) return lasting('unpublished', ['listed while not published']);
  if (!row || !listed) return lasting('missing', ['published, not listed']);
  const fetched = fetchedAt?.getTime() ?? now.getTime();
  const matched = shownVersion(entry, row, fetched);
  noteSeen(entry, matched, fetched, lags);
  if (matched === -1) {
    const earlier = entry.versions.length - 1;
    const none = earlier === 0 ? 'no earlier rate' : `nor any of the ${plural(earlier, 'earlier rate')}`;
    return lasting('differs', [`rate: listed ${listed.rate}, published ${ours.rate} (${none} of the last hour)`]);
  }
  if (matched < entry.versions.length - 1) {
    delete entry.since;
    // Out of date since the rate it shows was replaced.
    const replaced = entry.versions[matched + 1]!.at;
    return {
      state: 'lagging',
      ...values,
      differences: [`rate: listed ${listed.rate}, published ${ours.rate}`],
      since: replaced,
    };
  }
  const differences = amountDifferences(listed, ours, source.amountTolerance);
  if (differences.length > 0) return lasting('differs', differences);
  delete entry.since;
  return { state: 'same', ...values, differences };
}

/** The newest published rate the feed could show (published before it was fetched) that it shows; -1 when none. */
function shownVersion(entry: ListingEntry, row: CompetitorRow, fetched: number): number {
  for (let i = entry.versions.length - 1; i >= 0; i--) {
    const version = entry.versions[i]!;
    if (!version.unmeasured && Date.parse(version.at) > fetched) continue;
    const [inText = '', outText = ''] = version.rate.split(':');
    if (sameRate(row.give, row.get, { in: new Decimal(inText), out: new Decimal(outText) })) return i;
  }
  return -1;
}

/** The first feed that shows a version: when, and (for a measured one) how long the listing took. */
function noteSeen(entry: ListingEntry, matched: number, fetched: number, lags: number[]): void {
  const version = entry.versions[matched];
  if (!version || version.seenAt) return;
  version.seenAt = new Date(fetched).toISOString();
  if (!version.unmeasured) {
    const lag = Math.max(0, Math.round((fetched - Date.parse(version.at)) / 1000));
    entry.lagSeconds = lag;
    lags.push(lag);
  }
}

/** The listed reserve and limits that differ from ours by more than the tolerance. */
function amountDifferences(listed: ListingValues, ours: ListingValues, tolerance: Decimal): string[] {
  const differences: string[] = [];
  const amounts = [
    ['reserve', listed.reserve, ours.reserve],
    ['min', listed.min, ours.min],
    ['max', listed.max, ours.max],
  ] as const;
  for (const [what, shown, mine] of amounts) {
    // A limit the listing does not carry (an 8-field feed, 0) or we do not publish is not compared.
    if (shown === undefined || mine === undefined) continue;
    if (!sameAmount(shown, new Decimal(mine), tolerance))
      differences.push(`${what}: listed ${shown}, published ${mine}`);
  }
  return differences;
}

/** At most MAX_VERSIONS, none older than an hour but the newest (a lag longer than that is a `differs`). */
function trim(entry: ListingEntry, now: Date): void {
  const cut = now.getTime() - VERSION_MS;
  const kept = entry.versions.filter((v, i) => i === entry.versions.length - 1 || Date.parse(v.at) >= cut);
  entry.versions = kept.slice(-MAX_VERSIONS);
}
