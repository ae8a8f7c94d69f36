// The reference of one market from the build's other quotes: other sources' quotes of it and a consensus's other
// terms (their median), else a cross through other sources' quotes. Never through a source it must be independent
// of, nor through one failing this build: a stand-in of the last good quotes is no reference. Pure.
import { Decimal } from '../../base/decimal.js';
import type { Quote, QuoteBook } from '../../model/source.js';
import { bookOf, marketOf, type SourceQuotes } from '../rates/book.js';
import { combine } from '../rates/consensus.js';
import type { Derivation } from '../rates/derivation.js';
import { oriented, type Sides } from '../rates/evaluate.js';
import type { BookExposures, Exposure } from '../rates/exposure.js';
import { convertAlong } from '../pricing/convert.js';

const ONE = new Decimal(1);

/** A market's reference, its sides oriented as the quote under test (its base first). */
export interface QuoteReference {
  sides: Sides;
  /** `bybit:BTC/USDT`, `median of bybit:BTC/USDT, okx:BTC/USDT`, `cross okx:BTC/EUR × ecb:EUR/USD`. */
  from: string;
}

/** The longest cross looked for: three quotes (BTC/EUR × EUR/USD × USD/USDT). */
const maxCross = 3;

/** How a quote is named in a reference: `source:PAIR`, a made pair by its pair and how it was made. */
const named = (quote: Quote) => (quote.ruled ? `${quote.pair} (${quote.source})` : `${quote.source}:${quote.pair}`);

const meets = (a: Exposure, b: ReadonlySet<string>) => [...a].some((source) => b.has(source));

/** Valid sides: both positive and finite. */
const usable = (sides: Sides) => sides.bid.isFinite() && sides.ask.isFinite() && sides.bid.gt(0) && sides.ask.gt(0);

/** A reference book and its graph of assets, for one set of sources avoided. */
interface CrossBook {
  book: Map<string, Quote>;
  graph: AssetGraph;
}

/** The references of one build's markets, each worked out once per market and set of sources avoided. */
export class QuoteReferences {
  private readonly failing: ReadonlySet<string>;
  /** Every source's fresh quotes by market, in config order. */
  private readonly byMarket = new Map<string, Quote[]>();
  private readonly derivations: ReadonlyMap<string, Derivation>;
  private readonly known = new Map<string, QuoteReference | undefined>();
  private readonly crossBooks = new Map<string, CrossBook>();

  constructor(
    private readonly lists: readonly SourceQuotes[],
    derivations: readonly Derivation[],
    private readonly book: QuoteBook,
    private readonly exposures: BookExposures,
  ) {
    this.failing = new Set(lists.filter((list) => list.error !== undefined).map((list) => list.source));
    for (const list of lists) {
      if (this.failing.has(list.source)) continue;
      for (const quote of list.quotes) {
        const market = marketOf(quote);
        (this.byMarket.get(market) ?? this.byMarket.set(market, []).get(market)!).push(quote);
      }
    }
    this.derivations = new Map(derivations.map((derivation) => [derivation.pair, derivation]));
  }

  /** The reference of `quote`'s market that none of `avoid` can move; undefined when the build has none. */
  of(quote: Quote, avoid: Exposure, avoidKey: string): QuoteReference | undefined {
    // A book has one quote per market: its pair names the market and its orientation.
    const key = `${quote.pair}|${avoidKey}`;
    if (this.known.has(key)) return this.known.get(key);
    const found = this.direct(quote, avoid) ?? this.cross(quote, avoid, avoidKey);
    this.known.set(key, found);
    return found;
  }

