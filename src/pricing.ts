// priceDirections: market rate through a chain of quotes, the margin, and the published in:out form. Pure.
import { Decimal, roundDown, roundUp } from './decimal.js';
import type { Currency, Direction, Money } from './model.js';
import type { ChainStep, LimitTerms, PricedDirection, PublishedLimits, PublishedRate, WithheldDirection, WithheldKind } from './priced.js';
import type { Quote, QuoteBook } from './sources/source.js';

type Graph = Map<string, { pair: string; next: string }[]>;

/** From one asset: every way into each asset reachable at the depth it is first reached, and the chains chosen so far. */
interface ChainSearch {
  ways: Map<string, { pair: string; previous: string }[]>;
  best: Map<string, string[]>;
}

/** A book's graph of assets and the chains found in it: all that depends on which pairs it has and their priorities. */
interface BookShape {
  key: string;
  graph: Graph;
  prioritized: boolean;
  chains: Map<string, ChainSearch>;
}

/**
 * The last two book shapes: a build's book is a new Map, but it usually has the same pairs as the last one, so the
 * chains are searched once, not once per build. Keyed by text naming every pair, its base and quote and its
 * priority (all the search reads), so a book with other pairs or priorities never gets another book's chains. Two:
 * a build with a stale quote prices its book without it and looks at the book with it (`staleHold` in guards.ts).
 */
let lastShapes: BookShape[] = [];

/** Per quote book: its shape, and the conversions along chains in it, so 10,000 directions search and convert once per asset pair. */
const graphs = new WeakMap<
  QuoteBook,
  { shape: BookShape; conversions: WeakMap<readonly string[], Map<string, ReturnType<typeof convertAlong>>>; limits: Map<string, Decimal | undefined> }
>();

function graphOf(book: QuoteBook) {
  let entry = graphs.get(book);
  if (!entry) {
    const pairs = [...book.keys()].sort();
    // JSON: no pair's text can run into the next one's.
    const key = JSON.stringify(pairs.map((pair) => [pair, book.get(pair)!.base, book.get(pair)!.quote, book.get(pair)!.priority ?? 0]));
    let shape = lastShapes.find((known) => known.key === key);
    if (!shape) {
      const graph: Graph = new Map();
      for (const pair of pairs) {
        const { base, quote } = book.get(pair)!;
        (graph.get(base) ?? graph.set(base, []).get(base)!).push({ pair, next: quote });
        (graph.get(quote) ?? graph.set(quote, []).get(quote)!).push({ pair, next: base });
      }
      const prioritized = [...book.values()].some((quote) => (quote.priority ?? 0) !== 0);
      shape = { key, graph, prioritized, chains: new Map() };
    }
    lastShapes = [shape, ...lastShapes.filter((known) => known !== shape)].slice(0, 2);
    entry = { shape, conversions: new WeakMap(), limits: new Map() };
    graphs.set(book, entry);
  }
  return entry;
}

const ONE = new Decimal(1);

/** How a chain ranks among equally short ones: its least-preferred source's priority, then all priorities. */
function chainRank(book: QuoteBook, chain: readonly string[]): [lowest: number, total: number] {
  const priorities = chain.map((pair) => book.get(pair)?.priority ?? 0);
  return [Math.min(...priorities), priorities.reduce((sum, priority) => sum + priority, 0)];
}

/** -1 when chain `a` is preferred to `b`: higher source priorities, then the alphabetically first pairs. */
function compareChains(book: QuoteBook, a: readonly string[], b: readonly string[]): number {
  const [rankA, rankB] = [chainRank(book, a), chainRank(book, b)];
  if (rankA[0] !== rankB[0]) return rankB[0] - rankA[0];
  if (rankA[1] !== rankB[1]) return rankB[1] - rankA[1];
  return compareAlphabetically(a, b);
}

/** Lexicographic order of equally long chains, pair by pair. */
function compareAlphabetically(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
}

