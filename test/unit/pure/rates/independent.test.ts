// An independent evaluator of `rates:`, written from docs/formulas.md and not from src/: random formulas over
// random quotes, and random consensus pairs, are made by the build's book and by this file's own reading of the
// docs, bid and ask apart, and must agree to the last digit. RATES_SEED explores other cases.
//
// What the docs say, and all this file knows:
// - Arithmetic is decimal at 40 significant digits, rounding half to even, left to right as written.
// - A quote read as written (`A/B` from an `A/B` quote) is its bid and ask; read the other way round (`B/A` from an
//   `A/B` quote) it is bid 1 ÷ ask, ask 1 ÷ bid.
// - a × b: bid × bid, ask × ask. a ÷ b: bid ÷ ask, ask ÷ bid. a + b: bid + bid, ask + ask. a − b: bid − ask,
//   ask − bid. A number is both sides. Every value on the way must be positive, else the pair is missing.
// - A consensus: the fresh terms; fewer than the quorum → missing. Spread = (highest mid − lowest mid) ÷ median
//   mid, mid = (bid + ask) ÷ 2. Past the limit: drop the one term furthest from the median mid (two equally far, or only two
//   terms: missing), again while past it; fewer than the quorum left → missing. Then bids and asks apart: median (the
//   middle one, or the mean of the two middle ones), mean, trimmed (the mean without the lowest and the highest),
//   worst (the lowest bid, the highest ask).
import { Decimal as DecimalJs } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import { parseFormula, type Formula } from '../../../../src/base/config/formula.js';
import type { ConsensusMethod, RateRule } from '../../../../src/model/rates.js';
import type { Quote } from '../../../../src/model/source.js';
import { makeBook } from '../../../../src/pure/rates/book.js';
import { random, type Next } from '../../../support/random.js';

const D = DecimalJs.clone({ precision: 40, rounding: DecimalJs.ROUND_HALF_EVEN });
type D = InstanceType<typeof D>;
type Two = { bid: D; ask: D };

const seed = Number(process.env.RATES_SEED ?? 4242);
const now = new Date('2026-11-28T00:00:00Z');
const assets = ['BTC', 'ETH', 'USDT', 'RUB', 'UAH', 'USD'];
const sources = ['alpha', 'beta', 'gamma', 'delta'];

const pick = <T>(next: Next, list: readonly T[]): T => list[Math.floor(next() * list.length)]!;

/** A price with 1..8 significant digits, from 0.0001 to 100000. */
function price(next: Next): string {
  const digits = 1 + Math.floor(next() * 8);
  const mantissa = Math.floor(next() * 10 ** digits) + 1;
  const exponent = -4 + Math.floor(next() * 9);
  return new D(mantissa).div(new D(10).pow(digits)).times(new D(10).pow(exponent)).toFixed();
}

function quote(next: Next, source: string, base: string, other: string): Quote {
  const bid = price(next);
  const ask = new D(bid).times(new D(1).plus(new D(Math.floor(next() * 50)).div(10_000))).toFixed();
  return {
    pair: `${base}/${other}`,
    base,
    quote: other,
    bid: new Decimal(bid),
    ask: new Decimal(ask),
    time: now,
    source,
  };
}

/** Each source quotes each market once, in a random orientation. */
function quotesOf(next: Next): Map<string, Quote[]> {
  const lists = new Map<string, Quote[]>();
  for (const source of sources) {
    const list: Quote[] = [];
    for (let i = 0; i < assets.length; i++)
      for (let j = i + 1; j < assets.length; j++) {
        if (next() < 0.15) continue;
        const [a, b] = next() < 0.5 ? [assets[i]!, assets[j]!] : [assets[j]!, assets[i]!];
        list.push(quote(next, source, a, b));
      }
    lists.set(source, list);
  }
  return lists;
}

