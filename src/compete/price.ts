// competeDirections: the rate of each direction with a `compete:` block, from BestChange's field. Pure: the
// priced directions, the feeds (with their ages) and the quote book in; rates, places and the why out.
// The published rate is the least generous step that still holds the place, clamped between the ceiling
// and the floor; when the field is not trusted (no feed, too old, too far from the market) the normal margin.
import type { BestChangeFeed } from '../bestchange/feed.js';
import { Decimal, formatDecimal } from '../decimal.js';
import { findChain } from '../pricing/chains.js';
import { convertAlong } from '../pricing/convert.js';
import { publicationAt } from '../pricing/published.js';
import { compareForms, rateFor, sayForm, sayRate } from './grid.js';
import { type Cap, cappedNeed, capReason } from './cap.js';
import { keepUnpriced, warAfter, warBefore, warReason, type WarBefore, type WarEntry, type WarMemory } from './war.js';
import { boundsOf } from './bounds.js';
import { approxOf, cityField, compareQuick, distrust, placeIn, type CityField } from './field.js';
import { directionName, percent, plural } from '../words.js';
import { standingOf, type Need } from './standing.js';
import { type OwnFees, rankForm, rankrateOf, rankStanding, rankTerms, rankView } from './rankrate.js';
import type { QuoteBook } from '../sources/source.js';
import type { CompeteRule } from '../model.js';
import type { CompeteOutcome, CompeteWar, PricedDirection, PublishedRate, WithheldDirection } from '../priced.js';

export type { CityField, FieldEntry } from './field.js';

/** A bestchange source as the build saw it. */
export interface FeedState {
  /** The parsed feed in use (fresh, or the last good one standing in); absent when there is none. */
  feed?: BestChangeFeed;
  /** Seconds since the feed in use was fetched, and when (the war detection reads answers by it). */
  ageSeconds?: number;
  fetchedAt?: Date;
  /** The source's maxAge in seconds; absent: no limit. */
  maxAgeSeconds?: number;
  /** Why the source failed this build. */
  error?: string;
  /** The feed is another source's standing in (a v2 source's `fallback`): which, and why. */
  standIn?: string;
}

/** Everything `explain` shows of one competing direction. */
export interface CompeteDetail {
  rule: CompeteRule;
  market: Decimal;
  /** The normal margin's rate, used when the field is not trusted. */
  marginRate: Decimal;
  floorRate: Decimal;
  ceilingRate: Decimal;
  /** The published steps next to the floor (at or below it) and the ceiling (at or above it). */
  floorForm: PublishedRate;
  ceilingForm: PublishedRate;
  /** minReserve in the to currency. */
  minReserve?: Decimal;
  fields: CityField[];
  chosen: PublishedRate;
  outcome: CompeteOutcome;
  /** The direction as the compete step priced it, before the guards (so `explain` can show a held-back one). */
  priced?: PricedDirection;
  /** Ranked by rankrate (API v2; `fields` then hold rows by rankrate); absent: by the bare rate. */
  order?: 'rankrate';
  /** Our rankrate (give form) at the chosen rate, with our fees at $300, and those $300 in the from asset. */
  rankrate?: Decimal;
  referenceAmount?: Decimal;
  /** By rankrate: our fees as the rankrate counts them (so `explain` can say what they cost at a rate). */
  fees?: OwnFees;
  /** The feed is another source's standing in: which, and why. */
  standIn?: string;
  /** The caps that bound the rate (one per city whose need went past its cap). */
  caps?: Cap[];
  /** A war held out, and the rate held. */
  war?: CompeteWar;
  hold?: PublishedRate;
  /** The war memory of the direction once this build's feed was read (before this build's move). */
  warEntry?: WarEntry;
}

/** minReserve in the to currency, or why it cannot be had. */
function minReserveIn(rule: CompeteRule, priced: PricedDirection, book: QuoteBook): Decimal | string | undefined {
  const { minReserve } = rule;
  const to = priced.direction.to.asset;
  if (!minReserve || minReserve.asset === to) return minReserve?.value;
  const chain = findChain(book, minReserve.asset, to);
  const converted = chain ? convertAlong(book, chain, minReserve.asset) : undefined;
  if (!converted || 'missing' in converted)
    return `cannot convert minReserve ${formatDecimal(minReserve.value)} ${minReserve.asset} to ${to}: no quotes`;
  return minReserve.value.times(converted.factor);
}

export interface CompeteInput {
  priced: readonly PricedDirection[];
  book: QuoteBook;
  /** bestchange sources by name. */
  feeds: ReadonlyMap<string, FeedState>;
  /** The build's clock and the war memory of the last build; without a clock, no war detection. */
  now?: Date;
  memory?: Readonly<WarMemory>;
}

export interface CompeteResult {
  priced: PricedDirection[];
  /** Directions whose limits fail at the compete rate. */
  withheld: WithheldDirection[];
  /** By direction id. */
  details: Map<string, CompeteDetail>;
  /** The war memory for the next build: directions with war detection on. */
  memory: WarMemory;
}

