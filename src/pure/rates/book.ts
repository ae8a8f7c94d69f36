// The quote book a build prices from: one quote per market from the sources (the higher priority, then the source
// listed first), then each pair of `rates:` made in its order — by its formula or its consensus — in place of any
// source's quote of that market. A ruled pair that cannot be made stays in the book as missing, with the reason,
// so a chain through it fails with that reason instead of going round it. Pure.
import { Decimal } from '../../base/decimal.js';
import type { QuoteRef } from '../../base/config/formula.js';
import { age } from '../../base/words.js';
import type { ConsensusRule, FormulaRule, RateRule } from '../../model/rates.js';
import type { Derivation, TermOutcome } from './derivation.js';
import type { Quote, QuoteBook } from '../../model/source.js';
import { consensusOf, type FreshTerm } from './consensus.js';
import { evaluate, oldest, type QuoteLookup, type Sides } from './evaluate.js';
import { answersBehind } from './answers.js';

/** One source's part of a build: its fresh quotes, those past its maxAge, and why it failed, if it did. */
export interface SourceQuotes {
  source: string;
  quotes: readonly Quote[];
  stale?: readonly Quote[];
  error?: string;
}

/** The pair as an unordered market, so `USDT/RUB` and `RUB/USDT` compete for one place in the book. */
export const marketOf = (pair: { base: string; quote: string }): string => [pair.base, pair.quote].sort().join('/');

/** One quote per market (config order, so among equal priorities the source listed first keeps the market), by pair. */
export function bookOf(
  lists: readonly (readonly Quote[])[],
  except: ReadonlySet<string> = new Set(),
): Map<string, Quote> {
  const winners = new Map<string, Quote>();
  for (const quotes of lists) {
    for (const quote of quotes) {
      const market = marketOf(quote);
      if (except.has(market)) continue;
      const held = winners.get(market);
      if (!held || (quote.priority ?? 0) > (held.priority ?? 0)) winners.set(market, quote);
    }
  }
  return new Map<string, Quote>([...winners.values()].map((quote) => [quote.pair, quote]));
}

/** The book with every ruled pair made, and how each was made. `rules` come in their order (`ruleOrder`). */
export function makeBook(
  lists: readonly SourceQuotes[],
  rules: readonly RateRule[],
  now: Date,
): { book: QuoteBook; derivations: Derivation[] } {
  const ruled = new Set(rules.map(marketOf));
  const book = bookOf(
    lists.map((list) => list.quotes),
    ruled,
  );
  if (rules.length === 0) return { book, derivations: [] };
  const lookup = termLookup(lists, book, now);
  const derivations: Derivation[] = [];
  for (const rule of rules) {
    const derivation = rule.kind === 'formula' ? formulaPair(rule, lookup) : consensusPair(rule, lookup);
    derivations.push(derivation);
    book.set(rule.pair, madeQuote(rule, derivation, now));
  }
  return { book, derivations };
}

/** The quote a derivation makes, or the missing pair's stand-in (no price: a chain through it fails). */
function madeQuote(rule: RateRule, derivation: Derivation, now: Date): Quote {
  const { pair, base, quote } = rule;
  const source = rule.kind === 'formula' ? 'formula' : `${rule.method} of ${rule.terms.length}`;
  if (derivation.bid === undefined || derivation.ask === undefined)
    return {
      pair,
      base,
      quote,
      bid: new Decimal(0),
      ask: new Decimal(0),
      time: now,
      source,
      ruled: true,
      missing: derivation.missing!,
    };
  const used = derivation.terms.filter((term) => term.status === 'used').flatMap((term) => term.quotes);
  // Its terms' answers: a confirmation of a ruled rate waits for new answers of the sources it is made of.
  const answers = answersBehind(used);
  return {
    pair,
    base,
    quote,
    bid: derivation.bid,
    ask: derivation.ask,
    time: oldest(used, now),
    source,
    ruled: true,
    answers,
  };
}

