// The reference BestChange's field gives a direction: the median of the best rivals' rates. Rivals add their margins
// (their rates are below the market by 0.5–5% as a rule), so it is held to a wider band than other sources' quotes;
// the median of the best few stands for the market even when one rival quotes absurdly. Pure.
import { compact, Decimal } from '../../base/decimal.js';
import type { Direction } from '../../model/config.js';
import { type BestChangeFeed, type CompetitorRow, directionKey } from '../bestchange/feed.js';
import type { FeedState } from '../compete/contest.js';
import { median } from '../rates/consensus.js';

/** A bestchange source as the reference reads it: the feed the build used, and our own BestChange ids (`self:`). */
export interface RivalFeed {
  name: string;
  state: FeedState;
  self: ReadonlySet<number>;
}

/** Fewer rivals than this tell nothing reliable: no reference. */
export const minRivals = 3;

export interface RivalsReference {
  value: Decimal;
  from: string;
}

/** A feed that is no reference: none, failing, or past its maxAge. */
function unusable(state: FeedState): boolean {
  if (!state.feed || state.error !== undefined) return true;
  return state.ageSeconds !== undefined && state.maxAgeSeconds !== undefined && state.ageSeconds > state.maxAgeSeconds;
}

/**
 * Per feed (kept for its refresh interval, so across builds) and direction key: the medians found. Only the best
 * few rows need a Decimal: the rest are ranked by doubles, and the median is exact.
 */
const medians = new WeakMap<BestChangeFeed, Map<string, RivalsReference | undefined>>();

/** Per feed and direction object (both outlive builds; a reload makes new ones): the median found, or none (null). */
const byDirection = new WeakMap<BestChangeFeed, WeakMap<Direction, RivalsReference | null>>();

/**
 * The best `size` rivals, each at its best row, kept as rows are offered: a field of hundreds of rows costs one pass,
 * no sort of them all. A rival already in is raised to a better row of its own; a new one displaces the worst.
 */
class Top {
  readonly rows: CompetitorRow[] = [];
  private readonly approx: number[] = [];

  constructor(private readonly size: number) {}

  offer(row: CompetitorRow): void {
    const approx = Number(row.get) / Number(row.give);
    if (!(approx > 0 && Number.isFinite(approx))) return;
    const at = this.rows.findIndex((kept) => kept.exchangerId === row.exchangerId);
    if (at !== -1) {
      if (approx <= this.approx[at]!) return;
      this.rows.splice(at, 1);
      this.approx.splice(at, 1);
    } else if (this.rows.length === this.size) {
      if (approx <= this.approx[this.size - 1]!) return;
      this.rows.pop();
      this.approx.pop();
    }
    // Best first: ties keep the feed's order.
    let place = this.approx.length;
    while (place > 0 && this.approx[place - 1]! < approx) place--;
    this.rows.splice(place, 0, row);
    this.approx.splice(place, 0, approx);
  }

  /**
   * The median rate, exact: the middle row (or the mean of the two middle ones) as Decimal. Rows the doubles cannot
   * order are within 1e-15 of each other, so whichever is taken as the middle changes nothing a band could see.
   */
  median(): Decimal {
    const rate = (row: CompetitorRow) => new Decimal(row.get).div(row.give);
    const middle = Math.floor(this.rows.length / 2);
    return this.rows.length % 2 === 1
      ? rate(this.rows[middle]!)
      : median([rate(this.rows[middle - 1]!), rate(this.rows[middle]!)]);
  }
}

/** The reference of each direction from the feeds: a competing direction's own feed first, then each in config order. */
export class RivalReferences {
  private readonly usable: RivalFeed[];
  private readonly selfKeys: Map<RivalFeed, string>;

  constructor(
    feeds: readonly RivalFeed[],
    /** How many of the best rivals the median is taken of. */
    private readonly count: number,
  ) {
    this.usable = feeds.filter((feed) => !unusable(feed.state));
    this.selfKeys = new Map(this.usable.map((feed) => [feed, [...feed.self].join(',')]));
  }

  of(direction: Direction): RivalsReference | undefined {
    const own = direction.compete?.source;
    const ordered =
      own === undefined
        ? this.usable
        : [...this.usable.filter((feed) => feed.name === own), ...this.usable.filter((feed) => feed.name !== own)];
    for (const feed of ordered) {
      const parsed = feed.state.feed!;
      let known = byDirection.get(parsed);
      if (!known) byDirection.set(parsed, (known = new WeakMap()));
      let found = known.get(direction);
      if (found === undefined) known.set(direction, (found = this.fromFeed(feed, parsed, direction) ?? null));
      if (found) return found;
    }
    return undefined;
  }

  /** Each rival once at its best rate over the direction's cities, ours and the ignored left out; the top ones' median. */
  private fromFeed(feed: RivalFeed, parsed: BestChangeFeed, direction: Direction): RivalsReference | undefined {
    const { from, to, cities, compete } = direction;
    const rule = compete?.source === feed.name ? compete : undefined;
    const key = `${from.code}>${to.code}@${cities.length === 0 ? '' : cities.join(',')}|${this.count}|${rule ? direction.id : ''}|${this.selfKeys.get(feed)}`;
    let byKey = medians.get(parsed);
    if (!byKey) medians.set(parsed, (byKey = new Map()));
    if (byKey.has(key)) return byKey.get(key);
    const top = new Top(this.count);
    for (const city of cities.length === 0 ? [undefined] : cities)
      for (const row of parsed.directions.get(directionKey(from.code, to.code, city)) ?? []) {
        const id = row.exchangerId;
        if (feed.self.has(id) || rule?.selfIds?.has(id) || rule?.ignoreIds.has(id)) continue;
        if (rule?.ignoreNames.has(row.exchanger.toLowerCase())) continue;
        top.offer(row);
      }
    const best = top.rows;
    const found =
      best.length < Math.min(minRivals, this.count)
        ? undefined
        : {
            value: compact(top.median()),
            from: `BestChange rivals on ${feed.name} (median of the best ${best.length})`,
          };
    byKey.set(key, found);
    return found;
  }
}
