// Which moves of a streamed quote change a published number, worked out once per build so a tick is judged in a few
// float operations: per streamed quote and side, a band around the value the build used within which every number
// that build printed stays as printed. Pure.
//
// Why a band holds. A published direction prints its rate in its published form (src/pure/pricing/published.ts) at each
// export's markup and tier, and limits that follow from those forms and from limits converted through the book; each
// printed number is a rounding of a value v that moves with the quotes as a product: |d ln v| ≤ Σ eᵢ |d ln qᵢ|, eᵢ the
// times quote i is read (a consensus of terms moves at most as its terms do; a sum of positive terms at most as its
// terms do). So if v is `s` (in ln) from the nearest value that prints differently, and each of its E streamed reads
// moves less than s / E, no printed number changes. What is not a product (a difference in a formula, a competing
// direction's rate, which follows the field and trusts it by its distance from the market, a consensus that dropped a
// term) gets no band: any move of its streamed quotes builds. Directions withheld now come back at the next build, on a
// move or on the schedule. The distances are worked out in floats: where a value is within float error of a rounding
// boundary its distance is 0, and every distance is narrowed by SAFETY, far above the error of the rest.
import type { Decimal } from '../../base/decimal.js';
import type { FormulaNode } from '../../base/config/formula.js';
import type { ChainStep, LimitTerms, PricedDirection, Publication } from '../../model/priced.js';
import type { Quote, QuoteBook } from '../../model/source.js';
import { findChain } from '../pricing/chains.js';
import { conversion } from '../pricing/convert.js';
import type { Derivation } from '../rates/derivation.js';

/** Float rounding of the values compared is far below this: bands are narrowed by it (ln units). */
const SAFETY = 1e-12;
/** Beyond this many grid steps a float cannot tell the grid (a step is below 1e-12 of the value): no band. */
const GRID_LIMIT = 2 ** 40;
/** Within this fraction of a grid step of a boundary (far above float error below GRID_LIMIT): on it, no band. */
const NEAR = 1e-3;

export type Side = 'bid' | 'ask';

/** Per side the range (exclusive) the side may move in, as floats; an empty range: any change builds. */
export interface QuoteBand {
  bid: readonly [number, number];
  ask: readonly [number, number];
}

/** Bands by `source|pair` of the streamed quotes the published directions read. */
export type MoveBands = ReadonlyMap<string, QuoteBand>;

export const bandKey = (source: string, pair: string) => `${source}|${pair}`;

export interface BandInput {
  /** The directions the build published (report.directions.published). */
  published: readonly PricedDirection[];
  /** The markups of the exports (each prints every direction it selects at its markup). */
  markups: readonly Decimal[];
  /** How the build made the pairs of `rates:` (report.rates). */
  derivations: readonly Derivation[];
  /** The book the build priced on: a limit in a third asset was converted through it. */
  book: QuoteBook;
  /** The names of the sources in stream mode. */
  streamed: ReadonlySet<string>;
}

/**
 * `value` on the grid of `places` decimals, `x = value × 10^places`: the grid points below and above it, or undefined
 * when it is within float error of one (or the grid is finer than floats tell).
 */
function gridAround(value: number, places: number): { below: number; above: number; x: number } | undefined {
  const x = value * 10 ** places;
  if (!(x > 0) || x > GRID_LIMIT) return undefined;
  const below = Math.floor(x);
  const fraction = x - below;
  if (fraction < NEAR || fraction > 1 - NEAR) return undefined;
  return { below, above: below + 1, x };
}

/** How far (ln) a published rate `u` may move before its published form prints differently (publishedRate). */
export function printSlack(u: number, fromPlaces: number, toPlaces: number): number {
  if (!(u > 0) || !Number.isFinite(u)) return 0;
  if (u >= 1) {
    // `out` = u rounded down: u may fall to it (and not below 1, where the form turns over) and rise below the next.
    const grid = gridAround(u, toPlaces);
    if (!grid) return 0;
    const lo = Math.max(grid.below, 10 ** toPlaces);
    return Math.min(Math.log(grid.x / lo), Math.log(grid.above / grid.x));
  }
  // `in` = 1 ÷ u rounded up: 1 ÷ u may rise to it and fall above the one below (and not below 1).
  const grid = gridAround(1 / u, fromPlaces);
  if (!grid) return 0;
  const lo = Math.max(grid.below, 10 ** fromPlaces);
  return Math.min(Math.log(grid.x / lo), Math.log(grid.above / grid.x));
}

