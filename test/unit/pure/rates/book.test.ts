// The quote book with `rates:`: ruled pairs take their market, a consensus drops an outlier or goes missing with the
// reason, a term names why it is missing, and a direction priced through a missing pair is withheld with that reason.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import { parseFormula, type Formula } from '../../../../src/base/config/formula.js';
import type { ConsensusMethod, RateRule } from '../../../../src/model/rates.js';
import type { Quote } from '../../../../src/model/source.js';
import { makeBook, type SourceQuotes } from '../../../../src/pure/rates/book.js';
import { derivationLines } from '../../../../src/pure/rates/explain.js';
import { ruleOrder, rulesOf } from '../../../../src/pure/rates/rules.js';
import { priceDirection } from '../../../../src/pure/pricing/price.js';
import { testCurrency, testDirection } from '../../../support/model.js';

const now = new Date('2026-11-28T00:00:00Z');
const formula = (text: string) => parseFormula(text) as Formula;

function quote(source: string, pair: string, bid: string, ask: string, time = now): Quote {
  const [base = '', other = ''] = pair.split('/');
  return { pair, base, quote: other, bid: new Decimal(bid), ask: new Decimal(ask), time, source };
}

function consensus(terms: string[], method: ConsensusMethod = 'median', quorum = 2, spread?: string): RateRule {
  return {
    kind: 'consensus',
    pair: 'USDT/RUB',
    base: 'USDT',
    quote: 'RUB',
    terms: terms.map((label) => ({ label, formula: formula(label.includes(':') ? label : `${label}:USDT/RUB`) })),
    method,
    quorum,
    ...(spread ? { spread: new Decimal(spread) } : {}),
  };
}

const lists: SourceQuotes[] = [
  { source: 'a', quotes: [quote('a', 'USDT/RUB', '92.10', '92.30'), quote('a', 'BTC/USDT', '97000', '97010')] },
  { source: 'b', quotes: [quote('b', 'USDT/RUB', '92.00', '92.40')] },
  { source: 'c', quotes: [quote('c', 'RUB/USDT', '0.0105', '0.0106')] },
];

describe('a consensus pair', () => {
  it('takes the market from every single source: the median of bids and of asks apart', () => {
    const { book, derivations } = makeBook(lists, [consensus(['a', 'b', 'c'])], now);
    const made = book.get('USDT/RUB')!;
    expect([made.bid.toFixed(), made.ask.toFixed(), made.source, made.ruled]).toEqual([
      '92.1',
      '92.4',
      'median of 3',
      true,
    ]);
    expect(book.has('RUB/USDT')).toBe(false);
    expect(derivations[0]!.terms.map((t) => t.status)).toEqual(['used', 'used', 'used']);
  });

  it('drops the one term past the spread limit and names it; without a quorum left the pair is missing', () => {
    const kept = makeBook(lists, [consensus(['a', 'b', 'c'], 'mean', 2, '0.02')], now);
    expect(kept.derivations[0]!.terms.map((t) => `${t.label} ${t.status}`)).toEqual(['a used', 'b used', 'c dropped']);
    expect(kept.book.get('USDT/RUB')!.bid.toFixed()).toBe('92.05');
    const lost = makeBook(lists, [consensus(['a', 'b', 'c'], 'mean', 3, '0.02')], now);
    expect(lost.book.get('USDT/RUB')!.missing).toBe('spread 2.81% past 2%; without c 2 terms are left, quorum 3');
  });

  it('two terms too far apart: nothing tells which is wrong, so the pair is missing', () => {
    const { book } = makeBook(lists, [consensus(['a', 'c'], 'median', 1, '0.01')], now);
    expect(book.get('USDT/RUB')!.missing).toBe('spread 2.77% past 1%, and no single term is furthest from the median');
  });

  it('counts only fresh terms against the quorum, and says why each other one is missing', () => {
    const old = new Date(now.getTime() - 600_000);
    const partial: SourceQuotes[] = [
      lists[0]!,
      { source: 'b', quotes: [], stale: [quote('b', 'USDT/RUB', '92.00', '92.40', old)] },
      { source: 'c', quotes: [], error: 'GET /api: HTTP 503' },
      { source: 'd', quotes: [] },
    ];
    const { book } = makeBook(partial, [consensus(['a', 'b', 'c', 'd'], 'median', 2)], now);
    expect(book.get('USDT/RUB')!.missing).toBe(
      "1 fresh of 4 terms, quorum 2 (b: b:USDT/RUB is 10 min old, past its source's maxAge; c: c:USDT/RUB: c failing: GET /api: HTTP 503; d: d sent no quote of USDT/RUB)",
    );
  });

  it('worst: the lowest bid and the highest ask; trimmed: the mean without the extremes', () => {
    const worst = makeBook(lists, [consensus(['a', 'b', 'c'], 'worst')], now).book.get('USDT/RUB')!;
    expect([worst.bid.toFixed(), worst.ask.toFixed(8)]).toEqual(['92', '95.23809524']);
    const trimmed = makeBook(lists, [consensus(['a', 'b', 'c'], 'trimmed', 3)], now).book.get('USDT/RUB')!;
    expect([trimmed.bid.toFixed(), trimmed.ask.toFixed()]).toEqual(['92.1', '92.4']);
  });
});

