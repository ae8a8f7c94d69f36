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
// move or on the schedule.
import { Decimal, roundDown, roundUp } from '../../base/decimal.js';
import type { FormulaNode } from '../../base/config/formula.js';
import type { PricedDirection } from '../../model/priced.js';
import type { Quote } from '../../model/source.js';
import type { Derivation } from '../rates/derivation.js';

/** Float rounding of the values compared is far below this: bands are narrowed by it (ln units). */
const SAFETY = 1e-12;
/** The longest chain a limit in a third asset is converted along (src/pure/pricing/chains.ts: findChain's maxSteps). */
const LIMIT_CHAIN_STEPS = 4;
const ONE = new Decimal(1);
const unit = (places: number) => ONE.div(new Decimal(10).pow(places));

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
  /** The names of the sources in stream mode. */
  streamed: ReadonlySet<string>;
}

/** ln(a / b) for a ≥ b > 0, from the exact ratio (a float log of two close values would lose the digits). */
const lnRatio = (a: Decimal, b: Decimal): number => Math.log1p(a.minus(b).div(b).toNumber());

/** How far (ln) a published rate `u` may move before its published form prints differently (publishedRate). */
export function printSlack(u: Decimal, fromPlaces: number, toPlaces: number): number {
  if (!u.isFinite() || u.lte(0)) return 0;
  if (u.gte(ONE)) {
    const out = roundDown(u, toPlaces);
    const hi = out.plus(unit(toPlaces));
    return Math.min(lnRatio(u, Decimal.max(out, ONE)), lnRatio(hi, u));
  }
  const given = roundUp(ONE.div(u), fromPlaces);
  const lo = ONE.div(given);
  const below = given.minus(unit(fromPlaces));
  const hi = below.lte(ONE) ? ONE : Decimal.min(ONE.div(below), ONE);
  return Math.min(lnRatio(u, lo), lnRatio(hi, u));
}

