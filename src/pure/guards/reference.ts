// referenceDirections: a direction whose market one source alone could set (a plain quote, a formula's term, a
// consensus too thin to outvote it) is compared with what else the build can tell of the same market, independent
// of every such source: other sources' quotes of each pair it sets, a consensus's other terms, a cross through other
// sources' quotes, or BestChange rivals' median rate for the direction. Past the band it is withheld (kind
// `reference`). Between compete and the guards; docs/pricing-and-guards.md says what it can and cannot catch. Pure.
import { Decimal } from '../../base/decimal.js';
import { percent, show } from '../../base/words.js';
import type { ReferenceSettings } from '../../model/config.js';
import type { ChainStep, PricedDirection, ReferenceCheck, WithheldDirection } from '../../model/priced.js';
import type { QuoteBook } from '../../model/source.js';
import { marketOf, type SourceQuotes } from '../rates/book.js';
import type { Derivation } from '../rates/derivation.js';
import type { Sides } from '../rates/evaluate.js';
import { bookExposures, type BookExposures, type Exposure } from '../rates/exposure.js';
import { QuoteReferences } from './reference-quotes.js';
import { RivalReferences, type RivalFeed } from './reference-rivals.js';

export type { RivalFeed } from './reference-rivals.js';

export interface ReferenceInput {
  priced: readonly PricedDirection[];
  /** Every source's fresh quotes this build and its failure (what the book was made of). */
  lists: readonly SourceQuotes[];
  derivations: readonly Derivation[];
  book: QuoteBook;
  /** The bestchange sources as the build read them, in config order. */
  feeds: readonly RivalFeed[];
  settings: ReferenceSettings;
}

/**
 * Directions one source alone could set, priced alike (one chain, one check), with their reference when they had one
 * (published or not): a group per chain and check, so 10,000 directions make as many as the config has asset pairs.
 */
export interface SoleSource {
  /** In config order. */
  directions: PricedDirection[];
  /** The sources that alone could set them, in config order. */
  sources: readonly string[];
  /** The pairs they set: `USDT/RUB (p2p)`. */
  pairs: readonly string[];
  reference?: ReferenceCheck;
}

export interface ReferenceResult {
  /** Passed on to the guards; each with `reference` when it had one. */
  priced: PricedDirection[];
  withheld: WithheldDirection[];
  /** Every direction priced into this step, with `reference` when it had one, in order: what `explain` shows. */
  checked: PricedDirection[];
  soleSource: SoleSource[];
}

const ONE = new Decimal(1);

/** What a chain (a steps array, shared by the directions priced alike) is set by, and its reference from quotes. */
interface ChainCheck {
  sources: string[];
  pairs: string[];
  /** The chain's market with each step one source sets replaced by its reference; absent: no step has one. */
  value?: Decimal;
  from?: string;
  /** Steps one source sets without a reference. */
  unchecked: string[];
  /** The largest of the referenced pairs' own bands (`guards.reference.pairs`). */
  pairBand?: Decimal;
}

export function referenceDirections(input: ReferenceInput): ReferenceResult {
  const exposures = bookExposures(input.book, input.derivations);
  const order = new Ordered(new Map(input.lists.map((list, index) => [list.source, index])));
  const quotes = new QuoteReferences(input.lists, input.derivations, input.book, exposures);
  const checks = new Checks(new RivalReferences(input.feeds, input.settings.rivals), input.settings);
  const chains = new Map<readonly ChainStep[], ChainCheck>();
  // A check is one chain's (its market is the chain's): a group by its check, or by its chain when it has none.
  const groups = new Map<object, SoleSource>();
  const result: ReferenceResult = { priced: [], withheld: [], checked: [], soleSource: [] };
  for (const priced of input.priced) {
    let chain = chains.get(priced.steps);
    if (!chain) chains.set(priced.steps, (chain = chainCheck(priced.steps, exposures, quotes, order, input.settings)));
    result.checked.push(priced);
    if (chain.sources.length === 0) {
      result.priced.push(priced);
      continue;
    }
    const reference = checks.of(priced, chain);
    // Each build prices anew (a new object per direction): the step sets the check on it, for the guards and the status.
    if (reference) priced.reference = reference;
    const group = groups.get(reference ?? chain);
    if (group) group.directions.push(priced);
    else {
      const made: SoleSource = { directions: [priced], sources: chain.sources, pairs: chain.pairs };
      if (reference) made.reference = reference;
      groups.set(reference ?? chain, made);
      result.soleSource.push(made);
    }
    if (reference && checks.past(reference))
      result.withheld.push({
        direction: priced.direction,
        kind: 'reference',
        reason: reasonOf(priced, reference),
        reference,
      });
    else result.priced.push(priced);
  }
  return result;
}

/**
 * The checks of one build, one object per market, reference and band: 10,000 directions priced alike share a
 * handful (a check is read only), and a deviation is divided once for them all.
 */
