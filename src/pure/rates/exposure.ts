// Which sources can set a quote alone: a source's own quote is its alone; a formula is every source it reads; a
// consensus is the sources that, gone wrong on their own, could still move its result (too few other fresh terms
// to outvote or drop them). Read by the reference (src/pure/guards/reference.ts) and `ratefile validate`. Pure.
import type { ConsensusRule, RateRule } from '../../model/rates.js';
import type { Quote, QuoteBook } from '../../model/source.js';
import type { Derivation } from './derivation.js';

/** The sources each of which, gone wrong alone, could set a value: none when a consensus keeps any one out. */
export type Exposure = ReadonlySet<string>;

const none: Exposure = new Set();

/**
 * Whether one source in `k` of a consensus's `n` fresh terms can move its result. Fewer fresh terms than the quorum
 * (or than the 3 a trimmed mean needs) make no result at all. With a spread limit a term far from the median is
 * dropped while a quorum remains, so a source moves the result only when its terms are at least half of them and
 * a quorum by themselves (two terms that disagree make nothing: neither is furthest). Without one, a median follows a source with half the
 * terms, a trimmed mean one with two, and a mean or the worst side any term.
 */
export function oneSourceMoves(rule: ConsensusRule, n: number, k: number): boolean {
  if (k === 0 || n < rule.quorum || (rule.method === 'trimmed' && n < 3)) return false;
  if (k >= n) return true;
  // Outvoted terms are dropped only while a quorum (and a trimmed mean's 3) is left: the source's own must be that many.
  if (rule.spread !== undefined)
    return (2 * k > n || (2 * k === n && n > 2)) && k >= rule.quorum && (rule.method !== 'trimmed' || k >= 3);
  if (rule.method === 'median') return 2 * k >= n;
  if (rule.method === 'trimmed') return k >= 2;
  return true;
}

/** The sources that can move a consensus whose fresh terms each depend on these sources (one exposure per term). */
export function consensusExposure(
  rule: ConsensusRule,
  fresh: readonly Exposure[],
  counts?: readonly number[],
): Exposure {
  const sources = new Set(fresh.flatMap((term) => [...term]));
  const exposed = new Set<string>();
  // A build knows how many terms are fresh; the config alone, any number from the quorum to all of them.
  const possible = counts ?? [fresh.length];
  for (const source of sources) {
    const k = fresh.filter((term) => term.has(source)).length;
    if (possible.some((n) => oneSourceMoves(rule, n, Math.min(k, n)))) exposed.add(source);
  }
  return exposed;
}

const union = (exposures: Iterable<Exposure>): Exposure => {
  const all = new Set<string>();
  for (const exposure of exposures) for (const source of exposure) all.add(source);
  return all.size === 0 ? none : all;
};

/** What a build's quotes depend on: the sources that can set each alone, and every source each reads. */
export interface BookExposures {
  exposure(quote: Quote): Exposure;
  /** Every source a quote was made from (a made quote: its used terms' sources, whatever their weight). */
  inputs(quote: Quote): Exposure;
}

/**
 * The exposures of a build's quotes: a source's quote is its own; a made quote (`ruled`) as its derivation says,
 * derivations in the order they were made, so a term reading an earlier ruled pair reads its exposure.
 */
export function bookExposures(book: QuoteBook, derivations: readonly Derivation[]): BookExposures {
  const made = new Map<Quote, { exposure: Exposure; inputs: Exposure }>();
  // A source's own quote: that source, one set per source.
  const own = new Map<string, Exposure>();
  const alone = (source: string) => own.get(source) ?? own.set(source, new Set([source])).get(source)!;
  const exposure = (quote: Quote): Exposure => made.get(quote)?.exposure ?? alone(quote.source);
  const inputs = (quote: Quote): Exposure => made.get(quote)?.inputs ?? alone(quote.source);
  for (const derivation of derivations) {
    const quote = book.get(derivation.pair);
    if (!quote?.ruled || quote.missing !== undefined) continue;
    const fresh = derivation.terms.filter((term) => term.status !== 'missing');
    const terms = fresh.map((term) => union(term.quotes.map(exposure)));
    const used = derivation.terms.filter((term) => term.status === 'used');
    made.set(quote, {
      exposure: derivation.rule.kind === 'formula' ? union(terms) : consensusExposure(derivation.rule, terms),
      inputs: union(used.flatMap((term) => term.quotes.map(inputs))),
    });
  }
  return { exposure, inputs };
}

/**
 * A rule's exposure from the config alone: each term's sources (a bare pair: the exposure `setters` gives it), and
 * for a consensus every number of fresh terms its quorum allows.
 */
export function ruleExposure(rule: RateRule, termSources: (rule: RateRule) => Exposure[]): Exposure {
  const terms = termSources(rule);
  if (rule.kind === 'formula') return union(terms);
  const counts = Array.from({ length: terms.length - rule.quorum + 1 }, (_, index) => rule.quorum + index);
  return consensusExposure(rule, terms, counts);
}
