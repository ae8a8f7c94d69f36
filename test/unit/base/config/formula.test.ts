import { describe, expect, it } from 'vitest';
import { entriesOf, formulaText, parseFormula, quotesOf } from '../../../../src/base/config/formula.js';

const read = (text: string, reads: 'quote' | 'entry' = 'quote') => {
  const parsed = parseFormula(text, reads);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed;
};
const problem = (text: string, reads: 'quote' | 'entry' = 'quote') => {
  const parsed = parseFormula(text, reads);
  return 'problem' in parsed ? parsed.problem : undefined;
};

describe('rate formulas as the config writes them', () => {
  it('reads source-named pairs, pairs and numbers, products before sums, left to right', () => {
    const formula = read('whitebit:BTC/USDT * USDT/UAH - 2 / p2p_rub:USDT/RUB * 1.004');
    expect(quotesOf(formula.node)).toEqual([
      { kind: 'quote', pair: 'BTC/USDT', base: 'BTC', quote: 'USDT', source: 'whitebit' },
      { kind: 'quote', pair: 'USDT/UAH', base: 'USDT', quote: 'UAH' },
      { kind: 'quote', pair: 'USDT/RUB', base: 'USDT', quote: 'RUB', source: 'p2p_rub' },
    ]);
    // Written back with only the parentheses the order needs: (2 / x) * 1.004 is how it was read.
    expect(formulaText(formula.node)).toBe('whitebit:BTC/USDT * USDT/UAH - 2 / p2p_rub:USDT/RUB * 1.004');
    expect(formulaText(read('a:BTC/USDT / (USDT/RUB / 2)').node)).toBe('a:BTC/USDT / (USDT/RUB / 2)');
    expect(formulaText(read('(a:BTC/USDT - USDT/RUB) - 2').node)).toBe('a:BTC/USDT - USDT/RUB - 2');
    expect(formulaText(read('a:BTC/USDT - (USDT/RUB - 2)').node)).toBe('a:BTC/USDT - (USDT/RUB - 2)');
  });

  it('says where a formula goes wrong, by column', () => {
    expect(problem('BTC/USDT * (USDT/RUB')).toBe('at column 21: expected ")", got the end');
    expect(problem('BTC/USDT * * 2')).toBe('at column 12: expected a pair, a number or "(", got "*"');
    expect(problem('BTC/USDT USDT/RUB')).toBe('at column 10: expected an operator or the end, got "USDT/RUB"');
    expect(problem('BTC * 2')).toMatch(
      /^at column 1: expected a pair like BTC\/USDT \(or source:BTC\/USDT\), a number/,
    );
    expect(problem('  ')).toBe('expected a formula like "BTC/USDT * USDT/RUB", got an empty text');
    expect(problem(`${'('.repeat(40)}BTC/USDT${')'.repeat(40)}`)).toBe(
      'at column 33: parentheses nested deeper than 32',
    );
    expect(problem(`BTC/USDT * ${'9'.repeat(600)}`)).toMatch(/^expected a formula of at most 500 characters/);
  });

  it('a reserve formula reads back-office entries, not pairs, and a rate formula the other way round', () => {
    const formula = read('hot:USDTTRC20 + cold:USDTTRC20 - payouts:SBERRUB_PENDING', 'entry');
    expect(entriesOf(formula.node).map((e) => `${e.source}:${e.key}`)).toEqual([
      'hot:USDTTRC20',
      'cold:USDTTRC20',
      'payouts:SBERRUB_PENDING',
    ]);
    expect(problem('hot:BTC/USDT', 'entry')).toBe(
      'at column 1: expected an entry like wallets:USDTTRC20, got "hot:BTC/USDT"',
    );
    expect(problem('hot:USDTTRC20 * 2')).toBe(
      'at column 1: expected a pair like BTC/USDT or source:BTC/USDT, got "hot:USDTTRC20"',
    );
  });
});
