// From the config alone (`ratefile validate`): which directions one source alone can set — the pairs each source
// lists (a source without a `pairs` list, like a quotes file, may quote any pair), the pairs of `rates:` and what
// their terms read — and what could check each: another source of the pair, a consensus's other terms, a cross
// through other sources' pairs, a BestChange feed. The build says what did (reference.ts). Pure.
import { quotesOf } from '../../base/config/formula.js';
import type { Config, Direction, SourceConfig } from '../../model/config.js';
import type { RateRule } from '../../model/rates.js';
import { marketOf } from '../rates/book.js';
import { type Exposure, ruleExposure } from '../rates/exposure.js';
import type { SoleSourceEntry } from '../status/sole-source.js';
import { type AssetGraph, shortestPath } from './reference-quotes.js';

/** A source as the config lists it: the pairs it names (`any`: none listed), its rank in the book. */
interface Lister {
  name: string;
  pairs: readonly string[] | 'any';
  priority: number;
  order: number;
}

const pairsOf = (source: SourceConfig): readonly string[] | 'any' => {
  const pairs = source.options.pairs;
  if (Array.isArray(pairs)) return pairs as string[];
  return typeof pairs === 'object' && pairs !== null ? Object.keys(pairs) : 'any';
};

const marketOfPair = (pair: string) => {
  const [base = '', quote = ''] = pair.split('/');
  return marketOf({ base, quote });
};

/** The markets the config can price, who may set each alone, and what they would be checked against. */
class ConfigMarkets {
  private readonly listers: Lister[];
  private readonly rules = new Map<string, RateRule>();
  private readonly exposures = new Map<string, Exposure>();
  /** Each market's pair as first written (a source's list, a rule), for people. */
  private readonly written = new Map<string, string>();
  readonly feeds: string[];

  constructor(config: Pick<Config, 'sources' | 'rates'>) {
    this.feeds = config.sources.filter((source) => source.type === 'bestchange').map((source) => source.name);
    this.listers = config.sources
      .filter((source) => source.type !== 'bestchange')
      .map((source, order) => ({
        name: source.name,
        pairs: pairsOf(source),
        priority: typeof source.options.priority === 'number' ? source.options.priority : 0,
        order,
      }))
      .sort((a, b) => b.priority - a.priority || a.order - b.order);
    for (const rule of config.rates) this.rules.set(marketOf(rule), rule);
    for (const lister of this.listers) if (lister.pairs !== 'any') for (const pair of lister.pairs) this.name(pair);
    for (const rule of config.rates) this.name(rule.pair);
  }

  private name(pair: string): void {
    if (!this.written.has(marketOfPair(pair))) this.written.set(marketOfPair(pair), pair);
  }

  pairText = (market: string, fallback: string) => this.written.get(market) ?? fallback;

  /** Sources that may quote a market: those listing it, and those listing nothing (a file may hold any pair). */
  candidates(market: string): Lister[] {
    return this.listers.filter((l) => l.pairs === 'any' || l.pairs.some((pair) => marketOfPair(pair) === market));
  }

  ruled = (market: string) => this.rules.get(market);

  /** Source names in config order. */
  inOrder(sources: Exposure): string[] {
    const order = new Map(this.listers.map((l) => [l.name, l.order]));
    return [...sources].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  }

  /** Who alone may set a market: a rule's exposure; else whichever candidate wins the book (any before the first lister). */
  exposure(market: string): Exposure {
    const known = this.exposures.get(market);
    if (known) return known;
    const rule = this.rules.get(market);
    let found: Exposure;
    if (rule) found = ruleExposure(rule, (r) => this.termSources(r));
    else {
      const candidates = this.candidates(market);
      const first = candidates.findIndex((c) => c.pairs !== 'any');
      found = new Set(candidates.slice(0, first === -1 ? candidates.length : first + 1).map((c) => c.name));
    }
    this.exposures.set(market, found);
    return found;
  }

  /** Each term's sources: a `source:PAIR` is that source, a bare pair whoever sets that market. */
  termSources(rule: RateRule): Exposure[] {
    const formulas = rule.kind === 'formula' ? [rule.formula] : rule.terms.map((term) => term.formula);
    return formulas.map(
      (formula) =>
        new Set(
          quotesOf(formula.node).flatMap((ref) =>
            ref.source === undefined ? [...this.exposure(marketOf(ref))] : [ref.source],
          ),
        ),
    );
  }

