// The field of a competing direction: the feed's rows for its codes (and city), each exchanger once, ranked best
// first; which of them count (ignore, minReserve); the competitor at the place and the published step that
// beats it; the median of the top five; and the place a published rate gets. Pure. What depends only on the
// feed and the config (`FieldCore`) is made once per feed (see standing.ts); the place is found per build.
import { competitors, type BestChangeFeed, type RankedCompetitor } from '../bestchange/feed.js';
import { Decimal, formatDecimal } from '../../base/decimal.js';
import type { CompeteRule, Currency } from '../../model/config.js';
import { percent, show } from '../../base/words.js';
import { atOrBelow, beyond, compareForms, compareToRow } from './grid.js';
import type { PublishedRate } from '../../model/priced.js';

const ONE = new Decimal(1);

/** One row of the field: counted, or why not. */
export interface FieldEntry extends RankedCompetitor {
  excluded?: 'ignored' | 'reserve below minReserve' | 'our own listing (self)';
}

/** The field of one city (or of a direction without cities) and where the chosen rate stands in it. */
export interface CityField {
  city?: string;
  /** Every row, best for the client first; ties keep the feed's order. Shared by every build of one feed: read only. */
  entries: readonly FieldEntry[];
  counted: readonly RankedCompetitor[];
  /** Median rate of the top five counted. */
  median?: Decimal;
  /** The counted competitor at the held place, the target (its rate improved by `step`), and the target rounded against the client (one step up if that ties or trails the competitor). */
  rival?: RankedCompetitor;
  target?: Decimal;
  needed?: PublishedRate;
  /** Instead of `needed`: why no published step beats the rival (absurd rates in the feed); the direction falls back. */
  unbeatable?: string;
  /** The place the published rate gets here: behind every competitor giving as much or more. */
  place: number;
}

/** A city's field without its place: everything here depends on the feed and the config only. */
export interface FieldCore extends Omit<CityField, 'place'> {
  /**
   * get ÷ give of `counted` as doubles, in its order, read once per feed for the quick comparison: a plain array of
   * doubles, not a Decimal pair per row, since the exact comparison (`compareToRow`, from the row's text) is needed
   * only for a row within `SLACK` of a published rate.
   */
  approx: Float64Array;
  /** The median as a double, for the quick deviation test. */
  medianApprox?: number;
}

/**
 * Doubles decide a comparison only when they are further apart than this (relative): a double read of a decimal
 * is within 1.2e-16 of it, a quotient adds as much, and Decimal's products are rounded at 40 digits, so
 * anything closer goes to the exact comparison and the answer is always the exact one.
 */
const SLACK = 1e-9;

/** A published form as a double (what the client gets per unit given). */
export const approxOf = (form: PublishedRate): number =>
  form.in.equals(ONE) ? form.out.toNumber() : form.out.toNumber() / form.in.toNumber();

/** compareForms, with doubles answering when the two are clearly apart. */
export function compareQuick(a: PublishedRate, aApprox: number, b: PublishedRate, bApprox: number): number {
  if (aApprox > 0 && bApprox > 0 && Number.isFinite(aApprox) && Number.isFinite(bApprox)) {
    if (aApprox > bApprox * (1 + SLACK)) return 1;
    if (aApprox < bApprox * (1 - SLACK)) return -1;
  }
  return compareForms(a, b);
}

/** 1 + the counted competitors giving the client as much as the form or more (a tie ranks us behind). The plain reading: the reference of `placeIn`. */
export const placeOf = (form: PublishedRate, counted: readonly RankedCompetitor[]) =>
  1 + counted.filter(({ row }) => compareToRow(form, row) <= 0).length;

/** `placeOf` on a core: doubles settle the rows clearly apart from the form, exact products the rest. */
export function placeIn(core: FieldCore, form: PublishedRate, formApprox: number): number {
  const quick = Number.isFinite(formApprox) && formApprox > 0;
  const above = formApprox * (1 + SLACK);
  const below = formApprox * (1 - SLACK);
  const { approx, counted } = core;
  let place = 1;
  for (let i = 0; i < approx.length; i++) {
    if (quick && approx[i]! > above) place++;
    else if (quick && approx[i]! < below) continue;
    else if (compareToRow(form, counted[i]!.row) <= 0) place++;
  }
  return place;
}

function median(values: readonly Decimal[]): Decimal | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a.comparedTo(b));
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : sorted[middle - 1]!.plus(sorted[middle]!).div(2);
}

interface Ranking {
  ranked: RankedCompetitor[];
  /** get ÷ give of each row of `ranked` as a double. */
  approx: Float64Array;
}

/** Ranked rows per feed and direction key: the service keeps a feed for its refresh interval, so a field is ranked once per fetch, not per build. */
const rankings = new WeakMap<BestChangeFeed, Map<string, Ranking>>();

