// Rank as BestChange shows (API v2): competitors by their `rankrate` (the rate with fees at $300, in give form:
// from per 1 to; lower is better for the client), and our own candidate turned into its rankrate with the
// direction's own fees at the same $300, so the place is decided like for like. Pure. The model of rankrate
// is ratefile's documented assumption (BestChange publishes none): docs/compete.md "Rank as BestChange shows".
import type { BestChangeFeed, CompetitorRow } from '../bestchange/feed.js';
import { parseFee } from '../check/values.js';
import { Decimal } from '../../base/decimal.js';
import type { CompeteRule, Currency, Direction } from '../../model/config.js';
import { findChain } from '../pricing/chains.js';
import { convertAlong } from '../pricing/convert.js';
import type { PublishedRate } from '../../model/priced.js';
import type { QuoteBook } from '../../model/source.js';
import { show } from '../../base/words.js';
import { approxOf, type FieldCore } from './field.js';
import { atOrBelow, MAX_STEPS_UP, rateFor, stepUp } from './grid.js';
import type { Standing } from './standing.js';

const ZERO = new Decimal(0);
const ONE = new Decimal(1);
/** "calculated for an exchange amount of $300" (BestChange, quoted in Premium Exchanger's guide). */
const referenceUsd = new Decimal(300);

/** A direction's fees in its sides' units: parts of the amount, fixed amounts, and the minimum (all ≥ 0). */
export interface OwnFees {
  /** fromfee: a share of what the client sends, and a fixed amount of the from asset. */
  fromShare: Decimal;
  fromFixed: Decimal;
  /** tofee: a share of what the client gets, and a fixed amount of the to asset. */
  toShare: Decimal;
  toFixed: Decimal;
  /** minfee: the least the fees together take, in the from asset. */
  min: Decimal;
}

/** One unit of `from` in `to` through the book (USD may stand for USDT), or undefined. */
function factorOf(book: QuoteBook, from: string, to: string): Decimal | undefined {
  if (from === to) return ONE;
  const chain = findChain(book, from, to);
  const converted = chain ? convertAlong(book, chain, from) : undefined;
  return converted && 'factor' in converted ? converted.factor : undefined;
}

/** A fee text as a share and a fixed amount of `side`, or why it cannot be read here. */
function feeOf(text: string | undefined, side: Currency, book: QuoteBook, what: string): [Decimal, Decimal] | string {
  if (text === undefined) return [ZERO, ZERO];
  const parsed = parseFee(text);
  if (!parsed.ok) return `${what} ${text}: ${parsed.problem}`;
  let [share, fixed] = [ZERO, ZERO];
  for (const part of parsed.value) {
    const value = new Decimal(part.value);
    if (part.unit === '%') share = share.plus(value.div(100));
    else if (part.unit === undefined || part.unit === side.code || part.unit === side.asset) fixed = fixed.plus(value);
    else {
      const factor = factorOf(book, part.unit, side.asset);
      if (!factor) return `cannot convert ${what} ${text} to ${side.asset} for the rankrate: no quotes`;
      fixed = fixed.plus(value.times(factor));
    }
  }
  return [share, fixed];
}

/** The direction's own fees, or why they cannot be had (a fee in a currency the book cannot convert). */
export function ownFees(direction: Direction, book: QuoteBook): OwnFees | string {
  const from = feeOf(direction.fromfee, direction.from, book, 'fromfee');
  if (typeof from === 'string') return from;
  const to = feeOf(direction.tofee, direction.to, book, 'tofee');
  if (typeof to === 'string') return to;
  const min = feeOf(direction.minfee, direction.from, book, 'minfee');
  if (typeof min === 'string') return min;
  return { fromShare: from[0], fromFixed: from[1], toShare: to[0], toFixed: to[1], min: min[1] };
}

/** $300 in the from asset (through USD, else USDT), or why not. */
export function referenceAmount(direction: Direction, book: QuoteBook): Decimal | string {
  const asset = direction.from.asset;
  const factor = factorOf(book, 'USD', asset) ?? factorOf(book, 'USDT', asset);
  return factor
    ? referenceUsd.times(factor)
    : `cannot convert the $300 of BestChange's rankrate to ${asset}: no USD or USDT quotes reach it`;
}

/**
 * Our rankrate at a rate `out/in` (to per from), in give form: what the client pays for one unit received when
 * he sends `amount`: (amount + the larger of the fromfee and what minfee leaves after the tofee) ÷ (what the rate
 * gives − the tofee). Undefined when the fees take everything.
 */
export function rankrateOf(form: PublishedRate, fees: OwnFees, amount: Decimal): Decimal | undefined {
  const gives = amount.times(form.out).div(form.in);
  const gets = gives.minus(gives.times(fees.toShare)).minus(fees.toFixed);
  if (gets.lte(0)) return undefined;
  // The tofee valued in the from currency at this rate.
  const toFee = gives.times(fees.toShare).plus(fees.toFixed).times(form.in).div(form.out);
  const fromFee = amount.times(fees.fromShare).plus(fees.fromFixed);
  const extra = Decimal.max(fromFee, fees.min.minus(toFee));
  return amount.plus(extra).div(gets);
}