describe('a formula pair', () => {
  const rules = rulesOf({
    'BTC/RUB': formula('a:BTC/USDT * USDT/RUB'),
    'USDT/RUB': { sources: ['a', 'b', 'c'], method: 'median' },
  });
  const ordered = ruleOrder(rules);
  const order = 'order' in ordered ? ordered.order : [];

  it('is made after the ruled pairs it reads from the book', () => {
    if (!('order' in ordered)) throw new Error('a loop');
    expect(ordered.order.map((rule) => rule.pair)).toEqual(['USDT/RUB', 'BTC/RUB']);
    const { book, derivations } = makeBook(lists, ordered.order, now);
    const made = book.get('BTC/RUB')!;
    expect([made.bid.toFixed(), made.ask.toFixed()]).toEqual(['8933700', '8963724']);
    expect(derivationLines(derivations[1]!, derivations, now, '')).toEqual([
      'formula a:BTC/USDT * USDT/RUB (bid and ask apart, each step the side worse for the client; dividing swaps the sides):',
      '  BTC/USDT from a: bid 97000, ask 97010, 0 s old',
      '  USDT/RUB from median of 3: bid 92.1, ask 92.4, 0 s old',
      '  bid = 97000 × 92.1 = 8933700',
      '  ask = 97010 × 92.4 = 8963724',
      'USDT/RUB, read above, is made by its own rule:',
      '  consensus of 3 terms: median, quorum 2, no spread limit; spread 2.81%',
      '    a: bid 92.1, ask 92.3, 0 s old — used',
      '    b: bid 92, ask 92.4, 0 s old — used',
      '    c: bid 94.339622641509…, ask 95.238095238095…, 0 s old — used',
      '    median of the 3 used terms: bid 92, 92.1, 94.339622641509… → 92.1; ask 92.3, 92.4, 95.238095238095… → 92.4',
    ]);
  });

  it('a pair that reads itself through others is a loop, named pair by pair', () => {
    const loop = ruleOrder(
      rulesOf({ 'USDT/UAH': formula('BTC/UAH / a:BTC/USDT'), 'BTC/UAH': formula('a:BTC/USDT * USDT/UAH') }),
    );
    expect(loop).toEqual({ loop: ['USDT/UAH', 'BTC/UAH', 'USDT/UAH'] });
  });

  it('a direction priced through a pair that could not be made is withheld with its reason, not routed round it', () => {
    const missing = makeBook([lists[0]!], order, now).book;
    const direction = testDirection(testCurrency('BTC', 'BTC', 8), testCurrency('SBERRUB', 'RUB', 2));
    const priced = priceDirection(direction, missing);
    expect(priced).toMatchObject({
      kind: 'quote',
      reason:
        'no quote for BTC/RUB (formula: a:BTC/USDT * USDT/RUB: USDT/RUB is missing: 1 fresh of 3 terms, quorum 2 (b: b sent no quote of USDT/RUB; c: c sent no quote of USDT/RUB))',
    });
  });
});