/**
 * Shortest chain of pairs in the book leading from one asset to another. Among equally short chains the
 * sources' priorities decide (the chain whose least-preferred quote has the highest priority, then the
 * highest in total), then the alphabetically first pairs.
 */
export function findChain(book: QuoteBook, from: string, to: string, maxSteps = 4): string[] | undefined {
  if (from === to) return [];
  const { graph, prioritized, chains } = graphOf(book).shape;
  const key = `${from}>${maxSteps}`;
  let search = chains.get(key);
  if (!search) {
    search = searchFrom(graph, from, maxSteps);
    chains.set(key, search);
  }
  if (!search.ways.has(to)) return undefined;
  return prioritized ? rankedChain(book, search, from, to) : firstChain(search, to);
}

/** Breadth first from one asset, keeping every way into an asset at the depth it is first reached. */
function searchFrom(graph: Graph, from: string, maxSteps: number): ChainSearch {
  const depth = new Map<string, number>([[from, 0]]);
  const ways: ChainSearch['ways'] = new Map();
  let frontier = [from];
  for (let step = 1; step <= maxSteps && frontier.length > 0; step++) {
    const next: string[] = [];
    for (const asset of frontier) {
      for (const edge of graph.get(asset) ?? []) {
        const known = depth.get(edge.next);
        if (known !== undefined && known < step) continue;
        if (known === undefined) {
          depth.set(edge.next, step);
          next.push(edge.next);
        }
        (ways.get(edge.next) ?? ways.set(edge.next, []).get(edge.next)!).push({ pair: edge.pair, previous: asset });
      }
    }
    frontier = next;
  }
  return { ways, best: new Map([[from, []]]) };
}

/** Without priorities: the alphabetically first shortest chain, built from the first chains into each asset on the way. */
function firstChain(search: ChainSearch, to: string): string[] {
  const known = search.best.get(to);
  if (known) return known;
  let chosen: string[] | undefined;
  for (const way of search.ways.get(to)!) {
    const candidate = [...firstChain(search, way.previous), way.pair];
    if (!chosen || compareAlphabetically(candidate, chosen) < 0) chosen = candidate;
  }
  search.best.set(to, chosen!);
  return chosen!;
}

/**
 * With priorities: every shortest chain compared (a chain's rank is not made of its prefixes' ranks, so
 * no shortcut); books with priorities hold the configured pairs of a few sources, so they are few.
 */
function rankedChain(book: QuoteBook, search: ChainSearch, from: string, to: string): string[] {
  const known = search.best.get(to);
  if (known) return known;
  let chosen: string[] | undefined;
  let count = 0;
  const walk = (asset: string, suffix: string[]): void => {
    if (asset === from) {
      count++;
      if (!chosen || compareChains(book, suffix, chosen) < 0) chosen = suffix;
      return;
    }
    for (const way of search.ways.get(asset) ?? []) if (count < 10_000) walk(way.previous, [way.pair, ...suffix]);
  };
  walk(to, []);
  search.best.set(to, chosen!);
  return chosen!;
}

/** Look a pair up as written or inverted (`USDT/RUB` also finds a `RUB/USDT` quote). */
function lookUp(book: QuoteBook, pair: string): Quote | undefined {
  const found = book.get(pair);
  if (found) return found;
  const [base, quote] = pair.split('/');
  return book.get(`${quote}/${base}`);
}

/**
 * Convert one unit of `from` along `pairs`. Pessimistic: the side that gives less at every step (the
 * client's side of a trade). Optimistic: the side that gives more, used where "safe" means a higher amount.
 */
