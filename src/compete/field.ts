// The field of a competing direction: the feed's rows for its codes (and city), each exchanger once, ranked best
// first; which of them count (ignore, minReserve); the competitor at the place and the published step that
// beats it; the median of the top five; and the place a published rate gets. Pure.
import { competitors, type BestChangeFeed, type RankedCompetitor } from '../bestchange/feed.js';
import { Decimal, formatDecimal } from '../decimal.js';
import type { PricedDirection, PublishedRate } from '../pricing.js';
import type { CompeteRule } from './config.js';
import { atOrBelow, compareToRow, stepUp } from './grid.js';

const ONE = new Decimal(1);
/** Rates and percentages as reasons word them. */
export const show = (value: Decimal) => formatDecimal(value.toSignificantDigits(10));
export const percent = (fraction: Decimal) => `${formatDecimal(fraction.times(100))}%`;

/** One row of the field: counted, or why not. */
export interface FieldEntry extends RankedCompetitor {
  excluded?: 'ignored' | 'reserve below minReserve';
}

/** The field of one city (or of a direction without cities) and where the chosen rate stands in it. */
export interface CityField {
  city?: string;
  /** Every row, best for the client first; ties keep the feed's order. */
  entries: FieldEntry[];
  counted: RankedCompetitor[];
  /** Median rate of the top five counted. */
  median?: Decimal;
  /** The counted competitor at the held place, the target (its rate improved by `step`), and the target rounded against the client (one step up if that ties or trails the competitor). */
  rival?: RankedCompetitor;
  target?: Decimal;
  needed?: PublishedRate;
  /** The place the published rate gets here: behind every competitor giving as much or more. */
  place: number;
}

/** 1 + the counted competitors giving the client as much as the form or more (a tie ranks us behind). */
export const placeOf = (form: PublishedRate, counted: readonly RankedCompetitor[]) => 1 + counted.filter(({ row }) => compareToRow(form, row) <= 0).length;

function median(values: readonly Decimal[]): Decimal | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a.comparedTo(b));
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : sorted[middle - 1]!.plus(sorted[middle]!).div(2);
}

/** Ranked rows per feed and direction key: the service keeps a feed for its refresh interval, so a field is ranked once per fetch, not per build. */
const rankings = new WeakMap<BestChangeFeed, Map<string, RankedCompetitor[]>>();

function ranking(feed: BestChangeFeed, from: string, to: string, city: string | undefined): RankedCompetitor[] {
  let byKey = rankings.get(feed);
  if (!byKey) rankings.set(feed, (byKey = new Map()));
  const key = `${from}>${to}@${city ?? ''}`;
  let ranked = byKey.get(key);
  if (!ranked) {
    // The 8-field layout has no cities: a cash direction's rows repeat once per city of the exchanger; the
    // place counts exchangers, so each is counted once, at its best row.
    const seen = new Set<number>();
    ranked = competitors(feed, from, to, city).filter(({ row }) => !seen.has(row.exchangerId) && seen.add(row.exchangerId));
    byKey.set(key, ranked);
  }
  return ranked;
}

export function fieldOf(feed: BestChangeFeed, priced: PricedDirection, rule: CompeteRule, minReserve: Decimal | undefined, city: string | undefined): CityField {
  const { from, to } = priced.direction;
  const ranked = ranking(feed, from.code, to.code, city);
  const entries: FieldEntry[] = ranked.map((entry) => {
    const { row } = entry;
    if (rule.ignoreIds.has(row.exchangerId) || rule.ignoreNames.has(row.exchanger.toLowerCase())) return { ...entry, excluded: 'ignored' };
    if (minReserve && new Decimal(row.reserve).lessThan(minReserve)) return { ...entry, excluded: 'reserve below minReserve' };
    return entry;
  });
  const counted = entries.filter((entry) => entry.excluded === undefined).map(({ row, rate }) => ({ row, rate }));
  const top = median(counted.slice(0, 5).map((entry) => entry.rate));
  const field: CityField = { ...(city === undefined ? {} : { city }), entries, counted, ...(top ? { median: top } : {}), place: 0 };
  const rival = counted[rule.worst - 1];
  if (rival) {
    const target = rival.rate.times(ONE.plus(rule.step));
    // Rounded against the client as usual; when that loses the place (a tie ranks behind), one step up.
    let needed = atOrBelow(target, from, to);
    while (compareToRow(needed, rival.row) <= 0) needed = stepUp(needed, from, to);
    Object.assign(field, { rival, target, needed });
  }
  return field;
}

/** Why the field is not trusted for this direction, or undefined. */
export function distrust(fields: readonly CityField[], market: Decimal, rule: CompeteRule): string | undefined {
  for (const field of fields) {
    if (!field.median) continue;
    const off = field.median.minus(market).abs().div(market);
    if (off.greaterThan(rule.deviation)) {
      const where = field.city === undefined ? '' : ` in ${field.city}`;
      return `the median of the top ${Math.min(5, field.counted.length)} competitors${where}, ${show(field.median)}, is ${formatDecimal(off.times(100).toDecimalPlaces(2))}% from the market ${show(market)} (limit ${percent(rule.deviation)})`;
    }
  }
  return undefined;
}
