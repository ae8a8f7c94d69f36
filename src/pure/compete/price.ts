// competeDirections: the rate of each direction with a `compete:` block, from BestChange's field. Pure: the
// priced directions, the feeds (with their ages) and the quote book in; rates, places and the why out.
// The published rate is the least generous step that still holds the place, clamped between the ceiling
// and the floor; when the field is not trusted (no feed, too old, too far from the market) the normal margin.
import { directionName, percent, plural } from '../../base/words.js';
import type { QuoteBook } from '../../model/source.js';
import type { CompeteRule } from '../../model/config.js';
import type { PricedDirection, WithheldDirection } from '../../model/priced.js';
import { cappedNeed, capReason } from './cap.js';
import {
  type CompeteDetail,
  type Choice,
  type Contest,
  type FeedState,
  readContest,
  type Settled,
  settle,
} from './contest.js';
import { approxOf, compareQuick, distrust } from './field.js';
import { compareForms, sayForm, sayRate } from './grid.js';
import { keepUnpriced, warAfter, warBefore, warReason, type WarBefore, type WarEntry, type WarMemory } from './war.js';

export type { CityField, FieldEntry } from './field.js';
export type { CompeteDetail, FeedState } from './contest.js';

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

/** One direction against its field: read it, fall back to the margin when it is not trusted, else choose a step. */
function competeDirection(
  priced: PricedDirection,
  rule: CompeteRule,
  state: FeedState,
  book: QuoteBook,
  war?: { now: Date; entry?: WarEntry },
): Settled {
  const contest = readContest(priced, rule, state, book);
  const untrusted = whyNotTrusted(contest);
  if (untrusted !== undefined)
    return settle(contest, { form: priced.published.rate.form, basis: 'fallback', reason: untrusted });
  const read = war ? warBefore(war.entry, rule, contest.cores, state.fetchedAt, war.now, contest.ranked) : undefined;
  return settle(contest, choose(contest, read), read);
}

/** Why the field is not trusted (the direction then publishes its normal margin), or undefined when it is. */
function whyNotTrusted({ priced, rule, state, bounds, reserve, terms, standing, cores }: Contest): string | undefined {
  if (!state.feed) return `feed ${rule.source} has no data${state.error ? `: ${state.error}` : ''}`;
  if (state.ageSeconds !== undefined && state.maxAgeSeconds !== undefined && state.ageSeconds > state.maxAgeSeconds) {
    return `feed ${rule.source} is ${state.ageSeconds} s old (limit ${state.maxAgeSeconds} s)`;
  }
  if (typeof reserve === 'string') return reserve;
  if (typeof terms === 'string') return terms;
  const untrusted = distrust(cores, priced.market, bounds.marketApprox, rule);
  if (untrusted) return untrusted;
  return standing?.unbeatable;
}

/** The step a trusted field asks for: the place's own, unless the floor, the ceiling, a war's hold or a cap bound it. */
function choose(contest: Contest, read: WarBefore | undefined): Choice {
  const { rule, bounds, codes, cores } = contest;
  const { floorForm, ceilingForm, floorRate, ceilingRate } = bounds;
  if (bounds.squeezed) {
    return {
      form: floorForm,
      approx: bounds.floorApprox,
      basis: 'floor',
      reason: `no published step lies between the ceiling ${sayRate(ceilingRate, codes)} and the floor ${sayRate(floorRate, codes)} at these rate precisions: the floor's, rounded against the client`,
    };
  }
  const need = contest.standing?.need;
  if (!need) return ceilingWithoutNeed(contest);
  // The cap against outliers and a war's hold: each may only make the rate less generous than the place needs.
  const { from, to } = contest.priced.direction;
  const capped = cappedNeed(cores, rule, from, to, need, contest.ranked);
  const caps = capped?.caps;
  const bound = capped?.need ?? need;
  const hold = read?.hold;
  const held = hold && compareForms(bound.form, hold) > 0 ? { form: hold, approx: approxOf(hold) } : undefined;
  const limit = held ?? bound;
  if (compareQuick(limit.form, limit.approx, floorForm, bounds.floorApprox) > 0) {
    const reason = `the field is cheaper than the floor: place ${rule.worst} needs ${sayForm(need.form, codes)}, the floor allows ${sayForm(floorForm, codes)} (market ${floorForm.in.equals(1) ? '×' : '÷'} (1 − ${percent(rule.floor)}))`;
    return { form: floorForm, approx: bounds.floorApprox, basis: 'floor', reason, caps };
  }
  if (compareQuick(limit.form, limit.approx, ceilingForm, bounds.ceilingApprox) < 0) {
    const reason = `place ${rule.worst} needs only ${sayForm(need.form, codes)}, less than the ceiling's ${sayForm(ceilingForm, codes)} (market ${ceilingForm.in.equals(1) ? '×' : '÷'} (1 − ${percent(rule.ceiling)}))`;
    return { form: ceilingForm, approx: bounds.ceilingApprox, basis: 'ceiling', reason, caps };
  }
  if (held && read?.war) {
    const reason = warReason(read.war, held.form, bound.form, rule, codes);
    return { form: held.form, approx: held.approx, basis: 'war', reason, caps };
  }
  if (capped) {
    const reason = capReason(capped.caps, need.form, rule, codes);
    return { form: capped.need.form, approx: capped.need.approx, basis: 'cap', reason, caps };
  }
  return { form: need.form, approx: need.approx, basis: 'place', need };
}

/** No step holds the place in some city: the ceiling, and why. */
function ceilingWithoutNeed({ priced, rule, state, bounds, cores }: Contest): Choice {
  const { from, to, cities } = priced.direction;
  const ceiling = { form: bounds.ceilingForm, approx: bounds.ceilingApprox, basis: 'ceiling' } as const;
  // No rows at all is more often a code BestChange spells otherwise than an empty field: say so, and where its
  // codes are listed for the feed in use (API v2's `currencies`, info.zip's bm_cycodes.dat).
  if (cores.every((core) => core.entries.length === 0)) {
    const listed = state.feed?.order === 'rankrate' ? "API v2's currencies list" : 'bm_cycodes.dat';
    const where = cities.length > 0 ? ` in ${cities.join(', ')}` : '';
    return {
      ...ceiling,
      reason: `the feed has no rows for ${directionName(from.code, to.code)}${where} (codes as in ${listed}): the ceiling`,
    };
  }
  const counted = Math.min(...cores.map((core) => core.counted.length));
  return {
    ...ceiling,
    reason: `${plural(counted, 'competitor')} counted, fewer than place ${rule.worst}: the ceiling`,
  };
}