export function competeDirections(input: CompeteInput): CompeteResult {
  const priced: PricedDirection[] = [];
  const withheld: WithheldDirection[] = [];
  const details = new Map<string, CompeteDetail>();
  const memory: WarMemory = {};
  const { now } = input;
  for (const p of input.priced) {
    const rule = p.direction.compete;
    if (!rule) {
      priced.push(p);
      continue;
    }
    const { id } = p.direction;
    const known = input.memory && Object.hasOwn(input.memory, id) ? input.memory[id] : undefined;
    const war = rule.war && now ? { now, ...(known ? { entry: known } : {}) } : undefined;
    const result = competeDirection(p, rule, input.feeds.get(rule.source) ?? {}, input.book, war);
    details.set(id, result.detail);
    if ('reason' in result.priced) withheld.push(result.priced);
    else priced.push(result.priced);
    if (war) {
      const { outcome, warEntry, chosen, fields } = result.detail;
      // At the normal margin the field is unused: the memory stays as it was.
      const entry =
        outcome.basis === 'fallback' ? (warEntry ?? known) : warAfter(warEntry, chosen, outcome.basis, fields, war.now);
      if (entry) memory[id] = entry;
    }
  }
  return { priced, withheld, details, memory: keepUnpriced(memory, input.memory, details) };
}