/** How far (ln) a limit converted through the book may move before its rounding (up for a minimum) prints differently. */
function limitSlack(value: number, places: number, up: boolean): number {
  const grid = gridAround(value, places);
  if (!grid) return 0;
  // Rounded up, (below, above] prints `above` (and anything above 0 down to it); rounded down, [below, above) prints
  // `below` (0: withheld, not published). Off the grid points, the boundaries are the same two.
  const down = grid.below === 0 && up ? Number.POSITIVE_INFINITY : Math.log(grid.x / grid.below);
  return Math.min(down, Math.log(grid.above / grid.x));
}

/** The most a formula's value moves (in ln) per unit move of the quotes it reads; undefined: unbounded (a difference). */
export function formulaElasticity(node: FormulaNode): number | undefined {
  if (node.kind === 'number' || node.kind === 'entry') return 0;
  if (node.kind === 'quote') return 1;
  const left = formulaElasticity(node.left);
  const right = formulaElasticity(node.right);
  if (left === undefined || right === undefined || node.operator === '-') return undefined;
  // A sum of positive terms moves at most as its most moving term; a product or quotient as both together.
  return node.operator === '+' ? Math.max(left, right) : left + right;
}

/** One streamed read behind a number: the quote (and its band key), the side (both when a rule reads it), its elasticity. */
interface Read {
  quote: Quote;
  key: string;
  sides: readonly Side[];
  elasticity: number;
}

/** Reads behind a number and the most each may move for thresholds of their own (a consensus's spread). */
interface Reads {
  reads: Read[];
  allowance: number;
}

const readOf = (quote: Quote, sides: readonly Side[], elasticity: number): Read => ({
  quote,
  key: bandKey(quote.source, quote.pair),
  sides,
  elasticity,
});

/** Reads of streamed quotes in a rule's terms, and the most any of them may move for the rule's own thresholds. */
function ruleReads(derivation: Derivation, streamed: ReadonlySet<string>): Reads {
  const reads: Read[] = [];
  const { rule } = derivation;
  // A dropped, unused or missing term, or a missing pair: a move may bring a term in or out (no band).
  const unsettled = derivation.missing !== undefined || derivation.terms.some((term) => term.status !== 'used');
  derivation.terms.forEach((term, index) => {
    const formula = rule.kind === 'formula' ? rule.formula : rule.terms[index]?.formula;
    const bound = formula === undefined ? undefined : formulaElasticity(formula.node);
    const elasticity = unsettled || bound === undefined ? Number.POSITIVE_INFINITY : bound;
    for (const quote of term.quotes)
      if (streamed.has(quote.source)) reads.push(readOf(quote, ['bid', 'ask'], elasticity));
  });
  let allowance = Number.POSITIVE_INFINITY;
  if (rule.kind === 'consensus' && rule.spread !== undefined && derivation.spread !== undefined && reads.length > 0) {
    // Each term's mid moving less than x keeps the spread below (1 + S)(e^2x − 1) + S: inside the limit while this holds.
    const spread = derivation.spread.toNumber();
    const limit = rule.spread.toNumber();
    const worst = Math.max(...reads.map((read) => read.elasticity));
    allowance = limit > spread ? Math.log1p((limit - spread) / (1 + spread)) / 2 / worst : 0;
  }
  return { reads, allowance };
}

/** The streamed reads behind a chain of steps: its quotes, a ruled one's through its terms. */
function stepReads(
  steps: readonly ChainStep[],
  rules: ReadonlyMap<string, Reads>,
  streamed: ReadonlySet<string>,
): Reads {
  const reads: Read[] = [];
  let allowance = Number.POSITIVE_INFINITY;
  for (const step of steps) {
    const { quote } = step;
    if (quote.ruled) {
      const rule = rules.get(quote.pair);
      if (rule) {
        reads.push(...rule.reads);
        allowance = Math.min(allowance, rule.allowance);
      }
    } else if (streamed.has(quote.source)) reads.push(readOf(quote, [step.side], 1));
  }
  return { reads, allowance };
}

/** Slacks already worked out, by rate object (groups of directions share one) and the precisions they print at. */
type SlackMemo = Map<Decimal, Map<string, number>>;

/** How far (ln) the direction's rate may move before any number it prints changes (markups, tiers). */
function rateSlack(priced: PricedDirection, markups: readonly number[], memo: SlackMemo): number {
  const { from, to } = priced.direction;
  const places = `${from.ratePrecision}|${to.ratePrecision}`;
  let slack = Number.POSITIVE_INFINITY;
  for (const rate of [priced.rate, ...(priced.tierRates ?? [])]) {
    const known = memo.get(rate) ?? memo.set(rate, new Map()).get(rate)!;
    let each = known.get(places);
    if (each === undefined) {
      const value = rate.toNumber();
      each = Number.POSITIVE_INFINITY;
      for (const markup of markups)
        each = Math.min(each, printSlack(value * (1 - markup), from.ratePrecision, to.ratePrecision));
      known.set(places, each);
    }
    slack = Math.min(slack, each);
  }
  return slack;
}