export function convertAlong(
  book: QuoteBook,
  pairs: readonly string[],
  from: string,
  pessimistic = true,
): { factor: Decimal; steps: ChainStep[] } | { missing: string } {
  let asset = from;
  let factor = ONE;
  const steps: ChainStep[] = [];
  for (const pair of pairs) {
    const quote = lookUp(book, pair);
    if (!quote) return { missing: pair };
    if (quote.base === asset) {
      const side = pessimistic ? 'bid' : 'ask';
      // Times 1 is the quote itself (rounded to the working precision only when longer, as the product would be).
      factor = steps.length === 0 && quote[side].sd() <= Decimal.precision ? quote[side] : factor.times(quote[side]);
      steps.push({ pair: quote.pair, side, quote });
      asset = quote.quote;
    } else {
      const side = pessimistic ? 'ask' : 'bid';
      factor = factor.div(quote[side]);
      steps.push({ pair: quote.pair, side, quote });
      asset = quote.base;
    }
  }
  return { factor, steps };
}

/** convertAlong, remembered per quote book and chain (found chains are shared arrays): directions sharing assets share one conversion. */
function conversion(book: QuoteBook, pairs: readonly string[], from: string, pessimistic = true): ReturnType<typeof convertAlong> {
  const { conversions } = graphOf(book);
  let byStart = conversions.get(pairs);
  if (!byStart) conversions.set(pairs, (byStart = new Map()));
  const key = pessimistic ? from : `${from}|optimistic`;
  let result = byStart.get(key);
  if (!result) {
    result = convertAlong(book, pairs, from, pessimistic);
    byStart.set(key, result);
  }
  return result;
}

/**
 * A limit set in an asset other than the from and to assets, as an amount of the from asset; undefined when the
 * book cannot convert it. Once per book and limit (value, asset, from asset, side): directions share it.
 */
function limitThroughBook(limit: Money, direction: Direction, book: QuoteBook, roundUpward: boolean, key: string): Decimal | undefined {
  const { limits } = graphOf(book);
  if (limits.has(key)) return limits.get(key);
  const chain = findChain(book, limit.asset, direction.from.asset);
  const converted = chain && conversion(book, chain, limit.asset, !roundUpward);
  const value = !converted || 'missing' in converted ? undefined : limit.value.times(converted.factor);
  limits.set(key, value);
  return value;
}

/**
 * Values by an object (held weakly) and a key. Nearly every object here gets one key (a conversion one margin, a
 * rate one pair of precisions, a published form one set of terms), so the first is kept inline and a Map is made
 * only for a second: a build makes thousands of these, and fewer objects mean less garbage to collect.
 */
class Memo<O extends object, K, V> {
  private readonly slots = new WeakMap<O, { key: K; value: V; more?: Map<K, V> }>();

  get(owner: O, key: K): V | undefined {
    const slot = this.slots.get(owner);
    if (slot === undefined) return undefined;
    return slot.key === key ? slot.value : slot.more?.get(key);
  }

  set(owner: O, key: K, value: V): V {
    const slot = this.slots.get(owner);
    if (slot === undefined) this.slots.set(owner, { key, value });
    else (slot.more ??= new Map()).set(key, value);
    return value;
  }
}

/**
 * What a direction's price depends on besides the quote book, worked out once per direction object: the
 * loaded config's directions outlive every build and are never changed in place (a reserve source or a city
 * pause makes a new object), so a WeakMap by identity cannot serve a stale plan and frees a reloaded config's.
 */
interface DirectionPlan {
  /** Directions with the same group price alike from one book (same chain, margin, precisions, reserve, limits). */
  group: string;
  /** What the limit terms depend on besides the book. */
  limits: string;
  /** The reserve as published (`LimitTerms.amount`). */
  amount: Decimal;
  margin: string;
  /** The market is multiplied by this (1 − margin). */
  keep: Decimal;
  reserveShown: boolean;
}
const plans = new WeakMap<Direction, DirectionPlan>();
/** Reserves as published, by reserve object and places (Memo: weak by the reserve, one places nearly always). */
const amounts = new Memo<Decimal, number, Decimal>();
/** 1 − margin by the margin's text: a value of the text alone, and configs have a few margins. */
const keeps = new Map<string, Decimal>();