function formulaPair(rule: FormulaRule, lookup: QuoteLookup): Derivation {
  const result = evaluate(rule.formula.node, lookup);
  const term: TermOutcome =
    'why' in result
      ? { label: rule.formula.text, quotes: result.quotes, status: 'missing', why: result.why }
      : {
          label: rule.formula.text,
          quotes: result.quotes,
          status: 'used',
          bid: result.bid,
          ask: result.ask,
          time: oldest(result.quotes, new Date(0)),
        };
  return 'why' in result
    ? { pair: rule.pair, rule, terms: [term], missing: `${rule.formula.text}: ${result.why}` }
    : { pair: rule.pair, rule, terms: [term], bid: result.bid, ask: result.ask };
}

function consensusPair(rule: ConsensusRule, lookup: QuoteLookup): Derivation {
  const evaluated = rule.terms.map((term) => evaluate(term.formula.node, lookup));
  const fresh: FreshTerm[] = evaluated.flatMap((value, index) =>
    'why' in value ? [] : [{ bid: value.bid, ask: value.ask, index }],
  );
  const labels = rule.terms.map((term) => term.label);
  const result = consensusOf(rule, fresh, labels);
  const terms: TermOutcome[] = evaluated.map((value, index) => {
    const { label } = rule.terms[index]!;
    if ('why' in value) return { label, quotes: value.quotes, status: 'missing', why: value.why };
    const dropped = result.dropped.get(index);
    const sides: Sides & { time: Date } = { bid: value.bid, ask: value.ask, time: oldest(value.quotes, new Date(0)) };
    return dropped === undefined
      ? { label, quotes: value.quotes, status: result.sides ? 'used' : 'unused', ...sides }
      : { label, quotes: value.quotes, status: 'dropped', why: dropped, ...sides };
  });
  const missingTerms = terms.filter((term) => term.status === 'missing').map((term) => `${term.label}: ${term.why}`);
  const spread = result.spread === undefined ? {} : { spread: result.spread };
  return result.sides
    ? { pair: rule.pair, rule, terms, ...spread, bid: result.sides.bid, ask: result.sides.ask }
    : {
        pair: rule.pair,
        rule,
        terms,
        ...spread,
        missing: `${result.missing}${missingTerms.length > 0 ? ` (${missingTerms.join('; ')})` : ''}`,
      };
}

/**
 * A term's quote: `source:PAIR` from that source's fresh quotes (either way round); a bare `PAIR` from the book as
 * made so far, so a ruled pair reads the pairs made before it. Why there is none names the cause: the source's
 * failure, a quote past its maxAge, or a pair nobody quotes.
 */
function termLookup(lists: readonly SourceQuotes[], book: ReadonlyMap<string, Quote>, now: Date): QuoteLookup {
  const bySource = new Map(lists.map((list) => [list.source, list]));
  const indexes = new WeakMap<readonly Quote[], Map<string, Quote>>();
  // Each list indexed by market once, when a term first reads it.
  const find = (quotes: readonly Quote[] | undefined, ref: QuoteRef) => {
    if (!quotes) return undefined;
    let index = indexes.get(quotes);
    if (!index) indexes.set(quotes, (index = new Map([...quotes].reverse().map((quote) => [marketOf(quote), quote]))));
    return index.get(marketOf(ref));
  };
  return (ref) => {
    if (ref.source === undefined) {
      const quote = book.get(ref.pair) ?? book.get(`${ref.quote}/${ref.base}`);
      if (!quote) return { why: `no source quotes ${ref.pair}` };
      return quote.missing === undefined ? quote : { why: `${ref.pair} is missing: ${quote.missing}` };
    }
    const list = bySource.get(ref.source);
    const named = `${ref.source}:${ref.pair}`;
    const quote = find(list?.quotes, ref);
    if (quote) return quote;
    const stale = find(list?.stale, ref);
    if (stale)
      return { why: `${named} is ${age((now.getTime() - stale.time.getTime()) / 1000)} old, past its source's maxAge` };
    if (list?.error !== undefined) return { why: `${named}: ${ref.source} failing: ${list.error}` };
    return { why: `${ref.source} sent no quote of ${ref.pair}` };
  };
}
