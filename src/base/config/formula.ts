// A rate formula as the config writes it (`whitebit:BTC/USDT * USDT/UAH`, `p2p_rub:USDT/RUB * 1.004`): read into
// a tree of quotes, numbers and the four operations. Reading only; src/pure/rates/ evaluates it, bid and ask apart.
import { checkDecimalLength } from '../decimal.js';
import { quoteValue } from '../errors.js';

/** A pair's quote in a formula: from one named source (`whitebit:BTC/USDT`), or the quote book's (`USDT/UAH`). */
export interface QuoteRef {
  readonly pair: string;
  readonly base: string;
  readonly quote: string;
  readonly source?: string;
}

/** A back-office entry in a reserve formula: `wallets:USDTTRC20` is reserve source `wallets`' entry of that key (letters, digits, _). */
export interface EntryRef {
  readonly source: string;
  readonly key: string;
}

export type Operator = '+' | '-' | '*' | '/';

export type FormulaNode =
  | { readonly kind: 'number'; readonly value: string }
  | ({ readonly kind: 'quote' } & QuoteRef)
  | ({ readonly kind: 'entry' } & EntryRef)
  | {
      readonly kind: 'operation';
      readonly operator: Operator;
      readonly left: FormulaNode;
      readonly right: FormulaNode;
    };

export interface Formula {
  /** As written in the config, trimmed. */
  readonly text: string;
  readonly node: FormulaNode;
}

/** Long enough for any formula a person writes; a longer text is a mistake, not a formula. */
const MAX_LENGTH = 500;
/** Parentheses nested deeper than this are refused before the reader recurses into them. */
const MAX_DEPTH = 32;

type Token =
  | { kind: 'number'; text: string; at: number }
  | { kind: 'quote'; ref: QuoteRef; at: number }
  | { kind: 'entry'; ref: EntryRef; at: number }
  | { kind: 'operator'; text: Operator; at: number }
  | { kind: 'paren'; text: '(' | ')'; at: number };

/** One token each: a source-named pair, a pair, a source-named entry, a number, an operator or a parenthesis. */
const tokenPattern =
  /\s*(?:(?:([a-z][a-z0-9_-]*):)?([A-Z][A-Z0-9]{1,9})\/([A-Z][A-Z0-9]{1,9})(?![A-Za-z0-9])|([a-z][a-z0-9_-]*):([A-Za-z0-9_]{1,64})(?![A-Za-z0-9_/])|(\d+(?:\.\d+)?)(?![\d.])|([-+*/])|([()]))/y;

class FormulaError extends Error {}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  tokenPattern.lastIndex = 0;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    tokenPattern.lastIndex = at;
    const match = tokenPattern.exec(text);
    if (!match) {
      const start = at + (text.slice(at).length - text.slice(at).trimStart().length);
      throw new FormulaError(
        `at column ${start + 1}: expected a pair like BTC/USDT (or source:BTC/USDT), a number, + - * / or parentheses, got ${quoteValue(text.slice(start, start + 12))}`,
      );
    }
    const start = match.index + (match[0].length - match[0].trimStart().length);
    const [, source, base, quote, entrySource, key, number, operator, paren] = match;
    if (entrySource !== undefined && key !== undefined)
      tokens.push({ kind: 'entry', at: start, ref: { source: entrySource, key } });
    else if (base !== undefined && quote !== undefined)
      tokens.push({
        kind: 'quote',
        at: start,
        ref: { pair: `${base}/${quote}`, base, quote, ...(source ? { source } : {}) },
      });
    else if (number !== undefined) tokens.push({ kind: 'number', text: number, at: start });
    else if (operator !== undefined) tokens.push({ kind: 'operator', text: operator as Operator, at: start });
    else tokens.push({ kind: 'paren', text: paren as '(' | ')', at: start });
    at = tokenPattern.lastIndex;
  }
  return tokens;
}