function planOf(direction: Direction): DirectionPlan {
  let plan = plans.get(direction);
  if (!plan) {
    const { from, to, min, max, chain } = direction;
    const money = (limit: Money | undefined) => (limit ? `${limit.value.toString()} ${limit.asset}` : '');
    const limits = [direction.reserve.toString(), from.asset, from.precision, to.asset, to.precision, money(min), money(max)].join('|');
    const margin = direction.margin.toString();
    // Shared by every direction with the same reserve object (a currency's) and places, the factor by margin.
    const amount = amounts.get(direction.reserve, to.precision) ?? amounts.set(direction.reserve, to.precision, roundDown(direction.reserve, to.precision));
    plan = {
      // An explicit chain by its pairs (directions found their chain by assets, which `limits` names).
      group: [chain ? chain.join(',') : '*', margin, from.ratePrecision, to.ratePrecision, limits].join('|'),
      limits,
      amount,
      margin,
      keep: keeps.get(margin) ?? keeps.set(margin, ONE.minus(direction.margin)).get(margin)!,
      // Compared as published: a reserve below the last decimal place would be printed as 0.
      reserveShown: !amount.isZero(),
    };
    plans.set(direction, plan);
  }
  return plan;
}

/** The market rate after a margin, one object per conversion and margin: directions that share them share it. */
const marginRates = new Memo<object, string, Decimal>();

function marginRate(converted: { factor: Decimal }, direction: Direction): Decimal {
  const { margin, keep } = planOf(direction);
  return marginRates.get(converted, margin) ?? marginRates.set(converted, margin, converted.factor.times(keep));
}

/** Terms per quote book and everything else they depend on (the direction's limits key): shared by directions alike. */
const sharedTerms = new WeakMap<QuoteBook, Map<string, LimitTerms>>();

function termsOf(direction: Direction, book: QuoteBook): LimitTerms | { reason: string; kind: WithheldKind } {
  const plan = planOf(direction);
  const key = plan.limits;
  let byKey = sharedTerms.get(book);
  if (!byKey) sharedTerms.set(book, (byKey = new Map()));
  const known = byKey.get(key);
  if (known) return known;
  const { from, to } = direction;
  const terms: LimitTerms = { amount: plan.amount };
  for (const [name, limit] of [['max', direction.max], ['min', direction.min]] as const) {
    if (!limit) continue;
    if (limit.asset === from.asset) terms[`${name}From`] = limit.value;
    else if (limit.asset === to.asset) terms[`${name}To`] = limit.value;
    else {
      // A minimum at the side giving the larger amount, a maximum at the side giving the smaller.
      const converted = limitThroughBook(limit, direction, book, name === 'min', `${name} ${limit.value.toString()} ${limit.asset}>${from.asset}`);
      if (converted === undefined) return { kind: 'quote', reason: `cannot convert ${name} ${limit.value.toFixed()} ${limit.asset} to ${from.asset}: no quotes` };
      terms[`${name}From`] = converted;
    }
  }
  byKey.set(key, terms);
  return terms;
}

/** Published forms per rate object and rate precisions: directions sharing a rate share its form, and the limits at it. */
const publishedForms = new Memo<Decimal, number, PublishedRate>();

/** publishedRate, remembered per rate object and pair of rate precisions. */
export function publishedForm(rate: Decimal, from: Currency, to: Currency): PublishedRate {
  // Precisions are 0..18: one number names the pair.
  const key = from.ratePrecision * 32 + to.ratePrecision;
  return publishedForms.get(rate, key) ?? publishedForms.set(rate, key, publishedRate(rate, from, to));
}

/**
 * Published limits per published rate and terms (terms are shared per limits key, which names the from
 * precision): computed once per distinct pair. Reasons name currency codes, so only limits are shared.
 */
const sharedLimits = new Memo<PublishedRate, LimitTerms, PublishedLimits>();