/** A limit set in a third asset: converted through the book as pricing did (convert.ts, limitThroughBook). */
function limitNumbers(
  priced: PricedDirection,
  book: QuoteBook,
  rules: ReadonlyMap<string, Reads>,
  streamed: ReadonlySet<string>,
): { slack: number; reads: Reads }[] {
  const { direction, terms } = priced;
  const out: { slack: number; reads: Reads }[] = [];
  for (const [limit, value, minimum] of [
    [direction.min, terms.minFrom, true],
    [direction.max, terms.maxFrom, false],
  ] as const) {
    if (!limit || !value || limit.asset === direction.from.asset || limit.asset === direction.to.asset) continue;
    const chain = findChain(book, limit.asset, direction.from.asset);
    const converted = chain && conversion(book, chain, limit.asset, !minimum);
    if (!converted || 'missing' in converted) continue;
    const slack = limitSlack(value.toNumber(), direction.from.precision, minimum);
    out.push({ slack, reads: stepReads(converted.steps, rules, streamed) });
  }
  return out;
}

/** The tightest ln move each read of a number is allowed: its slack shared by its reads, within their own allowance. */
function allow(
  allowed: Map<string, { quote: Quote; bid: number; ask: number }>,
  { reads, allowance }: Reads,
  slack: number,
): void {
  if (reads.length === 0) return;
  const total = reads.reduce((sum, read) => sum + read.elasticity, 0);
  const each = Math.min(Number.isFinite(total) ? Math.max(0, slack - SAFETY) / total : 0, allowance);
  for (const read of reads) {
    let entry = allowed.get(read.key);
    if (!entry)
      allowed.set(
        read.key,
        (entry = { quote: read.quote, bid: Number.POSITIVE_INFINITY, ask: Number.POSITIVE_INFINITY }),
      );
    for (const side of read.sides) entry[side] = Math.min(entry[side], each);
  }
}

export function moveBands(input: BandInput): MoveBands {
  const { streamed, book } = input;
  const markups = [...new Set(input.markups.map((markup) => markup.toNumber()))];
  if (markups.length === 0) markups.push(0);
  const rules = new Map(input.derivations.map((derivation) => [derivation.pair, ruleReads(derivation, streamed)]));
  const allowed = new Map<string, { quote: Quote; bid: number; ask: number }>();
  // Directions alike share their steps, terms and publication (priceDirections): each is worked out once.
  const readsOf = new Map<readonly ChainStep[], Reads>();
  const limitsDone = new Set<LimitTerms>();
  const done = new Set<Publication>();
  const memo: SlackMemo = new Map();
  for (const priced of input.published) {
    const alike = priced.tierRates === undefined && !priced.compete;
    if (alike && done.has(priced.published)) continue;
    if (alike) done.add(priced.published);
    if (!limitsDone.has(priced.terms)) {
      limitsDone.add(priced.terms);
      for (const limit of limitNumbers(priced, book, rules, streamed)) allow(allowed, limit.reads, limit.slack);
    }
    let reads = readsOf.get(priced.steps);
    if (!reads) readsOf.set(priced.steps, (reads = stepReads(priced.steps, rules, streamed)));
    if (reads.reads.length === 0) continue;
    allow(allowed, reads, priced.compete ? 0 : rateSlack(priced, markups, memo));
  }
  const bands = new Map<string, QuoteBand>();
  for (const [key, { quote, bid, ask }] of allowed)
    bands.set(key, { bid: bandAround(quote.bid.toNumber(), bid), ask: bandAround(quote.ask.toNumber(), ask) });
  return bands;
}

/** The range a value may move in, `ln` either way; infinite: any positive value. */
export function bandAround(center: number, ln: number): readonly [number, number] {
  if (ln === Number.POSITIVE_INFINITY) return [0, Number.POSITIVE_INFINITY];
  const move = Math.max(0, ln);
  return [center * Math.exp(-move), center * Math.exp(move)];
}

/** Whether a quote (bid and ask as their decimal text's value) is outside its band: a published number may change. */
export function movesOut(band: QuoteBand, bid: number, ask: number): boolean {
  const inside = (value: number, [lo, hi]: readonly [number, number]) =>
    (value > lo && value < hi) || (lo === hi && value === lo);
  return !inside(bid, band.bid) || !inside(ask, band.ask);
}
