// competeDirections: the rate of each direction with a `compete:` block, from BestChange's field. Pure: the
// priced directions, the feeds (with their ages) and the quote book in; rates, places and the why out.
// The published rate is the least generous step that still holds the place, clamped between the ceiling
// and the floor; when the field is not trusted (no feed, too old, too far from the market) the normal margin.
import type { BestChangeFeed } from '../bestchange/feed.js';
import { type Decimal, formatDecimal } from '../decimal.js';
import { findChain } from '../pricing/chains.js';
import { convertAlong } from '../pricing/convert.js';
import { publicationAt } from '../pricing/published.js';
import { rateFor, rateOf } from './grid.js';
import { boundsOf } from './bounds.js';
import { approxOf, cityField, compareQuick, distrust, placeIn, type CityField } from './field.js';
import { directionName, percent, plural, show } from '../words.js';
import { standingOf, type Need } from './standing.js';
import type { QuoteBook } from '../sources/source.js';
import type { CompeteRule } from '../model.js';
import type { CompeteOutcome, PricedDirection, PublishedRate, WithheldDirection } from '../priced.js';

export type { CityField, FieldEntry } from './field.js';

/** A bestchange source as the build saw it. */
export interface FeedState {
  /** The parsed feed in use (fresh, or the last good one standing in); absent when there is none. */
  feed?: BestChangeFeed;
  /** Seconds since the feed in use was fetched. */
  ageSeconds?: number;
  /** The source's maxAge in seconds; absent: no limit. */
  maxAgeSeconds?: number;
  /** Why the source failed this build. */
  error?: string;
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
}

export interface CompeteResult {
  priced: PricedDirection[];
  /** Directions whose limits fail at the compete rate. */
  withheld: WithheldDirection[];
  /** By direction id. */
  details: Map<string, CompeteDetail>;
}

export function competeDirections(input: CompeteInput): CompeteResult {
  const priced: PricedDirection[] = [];
  const withheld: WithheldDirection[] = [];
  const details = new Map<string, CompeteDetail>();
  for (const p of input.priced) {
    const rule = p.direction.compete;
    if (!rule) {
      priced.push(p);
      continue;
    }
    const result = competeDirection(p, rule, input.feeds.get(rule.source) ?? {}, input.book);
    details.set(p.direction.id, result.detail);
    if ('reason' in result.priced) withheld.push(result.priced);
    else priced.push(result.priced);
  }
  return { priced, withheld, details };
}

/** One direction against its field. */
export function competeDirection(
  priced: PricedDirection,
  rule: CompeteRule,
  state: FeedState,
  book: QuoteBook,
): { priced: PricedDirection | WithheldDirection; detail: CompeteDetail } {
  const { direction, market } = priced;
  const { from, to } = direction;
  const bounds = boundsOf(market, rule, from, to);
  const { floorRate, ceilingRate, floorForm, ceilingForm } = bounds;
  const reserve = minReserveIn(rule, priced, book);
  const standing =
    state.feed && typeof reserve !== 'string'
      ? standingOf(state.feed, from, to, direction.cities, rule, reserve)
      : undefined;
  const cores = standing?.cores ?? [];

  /** The chosen step (and the need when it holds the place) with why: places counted per city, what it publishes. */
  const settle = (chosen: PublishedRate, basis: CompeteOutcome['basis'], reason: string | undefined, need?: Need) => {
    const approx = cores.length === 0 ? 0 : (need?.approx ?? approxOf(chosen));
    const fields = cores.map((core) => cityField(core, placeIn(core, chosen, approx)));
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
          reason: `at the compete rate ${show(rateOf(chosen))}: ${published.reason}`,
        },
        detail,
      };
    const next: PricedDirection = { ...priced, rate, published, compete: outcome };
    detail.priced = next;
    return { priced: next, detail };
  };
  const fallback = (reason: string) => settle(priced.published.rate.form, 'fallback', reason);

  if (!state.feed) return fallback(`feed ${rule.source} has no data${state.error ? `: ${state.error}` : ''}`);
  if (state.ageSeconds !== undefined && state.maxAgeSeconds !== undefined && state.ageSeconds > state.maxAgeSeconds) {
    return fallback(`feed ${rule.source} is ${state.ageSeconds} s old (limit ${state.maxAgeSeconds} s)`);
  }
  if (typeof reserve === 'string') return fallback(reserve);
  const untrusted = distrust(cores, market, bounds.marketApprox, rule);
  if (untrusted) return fallback(untrusted);
  if (standing?.unbeatable !== undefined) return fallback(standing.unbeatable);

  const need = standing?.need;
  if (bounds.squeezed) {
    return settle(
      floorForm,
      'floor',
      `no published step lies between the ceiling ${show(ceilingRate)} and the floor ${show(floorRate)} at these rate precisions: the floor's, rounded against the client`,
    );
  }
  if (!need) {
    // No rows at all is more often a code BestChange spells otherwise than an empty field: say so.
    if (cores.every((core) => core.entries.length === 0)) {
      return settle(
        ceilingForm,
        'ceiling',
        `the feed has no rows for ${directionName(from.code, to.code)}${direction.cities.length > 0 ? ` in ${direction.cities.join(', ')}` : ''} (codes as in bm_cycodes.dat): the ceiling`,
      );
    }
    const counted = Math.min(...cores.map((core) => core.counted.length));
    return settle(
      ceilingForm,
      'ceiling',
      `${plural(counted, 'competitor')} counted, fewer than place ${rule.worst}: the ceiling`,
    );
  }
  if (compareQuick(need.form, need.approx, floorForm, bounds.floorApprox) > 0) {
    return settle(
      floorForm,
      'floor',
      `the field is cheaper than the floor: place ${rule.worst} needs ${show(rateOf(need.form))}, the floor allows ${show(rateOf(floorForm))} (market × (1 − ${percent(rule.floor)}))`,
    );
  }
  if (compareQuick(need.form, need.approx, ceilingForm, bounds.ceilingApprox) < 0) {
    return settle(
      ceilingForm,
      'ceiling',
      `place ${rule.worst} needs only ${show(rateOf(need.form))}, less than the ceiling's ${show(rateOf(ceilingForm))} (market × (1 − ${percent(rule.ceiling)}))`,
    );
  }
  return settle(need.form, 'place', undefined, need);
}