/**
 * The limits to publish with a rate in its published form, or why there are none. They hold at that rate:
 * the minimum buys at least a minimum set in the to asset, the maximum pays no more than a maximum set in it
 * nor than the published `<amount>`; the minimum rounded up, the maximum down, in the from precision.
 */
export function publishedLimits(direction: Direction, terms: LimitTerms, rate: PublishedRate): PublishedLimits | { reason: string; kind: WithheldKind } {
  const known = sharedLimits.get(rate, terms);
  if (known) return known;
  const limits = limitsAt(direction, terms, rate);
  // Terms live as long as their book, forms as long as their rate: held by the form, they die together.
  if (!('reason' in limits)) sharedLimits.set(rate, terms, limits);
  return limits;
}

function limitsAt(direction: Direction, terms: LimitTerms, rate: PublishedRate): PublishedLimits | { reason: string; kind: WithheldKind } {
  const { from, to } = direction;
  const places = from.precision;
  const capacity = fromUnits(terms.amount, rate, places, false);
  let max = capacity;
  if (terms.maxFrom) max = Decimal.min(max, roundDown(terms.maxFrom, places));
  if (terms.maxTo) max = Decimal.min(max, fromUnits(terms.maxTo, rate, places, false));
  if (max.isZero()) return { kind: 'limits', reason: `maximum order rounds to 0 ${from.code} at ${places} decimals (limit or reserve too small)` };
  const min = terms.minFrom ? roundUp(terms.minFrom, places) : terms.minTo ? fromUnits(terms.minTo, rate, places, true) : undefined;
  if (min === undefined) return { max };
  if (min.greaterThan(max)) {
    if (min.greaterThan(capacity)) return { kind: 'limits', reason: `reserve ${direction.reserve.toFixed()} ${to.code} is below the minimum order ${min.toFixed()} ${from.code}` };
    return { kind: 'limits', reason: `minimum ${min.toFixed()} ${from.code} is above the maximum ${max.toFixed()} ${from.code}` };
  }
  return { min, max };
}

/**
 * An amount of the to asset as from units at a published rate, rounded to `places`: up for a minimum (it
 * buys at least `value`), down for a maximum (it pays at most `value`). Checked back by multiplication, so
 * the division's 40-digit rounding can never tip a limit across the line.
 */
function fromUnits(value: Decimal, rate: PublishedRate, places: number, minimum: boolean): Decimal {
  // A published form has one side exactly 1: no multiplication by it (unless the product's rounding to the
  // working precision changes a longer value), and no division (nor check back) by it.
  const target = rate.in.eq(ONE) && value.sd() <= Decimal.precision ? value : value.times(rate.in);
  if (rate.out.eq(ONE)) return minimum ? roundUp(target, places) : roundDown(target, places);
  const exact = target.div(rate.out);
  if (minimum) {
    const min = roundUp(exact, places);
    return min.times(rate.out).lessThan(target) ? min.plus(unitAt(places)) : min;
  }
  const max = roundDown(exact, places);
  return max.times(rate.out).greaterThan(target) ? max.minus(unitAt(places)) : max;
}

/** One unit of the last decimal place. */
const unitAt = (places: number): Decimal => new Decimal(1).div(new Decimal(10).pow(places));

/** What every direction of a group gets from one book: the work of its first direction, shared. */
type GroupPrice = Pick<PricedDirection, 'steps' | 'market' | 'rate' | 'terms' | 'min' | 'max'>;

/**
 * Group prices per quote book (a book is a new Map per build, never changed once priced), by plan group.
 * `null`: the group's first direction was withheld; each of its directions is then priced alone, since
 * reasons name currency codes and a group shares only numbers.
 */
const groupPrices = new WeakMap<QuoteBook, Map<string, GroupPrice | null>>();

/** Price one direction, or say why it cannot be published: once per group and book, the rest shared. */
export function priceDirection(direction: Direction, book: QuoteBook): PricedDirection | WithheldDirection {
  return priceInGroup(direction, book, groupsOf(book));
}