  /** Markets as a graph, for chains and crosses: every market some source lists or a rule makes (pairs as written). */
  graph(usable: (market: string) => boolean): AssetGraph {
    const graph: AssetGraph = new Map();
    for (const [market, pair] of [...this.written].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (!usable(market)) continue;
      const [a = '', b = ''] = pair.split('/');
      (graph.get(a) ?? graph.set(a, []).get(a)!).push({ pair, next: b, market });
      (graph.get(b) ?? graph.set(b, []).get(b)!).push({ pair, next: a, market });
    }
    return graph;
  }
}

/** One step of a direction's market as the config tells it: a market, and how people read it. */
interface Step {
  market: string;
  pair: string;
  /** Set only by sources without a pairs list: whatever of their quotes the build finds leads there. */
  unlisted?: true;
}

/** The steps a direction's market goes through, as the config lets one tell; undefined when only a build can. */
function chainOf(markets: ConfigMarkets, direction: Direction): Step[] | undefined {
  const { from, to, chain } = direction;
  const step = (pair: string): Step => ({ market: marketOfPair(pair), pair });
  if (from.asset === to.asset) return [];
  if (chain) return chain.map(step);
  const direct = marketOf({ base: from.asset, quote: to.asset });
  if (markets.ruled(direct) || markets.candidates(direct).some((c) => c.pairs !== 'any'))
    return [step(markets.pairText(direct, `${from.asset}/${to.asset}`))];
  const path = shortestPath(
    markets.graph(() => true),
    from.asset,
    to.asset,
    4,
  );
  if (path) return path.map(step);
  // Only sources listing no pairs can lead there: a quote of the pair itself, or a chain of theirs.
  if (markets.candidates(direct).length > 0)
    return [{ market: direct, pair: `${from.asset} to ${to.asset}`, unlisted: true }];
  return undefined;
}

/** What could check a market none of `avoid` can move: other sources of it, a consensus's other terms, a cross. */
function possibleReference(markets: ConfigMarkets, market: string, avoid: Exposure): string | undefined {
  const pair = markets.pairText(market, market);
  const others = markets
    .candidates(market)
    .filter((c) => !avoid.has(c.name))
    .map((c) => (c.pairs === 'any' ? `${c.name}:${pair} (if it quotes it)` : `${c.name}:${pair}`));
  const rule = markets.ruled(market);
  if (rule?.kind === 'consensus') {
    const terms = markets.termSources(rule);
    rule.terms.forEach((term, index) => {
      const sources = terms[index]!;
      const single = quotesOf(term.formula.node).length === 1 && [...sources].length === 1;
      if (!single && ![...sources].some((s) => avoid.has(s))) others.push(term.label);
    });
  }
  if (others.length > 0) return others.join(', ');
  const [base = '', quote = ''] = market.split('/');
  const usable = (m: string) => m !== market && ![...markets.exposure(m)].some((s) => avoid.has(s));
  const path = shortestPath(markets.graph(usable), base, quote, 3, market);
  return path ? `cross ${path.join(' × ')}` : undefined;
}

/** The directions one source alone can set, from the config alone, in config order. */
export function configSoleSource(config: Pick<Config, 'sources' | 'rates' | 'directions'>): SoleSourceEntry[] {
  const markets = new ConfigMarkets(config);
  const entries: SoleSourceEntry[] = [];
  for (const direction of config.directions) {
    const chain = chainOf(markets, direction);
    if (!chain) continue;
    const setters = chain.map((step) => markets.inOrder(markets.exposure(step.market)));
    const avoid = new Set(setters.flat());
    if (avoid.size === 0) continue;
    const many = setters.filter((s) => s.length > 0).length > 1;
    const pairs: string[] = [];
    const found: string[] = [];
    const unchecked: string[] = [];
    chain.forEach((step, index) => {
      if (setters[index]!.length === 0) return;
      const named = step.unlisted
        ? `${step.pair} (quotes of ${setters[index]!.join(', ')})`
        : `${step.pair} (${setters[index]!.join(', ')})`;
      pairs.push(named);
      const reference = step.unlisted ? undefined : possibleReference(markets, step.market, avoid);
      if (reference) found.push(many ? `${step.pair}: ${reference}` : reference);
      else unchecked.push(named);
    });
    const feed = markets.feeds[0];
    const reference =
      unchecked.length > 0 && feed !== undefined
        ? `BestChange rivals on ${feed} (where its feed lists the direction)`
        : found.length > 0
          ? found.join('; ')
          : undefined;
    entries.push({
      ids: [direction.id],
      pairs,
      sources: markets.inOrder(avoid),
      ...(reference === undefined ? {} : { reference }),
      ...(unchecked.length > 0 && feed === undefined && found.length > 0 ? { unchecked } : {}),
    });
  }
  return entries;
}