function ranking(feed: BestChangeFeed, from: string, to: string, city: string | undefined): Ranking {
  let byKey = rankings.get(feed);
  if (!byKey) rankings.set(feed, (byKey = new Map()));
  const key = `${from}>${to}@${city ?? ''}`;
  let known = byKey.get(key);
  if (!known) {
    // The 8-field layout has no cities: a cash direction's rows repeat once per city of the exchanger; the
    // place counts exchangers, so each is counted once, at its best row.
    const seen = new Set<number>();
    const ranked = competitors(feed, from, to, city).filter(
      ({ row }) => !seen.has(row.exchangerId) && seen.add(row.exchangerId),
    );
    known = { ranked, approx: Float64Array.from(ranked, ({ row }) => Number(row.get) / Number(row.give)) };
    byKey.set(key, known);
  }
  return known;
}

/** The field of one city before any build's place: rows, who counts, the median, the rival and the step that beats it. */
export function fieldCore(
  feed: BestChangeFeed,
  from: Currency,
  to: Currency,
  rule: CompeteRule,
  minReserve: Decimal | undefined,
  city: string | undefined,
): FieldCore {
  const { ranked, approx: all } = ranking(feed, from.code, to.code, city);
  const entries: FieldEntry[] = [];
  const counted: RankedCompetitor[] = [];
  const approx: number[] = [];
  ranked.forEach((entry, i) => {
    const { row } = entry;
    if (rule.selfIds?.has(row.exchangerId)) entries.push({ ...entry, excluded: 'our own listing (self)' });
    else if (rule.ignoreIds.has(row.exchangerId) || rule.ignoreNames.has(row.exchanger.toLowerCase()))
      entries.push({ ...entry, excluded: 'ignored' });
    else if (minReserve && new Decimal(row.reserve).lessThan(minReserve))
      entries.push({ ...entry, excluded: 'reserve below minReserve' });
    else {
      entries.push(entry);
      counted.push(entry);
      approx.push(all[i]!);
    }
  });
  // Every row counted (the usual case): the ranking's own arrays, read only, serve as they are.
  const whole = counted.length === ranked.length;
  const top = median(counted.slice(0, 5).map((entry) => entry.rate));
  const core: FieldCore = {
    ...(city === undefined ? {} : { city }),
    entries: whole ? ranked : entries,
    counted: whole ? ranked : counted,
    ...(top ? { median: top, medianApprox: top.toNumber() } : {}),
    approx: whole ? all : Float64Array.from(approx),
  };
  const rival = counted[rule.worst - 1];
  if (rival) {
    const target = rival.rate.times(ONE.plus(rule.step));
    // Rounded against the client as usual; when that loses the place (a tie ranks behind), one step up.
    const needed = beyond(atOrBelow(target, from, to), rival.row, from, to);
    Object.assign(
      core,
      'unbeatable' in needed ? { rival, target, unbeatable: needed.unbeatable } : { rival, target, needed },
    );
  }
  return core;
}

/** The field as a build reports it: the core (shared, read only) and this build's place. Built by assignment, not spreads: it is made per field per build. */
export function cityField(core: FieldCore, place: number): CityField {
  const field: CityField = { entries: core.entries, counted: core.counted, place };
  if (core.city !== undefined) field.city = core.city;
  if (core.median) field.median = core.median;
  if (core.rival && core.target && core.needed) {
    field.rival = core.rival;
    field.target = core.target;
    field.needed = core.needed;
  } else if (core.rival && core.target && core.unbeatable !== undefined) {
    field.rival = core.rival;
    field.target = core.target;
    field.unbeatable = core.unbeatable;
  }
  return field;
}

/** How far the median is from the market, relative: exact. */
const offOf = (median: Decimal, market: Decimal) => median.minus(market).abs().div(market);

/** rule.deviation as a double, per rule (an immutable config object; WeakMap: a reloaded config frees its rules). */
const deviations = new WeakMap<CompeteRule, number>();

/** Why the field is not trusted for this direction, or undefined. `marketApprox`: the market as a double. */
export function distrust(
  fields: readonly FieldCore[],
  market: Decimal,
  marketApprox: number,
  rule: CompeteRule,
): string | undefined {
  let limit = deviations.get(rule);
  if (limit === undefined) deviations.set(rule, (limit = rule.deviation.toNumber()));
  for (const field of fields) {
    if (!field.median) continue;
    // Doubles answer when clearly inside the limit; at the limit, or beyond it (the reason needs the figure), Decimal.
    const quick = Math.abs((field.medianApprox ?? Number.NaN) - marketApprox) / marketApprox;
    if (Number.isFinite(quick) && Number.isFinite(limit) && quick < limit - SLACK * (1 + quick + limit)) continue;
    const off = offOf(field.median, market);
    if (off.greaterThan(rule.deviation)) {
      const where = field.city === undefined ? '' : ` in ${field.city}`;
      return `the median of the top ${Math.min(5, field.counted.length)} competitors${where}, ${show(field.median)}, is ${formatDecimal(off.times(100).toDecimalPlaces(2))}% from the market ${show(market)} (limit ${percent(rule.deviation)})`;
    }
  }
  return undefined;
}