function groupsOf(book: QuoteBook): Map<string, GroupPrice | null> {
  let byGroup = groupPrices.get(book);
  if (!byGroup) groupPrices.set(book, (byGroup = new Map()));
  return byGroup;
}

function priceInGroup(direction: Direction, book: QuoteBook, byGroup: Map<string, GroupPrice | null>): PricedDirection | WithheldDirection {
  const { group } = planOf(direction);
  const known = byGroup.get(group);
  if (known === null) return priceAlone(direction, book);
  if (known !== undefined) {
    const { steps, market, rate, terms, min, max } = known;
    const priced: PricedDirection = min === undefined ? { direction, steps, market, rate, terms, max } : { direction, steps, market, rate, terms, min, max };
    if (direction.tiers !== undefined) priced.tierRates = tierRates(direction.tiers, market);
    return priced;
  }
  const result = priceAlone(direction, book);
  byGroup.set(group, 'reason' in result ? null : result);
  return result;
}

/** Price one direction step by step: the reference the group path shares the results of. */
function priceAlone(direction: Direction, book: QuoteBook): PricedDirection | WithheldDirection {
  const withhold = (kind: WithheldKind, reason: string): WithheldDirection => ({ direction, kind, reason });
  const { from, to } = direction;
  const chain = direction.chain ?? findChain(book, from.asset, to.asset);
  if (!chain) return withhold('quote', `no quotes lead from ${from.asset} to ${to.asset}`);
  const converted = conversion(book, chain, from.asset);
  if ('missing' in converted) return withhold('quote', `no quote for ${converted.missing}`);
  const market = converted.factor;
  const rate = marginRate(converted, direction);
  if (!rate.isFinite() || rate.lessThanOrEqualTo(0)) return withhold('sanity', `rate ${rate.toFixed()} is not positive`);
  if (!planOf(direction).reserveShown) return withhold('limits', `no reserve of ${to.code} (${direction.reserve.toFixed()} at ${to.precision} decimals)`);
  const terms = termsOf(direction, book);
  if ('reason' in terms) return withhold(terms.kind, terms.reason);
  // Withheld when its limits fail at its own published rate; an export with a markup checks again at its rate.
  const limits = publishedLimits(direction, terms, publishedForm(rate, from, to));
  if ('reason' in limits) return withhold(limits.kind, limits.reason);
  const priced: PricedDirection = { direction, steps: converted.steps, market, rate, terms, ...(limits.min === undefined ? {} : { min: limits.min }), max: limits.max };
  if (direction.tiers !== undefined) priced.tierRates = tierRates(direction.tiers, market);
  return priced;
}

/** The rates of a direction's amount tiers: the market after each tier's margin (src/exports/tiers.ts publishes them). */
function tierRates(tiers: NonNullable<Direction['tiers']>, market: Decimal): Decimal[] {
  return tiers.map((tier) => market.times(ONE.minus(tier.margin)));
}

export function priceDirections(directions: readonly Direction[], book: QuoteBook): { priced: PricedDirection[]; withheld: WithheldDirection[] } {
  const priced: PricedDirection[] = [];
  const withheld: WithheldDirection[] = [];
  const byGroup = groupsOf(book);
  for (const direction of directions) {
    const result = priceInGroup(direction, book, byGroup);
    if ('reason' in result) withheld.push(result);
    else priced.push(result);
  }
  return { priced, withheld };
}

/**
 * The published form of a rate (to units per from unit): one side exactly 1, the other ≥ 1, rounded against
 * the client to the rate precision of the currency that side counts: `out` down, `in` up.
 */
export function publishedRate(rate: Decimal, from: Currency, to: Currency): { in: Decimal; out: Decimal } {
  // Decimals are immutable: every form shares the one 1.
  if (rate.greaterThanOrEqualTo(ONE)) return { in: ONE, out: roundDown(rate, to.ratePrecision) };
  return { in: roundUp(ONE.div(rate), from.ratePrecision), out: ONE };
}
