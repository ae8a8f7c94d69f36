// A formula's value, bid and ask apart, each side the one worse for the client at every step: a product takes
// bid × bid and ask × ask, a quotient bid ÷ ask and ask ÷ bid (dividing inverts the sides), a difference
// bid − ask and ask − bid. Decimal arithmetic at 40 digits, left to right as written. Pure.
import { Decimal } from '../../base/decimal.js';
import type { EntryRef, FormulaNode, QuoteRef } from '../../base/config/formula.js';
import { formulaText } from '../../base/config/formula.js';
import type { Quote } from '../../model/source.js';

export interface Sides {
  bid: Decimal;
  ask: Decimal;
}

/** A formula's result: its sides and the quotes it read; or the first reason it has none. */
export type Evaluated = (Sides & { quotes: Quote[] }) | { why: string; quotes: Quote[] };

/** Where a formula's quotes come from: the quote for a reference, or why there is none. */
export type QuoteLookup = (ref: QuoteRef) => Quote | { why: string };

const ONE = new Decimal(1);

/** A quote's sides in the reference's orientation: `RUB/USDT` read from a `USDT/RUB` quote is 1 ÷ ask, 1 ÷ bid. */
export function oriented(quote: Quote, ref: Pick<QuoteRef, 'base'>): Sides {
  return quote.base === ref.base
    ? { bid: quote.bid, ask: quote.ask }
    : { bid: ONE.div(quote.ask), ask: ONE.div(quote.bid) };
}

/** Where a reserve formula's entries come from: an entry's reserve, or why there is none. */
export type EntryLookup = (ref: EntryRef) => Decimal | { why: string };

const noQuotes: QuoteLookup = (ref) => ({ why: `${ref.pair} is a quote, not a reserve entry` });

export function evaluate(node: FormulaNode, lookup: QuoteLookup): Evaluated {
  const quotes: Quote[] = [];
  const value = evaluateNode(
    node,
    { lookup, entries: (ref) => ({ why: `${ref.source}:${ref.key} is not a quote` }), positive: true },
    quotes,
  );
  return 'why' in value ? { why: value.why, quotes } : { ...value, quotes };
}

/** A reserve formula's amount: plain arithmetic over back-office entries (a difference may go below zero). */
export function evaluateAmount(node: FormulaNode, entries: EntryLookup): Decimal | { why: string } {
  const value = evaluateNode(node, { lookup: noQuotes, entries, positive: false }, []);
  return 'why' in value ? value : value.bid;
}

interface Lookups {
  lookup: QuoteLookup;
  entries: EntryLookup;
  /** A rate: every value on the way must be positive. */
  positive: boolean;
}

function evaluateNode(node: FormulaNode, lookups: Lookups, quotes: Quote[]): Sides | { why: string } {
  if (node.kind === 'number') return { bid: new Decimal(node.value), ask: new Decimal(node.value) };
  if (node.kind === 'entry') {
    // An amount, not a price: both sides are the amount, so the arithmetic below is plain arithmetic.
    const amount = lookups.entries(node);
    return 'why' in amount ? amount : { bid: amount, ask: amount };
  }
  if (node.kind === 'quote') {
    const found = lookups.lookup(node);
    if ('why' in found) return found;
    quotes.push(found);
    return oriented(found, node);
  }
  const left = evaluateNode(node.left, lookups, quotes);
  if ('why' in left) return left;
  const right = evaluateNode(node.right, lookups, quotes);
  if ('why' in right) return right;
  const sides = operate(node.operator, left, right);
  if (!lookups.positive) return sides.bid.isFinite() ? sides : { why: `${formulaText(node)} divides by zero` };
  // Every value on the way must be positive, or "the side worse for the client" has no meaning.
  if (!(sides.bid.isFinite() && sides.bid.greaterThan(0)))
    return {
      why: `${formulaText(node)} is ${sides.bid.isFinite() ? sides.bid.toFixed() : 'not a number'}, not positive`,
    };
  return sides;
}

function operate(operator: '+' | '-' | '*' | '/', left: Sides, right: Sides): Sides {
  switch (operator) {
    case '*':
      return { bid: left.bid.times(right.bid), ask: left.ask.times(right.ask) };
    case '/':
      return { bid: left.bid.div(right.ask), ask: left.ask.div(right.bid) };
    case '+':
      return { bid: left.bid.plus(right.bid), ask: left.ask.plus(right.ask) };
    case '-':
      return { bid: left.bid.minus(right.ask), ask: left.ask.minus(right.bid) };
  }
}

/** The oldest of the quotes' times (a made quote is as old as its oldest input). */
export function oldest(quotes: readonly Quote[], fallback: Date): Date {
  let time = Infinity;
  for (const quote of quotes) time = Math.min(time, quote.time.getTime());
  return Number.isFinite(time) ? new Date(time) : fallback;
}