/** One direction against its field. */
export function competeDirection(
  priced: PricedDirection,
  rule: CompeteRule,
  state: FeedState,
  book: QuoteBook,
  war?: { now: Date; entry?: WarEntry },
): { priced: PricedDirection | WithheldDirection; detail: CompeteDetail } {
  const { direction, market } = priced;
  const { from, to } = direction;
  const codes = { from: from.code, to: to.code };
  const bounds = boundsOf(market, rule, from, to);
  const { floorRate, ceilingRate, floorForm, ceilingForm } = bounds;
  const reserve = minReserveIn(rule, priced, book);
  // API v2: ranked by rankrate, ours made with our fees at $300 (rankrate.ts); info.zip: by the bare rate.
  const terms = state.feed?.order === 'rankrate' ? rankTerms(direction, book) : undefined;
  const ranked = terms !== undefined && typeof terms !== 'string' ? terms : undefined;
  const feed = state.feed && ranked ? rankView(state.feed) : state.feed;
  const bare =
    feed && typeof reserve !== 'string' && typeof terms !== 'string'
      ? standingOf(feed, from, to, direction.cities, rule, reserve)
      : undefined;
  const standing = bare && ranked ? rankStanding(bare, ranked, rule, from, to) : bare;
  const cores = standing?.cores ?? [];
  /** Read once the field is trusted: the memory after this feed, and a war's hold. */
  let read: WarBefore | undefined;
  /** The caps that bound the need, once it is known. */
  let caps: Cap[] | undefined;

  /** The chosen step (and its rate when known) with why: places counted per city, what it publishes. */
  const settle = (
    chosen: PublishedRate,
    chosenApprox: number | undefined,
    basis: CompeteOutcome['basis'],
    reason: string | undefined,
    need?: Need,
  ) => {
    // By rankrate, the place is our rankrate's among theirs (fees taking everything: behind every row).
    const own = ranked ? rankrateOf(chosen, ranked.fees, ranked.amount) : undefined;
    const placed = ranked ? rankForm(own ?? new Decimal('1e100')) : chosen;
    const approx = cores.length === 0 ? 0 : ranked ? approxOf(placed) : (chosenApprox ?? approxOf(chosen));
    const fields = cores.map((core) => cityField(core, placeIn(core, placed, approx)));
    // The worst city decides the place reported (a cash direction publishes one rate in every city).
    const decisive = fields.reduce<CityField | undefined>(
      (worst, field) => (!worst || field.place > worst.place ? field : worst),
      undefined,
    );
    // Assignments, not spreads of optional parts: these are made per competing direction per build.
    const outcome: CompeteOutcome = {
      target: rule.target,
      place: decisive?.place ?? 0,
      competitors: decisive?.counted.length ?? 0,
      basis,
    };
    if (reason !== undefined) outcome.reason = reason;
    if (state.ageSeconds !== undefined) outcome.feedAgeSeconds = state.ageSeconds;
    if (read?.war && basis !== 'fallback') outcome.war = read.war;
    const detail: CompeteDetail = {
      rule,
      market,
      marginRate: priced.rate,
      floorRate,
      ceilingRate,
      floorForm,
      ceilingForm,
      fields,
      chosen,
      outcome,
    };
    if (typeof reserve !== 'string' && reserve !== undefined) detail.minReserve = reserve;
    if (state.feed?.order === 'rankrate') detail.order = 'rankrate';
    if (own) detail.rankrate = own;
    if (ranked) {
      detail.referenceAmount = ranked.amount;
      detail.fees = ranked.fees;
    }
    if (state.standIn !== undefined) detail.standIn = state.standIn;
    if (caps) detail.caps = caps;
    if (read) addWar(detail, read);
    if (basis === 'fallback') {
      detail.priced = { ...priced, compete: outcome };
      return { priced: detail.priced, detail };
    }
    // What the direction publishes at the chosen rate: the exports publish this, as they do a priced direction's own.
    const rate = need ? need.rate : rateFor(chosen, from, to);
    const published = publicationAt(direction, priced.terms, rate);
    if ('reason' in published)
      return {
        priced: {
          direction,
          kind: published.kind,
          reason: `at the compete rate ${sayForm(chosen, codes)}: ${published.reason}`,
        },
        detail,
      };
    const next: PricedDirection = { ...priced, rate, published, compete: outcome };
    detail.priced = next;
    return { priced: next, detail };
  };
  const fallback = (reason: string) => settle(priced.published.rate.form, undefined, 'fallback', reason);

  if (!state.feed) return fallback(`feed ${rule.source} has no data${state.error ? `: ${state.error}` : ''}`);
  if (state.ageSeconds !== undefined && state.maxAgeSeconds !== undefined && state.ageSeconds > state.maxAgeSeconds) {
    return fallback(`feed ${rule.source} is ${state.ageSeconds} s old (limit ${state.maxAgeSeconds} s)`);
  }
  if (typeof reserve === 'string') return fallback(reserve);
  if (typeof terms === 'string') return fallback(terms);
  const untrusted = distrust(cores, market, bounds.marketApprox, rule);
  if (untrusted) return fallback(untrusted);
  if (standing?.unbeatable !== undefined) return fallback(standing.unbeatable);

  if (war) read = warBefore(war.entry, rule, cores, state.fetchedAt, war.now, ranked);
  const need = standing?.need;
  if (bounds.squeezed) {
    return settle(
      floorForm,
      bounds.floorApprox,
      'floor',
      `no published step lies between the ceiling ${sayRate(ceilingRate, codes)} and the floor ${sayRate(floorRate, codes)} at these rate precisions: the floor's, rounded against the client`,
    );
  }
  if (!need) {
    // No rows at all is more often a code BestChange spells otherwise than an empty field: say so, and where its
    // codes are listed for the feed in use (API v2's `currencies`, info.zip's bm_cycodes.dat).
    if (cores.every((core) => core.entries.length === 0)) {
      return settle(
        ceilingForm,
        bounds.ceilingApprox,
        'ceiling',
        `the feed has no rows for ${directionName(from.code, to.code)}${direction.cities.length > 0 ? ` in ${direction.cities.join(', ')}` : ''} (codes as in ${state.feed.order === 'rankrate' ? "API v2's currencies list" : 'bm_cycodes.dat'}): the ceiling`,
      );
    }
    const counted = Math.min(...cores.map((core) => core.counted.length));
    return settle(
      ceilingForm,
      bounds.ceilingApprox,
      'ceiling',
      `${plural(counted, 'competitor')} counted, fewer than place ${rule.worst}: the ceiling`,
    );
  }
  // The cap against outliers and a war's hold: each may only make the rate less generous than the place needs.
  const capped = cappedNeed(cores, rule, from, to, need, ranked);
  if (capped) caps = capped.caps;
  const bound = capped?.need ?? need;
  const hold = read?.hold;
  const held = hold && compareForms(bound.form, hold) > 0 ? { form: hold, approx: approxOf(hold) } : undefined;
  const limit = held ?? bound;
  if (compareQuick(limit.form, limit.approx, floorForm, bounds.floorApprox) > 0) {
    return settle(
      floorForm,
      bounds.floorApprox,
      'floor',
      `the field is cheaper than the floor: place ${rule.worst} needs ${sayForm(need.form, codes)}, the floor allows ${sayForm(floorForm, codes)} (market ${floorForm.in.equals(1) ? '×' : '÷'} (1 − ${percent(rule.floor)}))`,
    );
  }
  if (compareQuick(limit.form, limit.approx, ceilingForm, bounds.ceilingApprox) < 0) {
    return settle(
      ceilingForm,
      bounds.ceilingApprox,
      'ceiling',
      `place ${rule.worst} needs only ${sayForm(need.form, codes)}, less than the ceiling's ${sayForm(ceilingForm, codes)} (market ${ceilingForm.in.equals(1) ? '×' : '÷'} (1 − ${percent(rule.ceiling)}))`,
    );
  }
  if (held && read?.war)
    return settle(held.form, held.approx, 'war', warReason(read.war, held.form, bound.form, rule, codes));
  if (capped)
    return settle(capped.need.form, capped.need.approx, 'cap', capReason(capped.caps, need.form, rule, codes));
  return settle(need.form, need.approx, 'place', undefined, need);
}

function addWar(detail: CompeteDetail, read: WarBefore): void {
  if (read.entry) detail.warEntry = read.entry;
  if (read.war) detail.war = read.war;
  if (read.hold) detail.hold = read.hold;
}