/** A random formula text over source-named quotes and numbers, with parentheses. */
function formulaText(next: Next, depth = 0): string {
  if (depth > 2 || next() < 0.35) {
    if (next() < 0.2) return pick(next, ['1.004', '0.98', '2', '100']);
    const [a, b] = [pick(next, assets), pick(next, assets)];
    return b === a ? '1.5' : `${pick(next, sources)}:${a}/${b}`;
  }
  const operator = pick(next, ['*', '/', '+', '-', '*', '/']);
  const text = `${formulaText(next, depth + 1)} ${operator} ${formulaText(next, depth + 1)}`;
  return next() < 0.5 ? `(${text})` : text;
}

// ---- the independent reading of the docs ----

function readQuote(lists: Map<string, Quote[]>, source: string, base: string, other: string): Two | undefined {
  for (const q of lists.get(source) ?? []) {
    if (q.base === base && q.quote === other) return { bid: new D(q.bid.toString()), ask: new D(q.ask.toString()) };
    if (q.base === other && q.quote === base)
      return { bid: new D(1).div(new D(q.ask.toString())), ask: new D(1).div(new D(q.bid.toString())) };
  }
  return undefined;
}

/** A small parser of its own: the docs' grammar (sums of products, left to right, parentheses). */
function evaluateText(text: string, lists: Map<string, Quote[]>): Two | undefined {
  const tokens = text.match(/[a-z]+:[A-Z]+\/[A-Z]+|\d+(\.\d+)?|[-+*/()]/g)!;
  let at = 0;
  const positive = (v: Two | undefined) => (v?.bid.greaterThan(0) && v.bid.isFinite() ? v : undefined);
  const factor = (): Two | undefined => {
    const token = tokens[at++]!;
    if (token === '(') {
      const value = sum();
      at++;
      return value;
    }
    if (/^\d/.test(token)) return { bid: new D(token), ask: new D(token) };
    const [source, pair] = token.split(':') as [string, string];
    const [base, other] = pair.split('/') as [string, string];
    return readQuote(lists, source, base, other);
  };
  const product = (): Two | undefined => {
    let left = factor();
    while (tokens[at] === '*' || tokens[at] === '/') {
      const op = tokens[at++];
      const right = factor();
      if (!left || !right) return undefined;
      left = positive(
        op === '*'
          ? { bid: left.bid.times(right.bid), ask: left.ask.times(right.ask) }
          : { bid: left.bid.div(right.ask), ask: left.ask.div(right.bid) },
      );
    }
    return left;
  };
  const sum = (): Two | undefined => {
    let left = product();
    while (tokens[at] === '+' || tokens[at] === '-') {
      const op = tokens[at++];
      const right = product();
      if (!left || !right) return undefined;
      left = positive(
        op === '+'
          ? { bid: left.bid.plus(right.bid), ask: left.ask.plus(right.ask) }
          : { bid: left.bid.minus(right.ask), ask: left.ask.minus(right.bid) },
      );
    }
    return left;
  };
  return sum();
}

const sorted = (values: D[]) => [...values].sort((a, b) => a.comparedTo(b));
const median = (values: D[]) => {
  const s = sorted(values);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : s[m - 1]!.plus(s[m]!).div(2);
};
const mean = (values: D[]) => values.reduce((a, b) => a.plus(b), new D(0)).div(values.length);
const mid = (t: Two) => t.bid.plus(t.ask).div(2);
const spreadOf = (terms: Two[]) => {
  const mids = terms.map(mid);
  return D.max(...mids)
    .minus(D.min(...mids))
    .div(median(mids));
};

function consensus(terms: (Two | undefined)[], method: ConsensusMethod, quorum: number, limit?: D): Two | undefined {
  let kept = terms.filter((t): t is Two => t !== undefined);
  if (kept.length < quorum) return undefined;
  while (limit && spreadOf(kept).greaterThan(limit)) {
    const center = median(kept.map(mid));
    const distances = kept.map((t) => mid(t).minus(center).abs());
    const far = D.max(...distances);
    if (kept.length <= 2 || distances.filter((d) => d.equals(far)).length > 1) return undefined;
    kept = kept.filter((_, i) => !distances[i]!.equals(far));
    if (kept.length < quorum) return undefined;
  }
  const bids = kept.map((t) => t.bid);
  const asks = kept.map((t) => t.ask);
  if (method === 'median') return { bid: median(bids), ask: median(asks) };
  if (method === 'mean') return { bid: mean(bids), ask: mean(asks) };
  if (method === 'worst') return { bid: D.min(...bids), ask: D.max(...asks) };
  if (kept.length < 3) return undefined;
  return { bid: mean(sorted(bids).slice(1, -1)), ask: mean(sorted(asks).slice(1, -1)) };
}