/** How far (ln) a limit converted through the book may move before its rounding (up for a minimum) prints differently. */
function limitSlack(value: Decimal, places: number, up: boolean): number {
  if (!value.isFinite() || value.lte(0)) return 0;
  const printed = up ? roundUp(value, places) : roundDown(value, places);
  return up
    ? Math.min(lnRatio(value, printed.minus(unit(places))), lnRatio(printed, value))
    : Math.min(lnRatio(value, printed), lnRatio(printed.plus(unit(places)), value));
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

/** One streamed read behind a direction's numbers: the quote, the side (both when a rule reads it), its elasticity. */
interface Read {
  quote: Quote;
  sides: readonly Side[];
  elasticity: number;
}

/** Reads of streamed quotes in a rule's terms, and the most any of them may move for the rule's own thresholds. */
function ruleReads(derivation: Derivation, streamed: ReadonlySet<string>): { reads: Read[]; allowance: number } {
  const reads: Read[] = [];
  const { rule } = derivation;
  let allowance = Number.POSITIVE_INFINITY;
  // A dropped, unused or missing term, or a missing pair: a move may bring a term in or out (no band).
  const unsettled = derivation.missing !== undefined || derivation.terms.some((term) => term.status !== 'used');
  derivation.terms.forEach((term, index) => {
    const formula = rule.kind === 'formula' ? rule.formula : rule.terms[index]?.formula;
    const elasticity = formula === undefined ? undefined : formulaElasticity(formula.node);
    for (const quote of term.quotes) {
      if (!streamed.has(quote.source)) continue;
      const e = elasticity ?? Number.POSITIVE_INFINITY;
      reads.push({ quote, sides: ['bid', 'ask'], elasticity: unsettled ? Number.POSITIVE_INFINITY : e });
    }
  });
  if (rule.kind === 'consensus' && rule.spread !== undefined && derivation.spread !== undefined && reads.length > 0) {
    // Each term's mid moving less than x keeps the spread below (1 + S)(e^2x − 1) + S: inside the limit while this holds.
    const spread = derivation.spread.toNumber();
    const limit = rule.spread.toNumber();
    const worst = Math.max(...reads.map((read) => read.elasticity));
    allowance = limit > spread ? Math.log1p((limit - spread) / (1 + spread)) / 2 / worst : 0;
  }
  return { reads, allowance };
}

/** The streamed reads behind a direction's rate: its chain's quotes, a ruled one's through its terms. */
function directionReads(
  priced: PricedDirection,
  rules: ReadonlyMap<string, { reads: Read[]; allowance: number }>,
  streamed: ReadonlySet<string>,
): { reads: Read[]; allowance: number } {
  const reads: Read[] = [];
  let allowance = Number.POSITIVE_INFINITY;
  for (const step of priced.steps) {
    const { quote } = step;
    if (quote.ruled) {
      const rule = rules.get(quote.pair);
      if (rule) {
        reads.push(...rule.reads);
        allowance = Math.min(allowance, rule.allowance);
      }
    } else if (streamed.has(quote.source)) reads.push({ quote, sides: [step.side], elasticity: 1 });
  }
  return { reads, allowance };
}

/** How far (ln) the direction's rate may move before any number it prints changes (markups, tiers). */
function rateSlack(
  priced: PricedDirection,
  markups: readonly Decimal[],
  slacks: Map<string, Map<Decimal, number>>,
): number {
  const { from, to } = priced.direction;
  const places = `${from.ratePrecision}|${to.ratePrecision}`;
  const known = slacks.get(places) ?? slacks.set(places, new Map()).get(places)!;
  const slackOf = (rate: Decimal) => {
    let slack = Number.POSITIVE_INFINITY;
    for (const markup of markups)
      slack = Math.min(
        slack,
        printSlack(markup.isZero() ? rate : rate.times(ONE.minus(markup)), from.ratePrecision, to.ratePrecision),
      );
    return slack;
  };
  // Directions alike share one rate object (priceDirections): one slack per rate object and precisions.
  let slack = priced.tierRates === undefined ? known.get(priced.rate) : undefined;
  if (slack === undefined) {
    slack = slackOf(priced.rate);
    if (priced.tierRates === undefined) known.set(priced.rate, slack);
    else for (const tier of priced.tierRates) slack = Math.min(slack, slackOf(tier));
  }
  return slack;
}

/** Limits set in a third asset, converted through the book: their slack, for every streamed read (their chain is not kept). */
function thirdAssetSlack(priced: PricedDirection): number {
  const { direction, terms } = priced;
  const third = (asset: string | undefined) =>
    asset !== undefined && asset !== direction.from.asset && asset !== direction.to.asset;
  let slack = Number.POSITIVE_INFINITY;
  if (third(direction.min?.asset) && terms.minFrom) slack = limitSlack(terms.minFrom, direction.from.precision, true);
  if (third(direction.max?.asset) && terms.maxFrom)
    slack = Math.min(slack, limitSlack(terms.maxFrom, direction.from.precision, false));
  return slack;
}

/** The bands of the quotes the published directions read, and the ln move every other streamed quote is allowed. */
export interface Bands {
  quotes: MoveBands;
  /** A limit set in a third asset is converted along a chain the build does not keep: every streamed quote may be on it. */
  everywhere: number;
}

export function moveBands(input: BandInput): Bands {
  const { streamed } = input;
  const markups = [...new Map(input.markups.map((markup) => [markup.toString(), markup])).values()];
  if (markups.length === 0) markups.push(new Decimal(0));
  const rules = new Map(input.derivations.map((derivation) => [derivation.pair, ruleReads(derivation, streamed)]));
  /** The allowed ln move per quote key and side. */
  const allowed = new Map<string, { quote: Quote; bid: number; ask: number }>();
  const known = new Map<string, Map<Decimal, number>>();
  let everywhere = Number.POSITIVE_INFINITY;
  for (const priced of input.published) {
    const third = thirdAssetSlack(priced);
    if (third < Number.POSITIVE_INFINITY)
      everywhere = Math.min(everywhere, Math.max(0, third - SAFETY) / LIMIT_CHAIN_STEPS);
    const { reads, allowance } = directionReads(priced, rules, streamed);
    if (reads.length === 0) continue;
    const total = reads.reduce((sum, read) => sum + read.elasticity, 0);
    const slack = priced.compete ? 0 : Math.max(0, rateSlack(priced, markups, known) - SAFETY);
    const each = Math.min(Number.isFinite(total) ? slack / total : 0, allowance);
    for (const read of reads) {
      const key = bandKey(read.quote.source, read.quote.pair);
      const entry = allowed.get(key) ?? {
        quote: read.quote,
        bid: Number.POSITIVE_INFINITY,
        ask: Number.POSITIVE_INFINITY,
      };
      for (const side of read.sides) entry[side] = Math.min(entry[side], each);
      allowed.set(key, entry);
    }
  }
  const quotes = new Map<string, QuoteBand>();
  for (const [key, { quote, bid, ask }] of allowed)
    quotes.set(key, {
      bid: bandAround(quote.bid.toNumber(), Math.min(bid, everywhere)),
      ask: bandAround(quote.ask.toNumber(), Math.min(ask, everywhere)),
    });
  return { quotes, everywhere };
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
