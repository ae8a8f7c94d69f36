// One competing direction this build: what it reads of its field (`readContest`), and what it makes of the step
// chosen for it (`settle`): its place in each city, the outcome, everything `explain` shows, and what it publishes.
import type { BestChangeFeed } from '../bestchange/feed.js';
import { Decimal, formatDecimal } from '../../base/decimal.js';
import { findChain } from '../pricing/chains.js';
import { convertAlong } from '../pricing/convert.js';
import { publicationAt } from '../pricing/published.js';
import type { QuoteBook } from '../../model/source.js';
import type { CompeteRule } from '../../model/config.js';
import type {
  CompeteOutcome,
  CompeteWar,
  PricedDirection,
  PublishedRate,
  WithheldDirection,
} from '../../model/priced.js';
import { type Bounds, boundsOf } from './bounds.js';
import type { Cap } from './cap.js';
import { approxOf, type CityField, cityField, type FieldCore, placeIn } from './field.js';
import { type RateCodes, rateFor, sayForm } from './grid.js';
import { type OwnFees, rankForm, rankrateOf, type RankTerms, rankStanding, rankTerms, rankView } from './rankrate.js';
import { type Need, type Standing, standingOf } from './standing.js';
import type { WarBefore, WarEntry } from './war.js';

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

/** One competing direction as its field reads this build: what each step of its pricing looks at. */
export interface Contest {
  readonly priced: PricedDirection;
  readonly rule: CompeteRule;
  readonly state: FeedState;
  readonly bounds: Bounds;
  /** minReserve in the to currency, or why it cannot be had. */
  readonly reserve: Decimal | string | undefined;
  /** By rankrate (API v2): our fees and the $300 they are counted at, or why they cannot be had. */
  readonly terms: RankTerms | string | undefined;
  readonly ranked: RankTerms | undefined;
  readonly standing: Standing | undefined;
  /** The standing's cores (one array per feed and rule: the cap keys on it), or none. */
  readonly cores: FieldCore[];
  readonly codes: RateCodes;
}

/** The step chosen (as a double when known), on what basis and why; `need`: the place's own step, its rate known. */
export interface Choice {
  form: PublishedRate;
  approx?: number;
  basis: CompeteOutcome['basis'];
  reason?: string;
  need?: Need;
  /** The caps that bound the need, once it is known. */
  caps?: Cap[] | undefined;
}

export type Settled = { priced: PricedDirection | WithheldDirection; detail: CompeteDetail };

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

export function readContest(priced: PricedDirection, rule: CompeteRule, state: FeedState, book: QuoteBook): Contest {
  const { direction, market } = priced;
  const { from, to } = direction;
  const bounds = boundsOf(market, rule, from, to);
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
  const codes = { from: from.code, to: to.code };
  return { priced, rule, state, bounds, reserve, terms, ranked, standing, cores: standing?.cores ?? [], codes };
}

/** The chosen step with why: places counted per city, what it publishes. `read`: the war memory, once trusted. */
export function settle(contest: Contest, choice: Choice, read?: WarBefore): Settled {
  const { priced, ranked } = contest;
  // By rankrate, the place is our rankrate's among theirs (fees taking everything: behind every row).
  const own = ranked ? rankrateOf(choice.form, ranked.fees, ranked.amount) : undefined;
  const fields = placesAt(contest, choice, own);
  const outcome = outcomeOf(contest, fields, choice, read);
  const detail = detailOf(contest, choice, fields, outcome, own, read);
  if (choice.basis === 'fallback') {
    detail.priced = { ...priced, compete: outcome };
    return { priced: detail.priced, detail };
  }
  return publishAt(contest, choice, outcome, detail);
}

/** Our place in each city at the chosen step (by rankrate: our rankrate's place). */
function placesAt({ ranked, cores }: Contest, choice: Choice, own: Decimal | undefined): CityField[] {
  const placed = ranked ? rankForm(own ?? new Decimal('1e100')) : choice.form;
  const approx = cores.length === 0 ? 0 : ranked ? approxOf(placed) : (choice.approx ?? approxOf(choice.form));
  return cores.map((core) => cityField(core, placeIn(core, placed, approx)));
}

function outcomeOf({ rule, state }: Contest, fields: CityField[], choice: Choice, read?: WarBefore): CompeteOutcome {
  const { basis, reason } = choice;
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
  return outcome;
}

function detailOf(
  { priced, rule, state, bounds, reserve, ranked }: Contest,
  choice: Choice,
  fields: CityField[],
  outcome: CompeteOutcome,
  own: Decimal | undefined,
  read?: WarBefore,
): CompeteDetail {
  const { floorRate, ceilingRate, floorForm, ceilingForm } = bounds;
  const { market, rate: marginRate } = priced;
  const chosen = choice.form;
  const detail: CompeteDetail = {
    rule,
    market,
    marginRate,
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
  if (choice.caps) detail.caps = choice.caps;
  if (read) addWar(detail, read);
  return detail;
}

function addWar(detail: CompeteDetail, read: WarBefore): void {
  if (read.entry) detail.warEntry = read.entry;
  if (read.war) detail.war = read.war;
  if (read.hold) detail.hold = read.hold;
}

/** What the direction publishes at the chosen rate: the exports publish this, as they do a priced direction's own. */
function publishAt(
  { priced, codes }: Contest,
  choice: Choice,
  outcome: CompeteOutcome,
  detail: CompeteDetail,
): Settled {
  const { direction } = priced;
  const rate = choice.need ? choice.need.rate : rateFor(choice.form, direction.from, direction.to);
  const published = publicationAt(direction, priced.terms, rate);
  if ('reason' in published)
    return {
      priced: {
        direction,
        kind: published.kind,
        reason: `at the compete rate ${sayForm(choice.form, codes)}: ${published.reason}`,
      },
      detail,
    };
  const next: PricedDirection = { ...priced, rate, published, compete: outcome };
  detail.priced = next;
  return { priced: next, detail };
}