/**
 * The rate (to per from) at which our rankrate equals `rankrate`: more generous rates rank better. The fromfee
 * alone: linear; minfee binding: the larger root of a quadratic (the tofee's fixed part valued at the rate).
 */
export function rateForRankrate(rankrate: Decimal, fees: OwnFees, amount: Decimal): Decimal | undefined {
  const kept = amount.times(ONE.minus(fees.toShare));
  if (kept.lte(0) || rankrate.lte(0)) return undefined;
  const fromFee = amount.times(fees.fromShare).plus(fees.fromFixed);
  const linear = amount.plus(fromFee).div(rankrate).plus(fees.toFixed).div(kept);
  if (fees.min.isZero()) return linear;
  // (A + m − tA − f/r) = R (A r (1 − t) − f)  →  R·kept·r² − (A(1 − t) + m + R f)·r + f = 0.
  const a = rankrate.times(kept);
  const b = kept.plus(fees.min).plus(rankrate.times(fees.toFixed));
  const root = b.plus(b.pow(2).minus(a.times(fees.toFixed).times(4)).sqrt()).div(a.times(2));
  return Decimal.max(linear, root);
}

/** Our rankrate as a give-form published rate `rankrate:1`, to place among rows whose give is their rankrate. */
export const rankForm = (rankrate: Decimal): PublishedRate => ({ in: rankrate, out: ONE });

/** The rows of a feed with give = rankrate, get = 1 (`bare` keeps the rate): the field machinery then ranks by rankrate. */
const views = new WeakMap<BestChangeFeed, BestChangeFeed>();

export function rankView(feed: BestChangeFeed): BestChangeFeed {
  let view = views.get(feed);
  if (!view) {
    const directions = new Map<string, CompetitorRow[]>();
    for (const [key, rows] of feed.directions)
      directions.set(
        key,
        rows.map((row) => ({ ...row, give: row.rankrate ?? row.give, get: '1', bare: `${row.give}:${row.get}` })),
      );
    view = { ...feed, directions };
    views.set(feed, view);
  }
  return view;
}

/** What ranking by rankrate needs of one direction this build: its fees and the $300 in its from asset. */
export interface RankTerms {
  fees: OwnFees;
  amount: Decimal;
}

export function rankTerms(direction: Direction, book: QuoteBook): RankTerms | string {
  const fees = ownFees(direction, book);
  if (typeof fees === 'string') return fees;
  const amount = referenceAmount(direction, book);
  return typeof amount === 'string' ? amount : { fees, amount };
}

/**
 * The least generous published form whose rankrate is strictly below `rival` (a tie ranks behind), starting from the
 * form at or below the target rankrate's rate; a few steps at most, as `beyond` does for bare rates.
 */
function formBeating(
  rival: Decimal,
  target: Decimal,
  terms: RankTerms,
  from: Currency,
  to: Currency,
): PublishedRate | { unbeatable: string } {
  const rate = rateForRankrate(target, terms.fees, terms.amount);
  if (!rate) return { unbeatable: 'the fees take the whole amount at any rate' };
  let form = atOrBelow(rate, from, to);
  for (let steps = 0; ; steps++) {
    const own = rankrateOf(form, terms.fees, terms.amount);
    if (own?.lessThan(rival)) return form;
    if (steps === MAX_STEPS_UP)
      return { unbeatable: `${MAX_STEPS_UP} published steps above the target still do not beat its rankrate` };
    const next = stepUp(form, from, to);
    if (next.in.equals(form.in) && next.out.equals(form.out))
      return { unbeatable: 'one published step more is lost in rounding' };
    form = next;
  }
}

/**
 * A standing made on the rankrate view (rows, who counts, the rival by rankrate) with its need made again for our
 * fees: per city, the step whose rankrate beats the rival's improved by `step`; the most generous city's decides.
 */
export function rankStanding(
  standing: Standing,
  terms: RankTerms,
  rule: CompeteRule,
  from: Currency,
  to: Currency,
): Standing {
  const cores: FieldCore[] = [];
  let most: PublishedRate | undefined;
  for (const core of standing.cores) {
    const { rival, needed: _needed, unbeatable: _unbeatable, target: _target, ...rest } = core;
    if (!rival) {
      cores.push(rest);
      continue;
    }
    const rivalRankrate = new Decimal(rival.row.give);
    const target = rivalRankrate.div(ONE.plus(rule.step));
    const needed = formBeating(rivalRankrate, target, terms, from, to);
    // The target as the rate compete reports (get per give): 1 ÷ the target rankrate.
    const shown = ONE.div(target);
    if ('unbeatable' in needed) {
      const where = core.city === undefined ? '' : ` in ${core.city}`;
      return {
        cores: [...cores, { ...rest, rival, target: shown, unbeatable: needed.unbeatable }],
        unbeatable: `no published rate beats the rankrate of the competitor at place ${rule.worst}${where}, ${show(rivalRankrate)}: ${needed.unbeatable}`,
      };
    }
    cores.push({ ...rest, rival, target: shown, needed });
    if (!most || needed.out.times(most.in).greaterThan(most.out.times(needed.in))) most = needed;
  }
  return most ? { cores, need: { form: most, rate: rateFor(most, from, to), approx: approxOf(most) } } : { cores };
}