/** Recursive descent: sums of products of factors, each operator left to right. */
class Reader {
  private next = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly length: number,
    /** What a formula reads: quotes (a rate) or back-office entries (a reserve). */
    private readonly wants: 'quote' | 'entry',
  ) {}

  formula(): FormulaNode {
    const node = this.sum(0);
    const left = this.tokens[this.next];
    if (left)
      throw new FormulaError(`at column ${left.at + 1}: expected an operator or the end, got ${describe(left)}`);
    return node;
  }

  private sum(depth: number): FormulaNode {
    return this.leftToRight(['+', '-'], () => this.product(depth));
  }

  private product(depth: number): FormulaNode {
    return this.leftToRight(['*', '/'], () => this.factor(depth));
  }

  /** Operands joined by any of `operators`, each operation taking the one before as its left side. */
  private leftToRight(operators: readonly Operator[], operand: () => FormulaNode): FormulaNode {
    let node = operand();
    for (let token = this.peek(); token?.kind === 'operator' && operators.includes(token.text); token = this.peek()) {
      this.next++;
      node = { kind: 'operation', operator: token.text, left: node, right: operand() };
    }
    return node;
  }

  private factor(depth: number): FormulaNode {
    const token = this.tokens[this.next++];
    if (!token) throw new FormulaError(`at column ${this.length + 1}: expected a pair, a number or "(", got the end`);
    if (token.kind === 'quote' || token.kind === 'entry') {
      if (token.kind !== this.wants)
        throw new FormulaError(
          `at column ${token.at + 1}: expected ${this.wants === 'quote' ? 'a pair like BTC/USDT or source:BTC/USDT' : 'an entry like wallets:USDTTRC20'}, got ${describe(token)}`,
        );
      return token.kind === 'quote' ? { kind: 'quote', ...token.ref } : { kind: 'entry', ...token.ref };
    }
    if (token.kind === 'number') {
      const tooLong = checkDecimalLength(token.text);
      if (tooLong) throw new FormulaError(`at column ${token.at + 1}: ${token.text.slice(0, 20)}… ${tooLong}`);
      return { kind: 'number', value: token.text };
    }
    if (token.kind === 'paren' && token.text === '(') {
      if (depth >= MAX_DEPTH)
        throw new FormulaError(`at column ${token.at + 1}: parentheses nested deeper than ${MAX_DEPTH}`);
      const inner = this.sum(depth + 1);
      const close = this.tokens[this.next++];
      if (close?.kind !== 'paren' || close.text !== ')')
        throw new FormulaError(
          `at column ${close ? close.at + 1 : this.length + 1}: expected ")", got ${close ? describe(close) : 'the end'}`,
        );
      return inner;
    }
    throw new FormulaError(`at column ${token.at + 1}: expected a pair, a number or "(", got ${describe(token)}`);
  }

  private peek(): Token | undefined {
    return this.tokens[this.next];
  }
}

function describe(token: Token): string {
  if (token.kind === 'entry') return quoteValue(`${token.ref.source}:${token.ref.key}`);
  if (token.kind === 'quote')
    return quoteValue(token.ref.source ? `${token.ref.source}:${token.ref.pair}` : token.ref.pair);
  return quoteValue(token.text);
}

/**
 * The formula in `text`, or what is wrong with it and where (`at column 12: expected …`). A rate formula reads
 * quotes; a reserve formula (`reads: 'entry'`) reads back-office entries.
 */
export function parseFormula(text: string, reads: 'quote' | 'entry' = 'quote'): Formula | { problem: string } {
  const trimmed = text.trim();
  if (trimmed.length === 0)
    return {
      problem: `expected a formula like ${reads === 'quote' ? '"BTC/USDT * USDT/RUB"' : '"hot:USDTTRC20 + cold:USDTTRC20"'}, got an empty text`,
    };
  if (trimmed.length > MAX_LENGTH)
    return { problem: `expected a formula of at most ${MAX_LENGTH} characters, got ${trimmed.length}` };
  try {
    return { text: trimmed, node: new Reader(tokenize(trimmed), trimmed.length, reads).formula() };
  } catch (error) {
    if (error instanceof FormulaError) return { problem: error.message };
    throw error;
  }
}

/** Every back-office entry a reserve formula reads, in the order written. */
export function entriesOf(node: FormulaNode): EntryRef[] {
  if (node.kind === 'entry') return [node];
  if (node.kind === 'operation') return [...entriesOf(node.left), ...entriesOf(node.right)];
  return [];
}

/** Every quote a formula reads, in the order written. */
export function quotesOf(node: FormulaNode): QuoteRef[] {
  if (node.kind === 'quote') return [node];
  if (node.kind === 'number' || node.kind === 'entry') return [];
  return [...quotesOf(node.left), ...quotesOf(node.right)];
}

/** The formula written back: operands in order, parentheses only where the order of operations needs them. */
export function formulaText(node: FormulaNode, parentRank = 0, rightSide = false): string {
  if (node.kind === 'number') return node.value;
  if (node.kind === 'quote') return node.source ? `${node.source}:${node.pair}` : node.pair;
  if (node.kind === 'entry') return `${node.source}:${node.key}`;
  const rank = node.operator === '+' || node.operator === '-' ? 1 : 2;
  const text = `${formulaText(node.left, rank)} ${node.operator} ${formulaText(node.right, rank, true)}`;
  return rank < parentRank || (rank === parentRank && rightSide) ? `(${text})` : text;
}
