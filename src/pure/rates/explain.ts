// How a pair of `rates:` was made, in `explain`'s step-by-step words: every term with its source, value and age,
// which were dropped and why, and the arithmetic of the result, bid and ask apart. Pure.
import { formatDecimal, type Decimal } from '../../base/decimal.js';
import { formulaText, quotesOf, type FormulaNode } from '../../base/config/formula.js';
import { age, percent, plural, show } from '../../base/words.js';
import type { ConsensusRule, RateRule } from '../../model/rates.js';
import type { Quote } from '../../model/source.js';
import { shortPercent } from './consensus.js';
import type { Derivation, TermOutcome } from './derivation.js';
import { oriented, type Sides } from './evaluate.js';

type Side = 'bid' | 'ask';
const other = (side: Side): Side => (side === 'bid' ? 'ask' : 'bid');

/** The lines of one derivation, indented by `indent`; the ruled pairs it reads from the book follow, nested. */
export function derivationLines(
  derivation: Derivation,
  all: readonly Derivation[],
  at: Date,
  indent = '    ',
  seen: ReadonlySet<string> = new Set(),
): string[] {
  const { rule } = derivation;
  const lines =
    rule.kind === 'formula'
      ? formulaLines(derivation, rule.formula.node, at, indent)
      : consensusLines(derivation, rule, at, indent);
  // A pair read from the book that is itself made by a rule: how it was made, once.
  const inner = new Set([...seen, derivation.pair]);
  for (const term of derivation.terms)
    for (const quote of term.quotes) {
      const made = quote.ruled && all.find((d) => d.pair === quote.pair && !inner.has(d.pair));
      if (!made) continue;
      inner.add(made.pair);
      lines.push(
        `${indent}${made.pair}, read above, is made by its own rule:`,
        ...derivationLines(made, all, at, `${indent}  `, inner),
      );
    }
  return lines;
}

function quoteLine(quote: Quote, at: Date): string {
  const price = (side: 'bid' | 'ask') => (quote.ruled ? show(quote[side]) : formatDecimal(quote[side]));
  return `${quote.pair} from ${quote.source}: bid ${price('bid')}, ask ${price('ask')}, ${age((at.getTime() - quote.time.getTime()) / 1000)} old`;
}

function formulaLines(derivation: Derivation, node: FormulaNode, at: Date, indent: string): string[] {
  const term = derivation.terms[0]!;
  const lines = [
    `${indent}formula ${formulaText(node)} (bid and ask apart, each step the side worse for the client; dividing swaps the sides):`,
    ...term.quotes.map((quote) => `${indent}  ${quoteLine(quote, at)}`),
  ];
  if (term.status !== 'used') return [...lines, `${indent}  → missing: ${term.why ?? derivation.missing}`];
  return [...lines, ...sideLines(node, term, indent)];
}

/** `bid = 97000 × 41.2 = 3996400`, and the same for the ask: the formula with each quote's side written in. */
function sideLines(node: FormulaNode, term: TermOutcome, indent: string): string[] {
  const refs = quotesOf(node);
  return (['bid', 'ask'] as const).map((side) => {
    const values = refs.map((ref, index) => oriented(term.quotes[index]!, ref));
    const text = substituted(node, side, values, { next: 0 });
    return `${indent}  ${side} = ${text} = ${show(term[side]!)}`;
  });
}

function substituted(
  node: FormulaNode,
  side: Side,
  values: readonly Sides[],
  cursor: { next: number },
  rank = 0,
  right = false,
): string {
  if (node.kind === 'number') return node.value;
  if (node.kind === 'quote') return show(values[cursor.next++]![side]);
  if (node.kind === 'entry') return `${node.source}:${node.key}`;
  const own = node.operator === '+' || node.operator === '-' ? 1 : 2;
  const rightSide = node.operator === '/' || node.operator === '-' ? other(side) : side;
  const symbol = { '+': '+', '-': '−', '*': '×', '/': '÷' }[node.operator];
  const text = `${substituted(node.left, side, values, cursor, own)} ${symbol} ${substituted(node.right, rightSide, values, cursor, own, true)}`;
  return own < rank || (own === rank && right) ? `(${text})` : text;
}

function consensusLines(derivation: Derivation, rule: ConsensusRule, at: Date, indent: string): string[] {
  const spread = derivation.spread === undefined ? '' : `; spread ${shortPercent(derivation.spread)}`;
  const limit = rule.spread === undefined ? 'no spread limit' : `spread limit ${percent(rule.spread)}`;
  const lines = [
    `${indent}consensus of ${plural(rule.terms.length, 'term')}: ${rule.method}, quorum ${rule.quorum}, ${limit}${spread}`,
  ];
  for (const term of derivation.terms) lines.push(...termLines(term, at, `${indent}  `));
  const used = derivation.terms.filter((term) => term.status === 'used');
  if (derivation.bid === undefined || derivation.ask === undefined)
    return [...lines, `${indent}  → missing: ${derivation.missing}`];
  return [
    ...lines,
    `${indent}  ${methodWords(rule)} of the ${plural(used.length, 'used term')}: bid ${values(used, 'bid')} → ${show(derivation.bid)}; ask ${values(used, 'ask')} → ${show(derivation.ask)}`,
  ];
}

function termLines(term: TermOutcome, at: Date, indent: string): string[] {
  const status = {
    used: 'used',
    dropped: `DROPPED: ${term.why}`,
    missing: `missing: ${term.why}`,
    unused: 'not used: the pair is not made',
  }[term.status];
  if (term.bid === undefined || term.ask === undefined) return [`${indent}${term.label}: ${status}`];
  const when = term.time ? `, ${age((at.getTime() - term.time.getTime()) / 1000)} old` : '';
  const head = `${indent}${term.label}: bid ${show(term.bid)}, ask ${show(term.ask)}${when} — ${status}`;
  // A term that is a formula: its quotes, so each value's source and age are named.
  const single = term.quotes.length === 1 && term.label === term.quotes[0]!.source;
  return single ? [head] : [head, ...term.quotes.map((quote) => `${indent}  ${quoteLine(quote, at)}`)];
}

const values = (terms: readonly TermOutcome[], side: Side) =>
  terms
    .map((term) => term[side]!)
    .sort((a: Decimal, b: Decimal) => a.comparedTo(b))
    .map(show)
    .join(', ');

function methodWords(rule: RateRule & { kind: 'consensus' }): string {
  return {
    median: 'median',
    mean: 'mean',
    trimmed: 'mean without the highest and the lowest',
    worst: 'the side worse for the client (lowest bid, highest ask)',
  }[rule.method];
}