class Checks {
  private readonly known = new Map<Decimal, Map<object, Map<Decimal, ReferenceCheck>>>();
  private readonly beyond = new Set<ReferenceCheck>();

  constructor(
    private readonly rivals: RivalReferences,
    private readonly settings: ReferenceSettings,
  ) {}

  /** The quotes' reference when it covers every step one source sets, else the rivals', else what the quotes cover. */
  of(priced: PricedDirection, chain: ChainCheck): ReferenceCheck | undefined {
    const { direction, market } = priced;
    const whole = chain.value !== undefined && chain.unchecked.length === 0;
    const field = whole ? undefined : this.rivals.of(direction);
    if (!field && chain.value === undefined) return undefined;
    const band = direction.referenceBand ?? (field ? this.settings.rivalsBand : (chain.pairBand ?? this.settings.band));
    const bySource = this.known.get(market) ?? this.known.set(market, new Map()).get(market)!;
    const source: object = field ?? chain;
    const byBand = bySource.get(source) ?? bySource.set(source, new Map()).get(source)!;
    const known = byBand.get(band);
    if (known) return known;
    const value = field ? field.value : chain.value!;
    const check: ReferenceCheck = {
      value,
      from: field ? field.from : chain.from!,
      deviation: market.minus(value).abs().div(value),
      band,
      sources: chain.sources,
      pairs: chain.pairs,
      ...(field || chain.unchecked.length === 0 ? {} : { unchecked: chain.unchecked }),
    };
    byBand.set(band, check);
    if (check.deviation.greaterThan(band)) this.beyond.add(check);
    return check;
  }

  /** Further from its reference than its band. */
  past = (check: ReferenceCheck) => this.beyond.has(check);
}

/** `its market 98938.6 (USDT/RUB from p2p) is 99900% from 98.94 (bybit:USDT/RUB), past its band of 3%`. */
function reasonOf(priced: PricedDirection, reference: ReferenceCheck): string {
  const off = percent(reference.deviation.toSignificantDigits(3));
  return `its market ${show(priced.market)} (${reference.pairs.join(', ')}) is ${off} from its reference ${show(reference.value)} (${reference.from}), past its band of ${percent(reference.band)}`;
}

/**
 * Which sources can set the chain alone, and the chain's market again with each such step's quote replaced by a
 * reference none of them moves (a protected step, such as a consensus of three, keeps its own quote).
 */
function chainCheck(
  steps: readonly ChainStep[],
  exposures: BookExposures,
  quotes: QuoteReferences,
  order: Ordered,
  settings: ReferenceSettings,
): ChainCheck {
  const exposed = steps.map((step) => order.sorted(exposures.exposure(step.quote)));
  const avoid = new Set(exposed.flat());
  if (avoid.size === 0) return { sources: [], pairs: [], unchecked: [] };
  const sources = order.sorted(avoid);
  const avoidKey = sources.join(',');
  const pairs: string[] = [];
  const unchecked: string[] = [];
  const found: string[] = [];
  let pairBand: Decimal | undefined;
  const many = exposed.filter((setters) => setters.length > 0).length > 1;
  // Each step's sides in the reference: its own quote where no one source sets it, else the reference of its market.
  const sides: Sides[] = steps.map((step, index) => {
    const setters = exposed[index]!;
    if (setters.length === 0) return step.quote;
    const named = `${step.quote.pair} (${setters.join(', ')})`;
    pairs.push(named);
    const reference = quotes.of(step.quote, avoid, avoidKey);
    if (!reference) {
      unchecked.push(named);
      return step.quote;
    }
    found.push(many ? `${step.quote.pair}: ${reference.from}` : reference.from);
    const band = settings.pairs.size === 0 ? undefined : settings.pairs.get(marketOf(step.quote));
    if (band && (!pairBand || band.greaterThan(pairBand))) pairBand = band;
    return reference.sides;
  });
  const check: ChainCheck = { sources, pairs, unchecked, ...(pairBand ? { pairBand } : {}) };
  if (found.length === 0) return check;
  // As convertAlong does: the bid selling the quote's base, one over the ask buying it.
  let factor = ONE;
  steps.forEach((step, index) => {
    factor = step.side === 'bid' ? factor.times(sides[index]!.bid) : factor.div(sides[index]!.ask);
  });
  return { ...check, value: factor, from: found.join('; ') };
}

/** Source names in config order, each set sorted once (a build's exposures are shared sets). */
class Ordered {
  private readonly sortedSets = new WeakMap<Exposure, string[]>();

  constructor(private readonly order: ReadonlyMap<string, number>) {}

  sorted(sources: Exposure): string[] {
    const known = this.sortedSets.get(sources);
    if (known) return known;
    const rank = (name: string) => this.order.get(name) ?? Number.MAX_SAFE_INTEGER;
    const sorted = [...sources].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
    this.sortedSets.set(sources, sorted);
    return sorted;
  }
}