// ---- the comparison ----

const formula = (text: string) => parseFormula(text) as Formula;
const listsFor = (lists: Map<string, Quote[]>) => [...lists].map(([source, quotes]) => ({ source, quotes }));

describe(`rates against an independent evaluator (RATES_SEED=${seed})`, () => {
  it('formulas: 400 random ones over random quotes, bid and ask, or missing alike', () => {
    const next = random(seed);
    let made = 0;
    for (let round = 0; round < 400; round++) {
      const lists = quotesOf(next);
      const text = formulaText(next);
      const rule: RateRule = { kind: 'formula', pair: 'X/Y', base: 'X', quote: 'Y', formula: formula(text) };
      const { book } = makeBook(listsFor(lists), [rule], now);
      const got = book.get('X/Y')!;
      const expected = evaluateText(text, lists);
      if (!expected) {
        expect(got.missing, text).toBeDefined();
        continue;
      }
      made++;
      expect(got.missing, text).toBeUndefined();
      expect([got.bid.toFixed(), got.ask.toFixed()], text).toEqual([expected.bid.toFixed(), expected.ask.toFixed()]);
    }
    // The cases must exercise both outcomes.
    expect(made).toBeGreaterThan(60);
  });

  it('consensus: 400 random pairs of 2..5 terms, every method, quorums and spread limits', () => {
    const next = random(seed + 1);
    const outcomes = { made: 0, missing: 0 };
    for (let round = 0; round < 400; round++) {
      const lists = quotesOf(next);
      const [base, other] = [
        pick(next, assets),
        pick(
          next,
          assets.filter((a) => a !== 'BTC'),
        ),
      ];
      if (base === other) continue;
      const terms = sources.slice(0, 2 + Math.floor(next() * 3));
      // Sometimes one term is a formula: a source's quote times a number.
      const texts = terms.map((s) => (next() < 0.25 ? `${s}:${base}/${other} * 1.01` : `${s}:${base}/${other}`));
      const method = pick(next, ['median', 'mean', 'trimmed', 'worst'] as const);
      const quorum = Math.max(method === 'trimmed' ? 3 : 1, 1 + Math.floor(next() * terms.length));
      const limit = next() < 0.6 ? new D(pick(next, ['0.001', '0.005', '0.02', '0.2'])) : undefined;
      const rule: RateRule = {
        kind: 'consensus',
        pair: `${base}/${other}`,
        base,
        quote: other,
        terms: texts.map((text) => ({ label: text, formula: formula(text) })),
        method,
        quorum,
        ...(limit ? { spread: new Decimal(limit.toString()) } : {}),
      };
      const { book } = makeBook(listsFor(lists), [rule], now);
      const got = book.get(`${base}/${other}`)!;
      const expected = consensus(
        texts.map((text) => evaluateText(text, lists)),
        method,
        quorum,
        limit,
      );
      const label = `${texts.join(', ')} ${method} quorum ${quorum} spread ${limit?.toString() ?? 'none'}`;
      if (!expected) {
        outcomes.missing++;
        expect(got.missing, label).toBeDefined();
        continue;
      }
      outcomes.made++;
      expect(got.missing, label).toBeUndefined();
      expect([got.bid.toFixed(), got.ask.toFixed()], label).toEqual([expected.bid.toFixed(), expected.ask.toFixed()]);
    }
    expect(outcomes.made).toBeGreaterThan(60);
    expect(outcomes.missing).toBeGreaterThan(20);
  });
});
