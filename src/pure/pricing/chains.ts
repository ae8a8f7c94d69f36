// Chain search through the quote book: the shortest chain of pairs from one asset to another, priorities breaking ties. Pure.
import type { QuoteBook } from '../../model/source.js';

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

/** Per quote book: its shape, so 10,000 directions search once per asset pair. */
const shapes = new WeakMap<QuoteBook, BookShape>();

function shapeOf(book: QuoteBook): BookShape {
  const cached = shapes.get(book);
  if (cached) return cached;
  const pairs = [...book.keys()].sort();
  // JSON: no pair's text can run into the next one's.
  const key = JSON.stringify(
    pairs.map((pair) => [pair, book.get(pair)!.base, book.get(pair)!.quote, book.get(pair)!.priority ?? 0]),
  );
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
  shapes.set(book, shape);
  return shape;
}

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
  const { graph, prioritized, chains } = shapeOf(book);
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