  /** Other sources' quotes of the market and the consensus's other terms, as their median. */
  private direct(quote: Quote, avoid: Exposure): QuoteReference | undefined {
    const candidates: QuoteReference[] = [];
    for (const other of this.byMarket.get(marketOf(quote)) ?? []) {
      if (avoid.has(other.source)) continue;
      const sides = oriented(other, quote);
      if (usable(sides)) candidates.push({ sides, from: named(other) });
    }
    const derivation = quote.ruled ? this.derivations.get(quote.pair) : undefined;
    if (derivation?.rule.kind === 'consensus')
      for (const term of derivation.terms) {
        // A term that is one source's quote of the pair is among the quotes above already.
        const single =
          term.quotes.length === 1 && !term.quotes[0]!.ruled && marketOf(term.quotes[0]!) === marketOf(quote);
        if (term.status !== 'used' || single || term.bid === undefined || term.ask === undefined) continue;
        if (
          term.quotes.some(
            (q) => meets(this.exposures.exposure(q), avoid) || meets(this.exposures.inputs(q), this.failing),
          )
        )
          continue;
        const sides = { bid: term.bid, ask: term.ask };
        if (usable(sides)) candidates.push({ sides, from: term.label });
      }
    if (candidates.length === 0) return undefined;
    if (candidates.length === 1) return candidates[0];
    return {
      sides: combine(
        'median',
        candidates.map((c) => c.sides),
      ),
      from: `median of ${candidates.map((c) => c.from).join(', ')}`,
    };
  }

  /** A cross through other sources' quotes (and made pairs none of `avoid` moves), shortest first. */
  private cross(quote: Quote, avoid: Exposure, avoidKey: string): QuoteReference | undefined {
    const { book, graph } = this.crossBook(avoid, avoidKey);
    const path = shortestPath(graph, quote.base, quote.quote, maxCross, marketOf(quote));
    if (!path) return undefined;
    const there = convertAlong(book, path, quote.base);
    const back = convertAlong(book, [...path].reverse(), quote.quote);
    if ('missing' in there || 'missing' in back) return undefined;
    const sides = { bid: there.factor, ask: ONE.div(back.factor) };
    if (!usable(sides)) return undefined;
    return { sides, from: `cross ${there.steps.map((step) => named(step.quote)).join(' × ')}` };
  }

  private crossBook(avoid: Exposure, avoidKey: string): CrossBook {
    const known = this.crossBooks.get(avoidKey);
    if (known) return known;
    const kept = this.lists.filter((list) => !avoid.has(list.source) && !this.failing.has(list.source));
    const book = bookOf(kept.map((list) => list.quotes));
    for (const made of this.book.values()) {
      if (!made.ruled || made.missing !== undefined) continue;
      if (meets(this.exposures.exposure(made), avoid) || meets(this.exposures.inputs(made), this.failing)) continue;
      // One quote per market: the made pair in place of a source's quote of it, as in the build's book.
      const other = `${made.quote}/${made.base}`;
      book.delete(other);
      book.set(made.pair, made);
    }
    const graph: CrossBook['graph'] = new Map();
    for (const pair of [...book.keys()].sort()) {
      const { base, quote } = book.get(pair)!;
      const market = marketOf({ base, quote });
      (graph.get(base) ?? graph.set(base, []).get(base)!).push({ pair, next: quote, market });
      (graph.get(quote) ?? graph.set(quote, []).get(quote)!).push({ pair, next: base, market });
    }
    const made = { book, graph };
    this.crossBooks.set(avoidKey, made);
    return made;
  }
}

/** Assets and the pairs between them, each pair under both of its assets, sorted by pair. */
export type AssetGraph = Map<string, { pair: string; next: string; market: string }[]>;

/**
 * The shortest way of at most `steps` pairs from one asset to another, not through `market` itself; among equally
 * short ones the first by pair names (the graph's lists are sorted). Breadth first, each asset once.
 */
export function shortestPath(
  graph: AssetGraph,
  from: string,
  to: string,
  steps: number,
  market?: string,
): string[] | undefined {
  const previous = new Map<string, { asset: string; pair: string } | null>([[from, null]]);
  let frontier = [from];
  for (let step = 0; step < steps && frontier.length > 0 && !previous.has(to); step++) {
    const next: string[] = [];
    for (const asset of frontier)
      for (const edge of graph.get(asset) ?? []) {
        if (previous.has(edge.next) || edge.market === market) continue;
        previous.set(edge.next, { asset, pair: edge.pair });
        next.push(edge.next);
      }
    frontier = next;
  }
  if (!previous.has(to)) return undefined;
  const path: string[] = [];
  for (let at = previous.get(to); at; at = previous.get(at.asset)) path.unshift(at.pair);
  return path;
}
