// Which sources can set a quote alone: a consensus's protection as its method, spread and quorum give it, checked
// against the consensus itself (a term of the source moved 1000× either moves the made pair or not).
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import { type Formula, parseFormula } from '../../../../src/base/config/formula.js';
import type { ConsensusMethod, ConsensusRule } from '../../../../src/model/rates.js';
import type { Quote } from '../../../../src/model/source.js';
import { makeBook } from '../../../../src/pure/rates/book.js';
import { consensusExposure, oneSourceMoves, ruleExposure } from '../../../../src/pure/rates/exposure.js';

const now = new Date('2026-11-28T00:00:00Z');

function rule(terms: number, method: ConsensusMethod, quorum: number, spread?: string): ConsensusRule {
  const labels = Array.from({ length: terms }, (_, index) => `s${index}`);
  return {
    kind: 'consensus',
    pair: 'USDT/RUB',
    base: 'USDT',
    quote: 'RUB',
    terms: labels.map((label) => ({ label, formula: parseFormula(`${label}:USDT/RUB`) as Formula })),
    method,
    quorum,
    ...(spread ? { spread: new Decimal(spread) } : {}),
  };
}

const quote = (source: string, bid: string): Quote => ({
  pair: 'USDT/RUB',
  base: 'USDT',
  quote: 'RUB',
  bid: new Decimal(bid),
  ask: new Decimal(bid).plus('0.1'),
  time: now,
  source,
});

/** Whether `k` of `n` terms moved 1000× move the made pair (or make it): the consensus itself decides. */
function moved(made: ConsensusRule, n: number, k: number): boolean {
  const lists = made.terms.map((term, index) => ({
    source: term.label,
    quotes: index >= n ? [] : [quote(term.label, index < k ? '92000' : (92 + index * 0.01).toFixed(2))],
  }));
  const got = makeBook(lists, [made], now).book.get('USDT/RUB')!;
  return got.missing === undefined && got.bid.greaterThan(100);
}

describe('oneSourceMoves', () => {
  const cases: [ConsensusMethod, string | undefined][] = [
    ['median', undefined],
    ['median', '0.01'],
    ['mean', undefined],
    ['mean', '0.01'],
    ['trimmed', undefined],
    ['trimmed', '0.01'],
    ['worst', undefined],
    ['worst', '0.01'],
  ];
  it.each(cases)('%s (spread %s) says what the consensus does, for every n and k up to 5 terms', (method, spread) => {
    for (let terms = 2; terms <= 5; terms++)
      for (let quorum = 1; quorum <= terms; quorum++)
        for (let n = 1; n <= terms; n++)
          for (let k = 0; k <= n; k++) {
            const made = rule(terms, method, quorum, spread);
            // A yes may be cautious (a 2-of-4 median with a spread can end either way); a no never may be wrong.
            if (!oneSourceMoves(made, n, k))
              expect(moved(made, n, k), `${terms} terms, quorum ${quorum}, ${k} of ${n}`).toBe(false);
            else if (method !== 'worst' && !(spread && 2 * k === n))
              expect(moved(made, n, k), `yes: ${terms} terms, quorum ${quorum}, ${k} of ${n}`).toBe(true);
          }
  });
});

describe('consensusExposure and ruleExposure', () => {
  const spread = rule(3, 'median', 2, '0.01');

  it('a build: the sources whose terms, fresh now, can outweigh the rest', () => {
    expect([...consensusExposure(spread, [new Set(['a']), new Set(['b']), new Set(['c'])])]).toEqual([]);
    expect([...consensusExposure(spread, [new Set(['a']), new Set(['a', 'b']), new Set(['c'])])]).toEqual(['a']);
    expect([...consensusExposure(spread, [new Set(['a'])])]).toEqual([]);
    expect([...consensusExposure(rule(3, 'median', 1), [new Set(['a'])])]).toEqual(['a']);
  });

  it('the config alone: every number of fresh terms the quorum allows', () => {
    const terms = () => [new Set(['a']), new Set(['b']), new Set(['c'])];
    expect([...ruleExposure(spread, terms)]).toEqual([]);
    expect([...ruleExposure(rule(3, 'median', 1, '0.01'), terms)].sort()).toEqual(['a', 'b', 'c']);
    expect([...ruleExposure(rule(3, 'mean', 2), terms)].sort()).toEqual(['a', 'b', 'c']);
  });
});
