import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import { planOf } from '../../../../src/pure/pricing/plan.js';
import { testCurrency, testDirection } from '../../../support/model.js';

const BTC = testCurrency('BTC', 'BTC', 8);
const SBER = testCurrency('SBERRUB', 'RUB', 2);
const ETH = testCurrency('ETH', 'ETH', 8);

describe('planOf', () => {
  it('gives directions alike one plan object, so a big config keeps a plan per group, not per direction', () => {
    const first = testDirection(BTC, SBER, { id: 'BTC>SBERRUB', cities: ['MSK'] });
    const second = testDirection(BTC, SBER, { id: 'BTC>SBERRUB', cities: ['SPB'] });
    expect(first).not.toBe(second);
    expect(planOf(second)).toBe(planOf(first));
    // Another group (another asset pair) to the same currency shares the numbers of its reserve and margin.
    const other = planOf(testDirection(ETH, SBER));
    expect(other).not.toBe(planOf(first));
    expect([other.keep, other.amount]).toEqual([planOf(first).keep, planOf(first).amount]);
    expect(other.keep).toBe(planOf(first).keep);
    expect(other.amount).toBe(planOf(first).amount);
  });

  it('keeps apart what prices apart: another margin, reserve or limit', () => {
    const base = planOf(testDirection(BTC, SBER));
    const margin = planOf(testDirection(BTC, SBER, { margin: new Decimal('0.03') }));
    const reserve = planOf(testDirection(BTC, SBER, { reserve: new Decimal('5000') }));
    const limit = planOf(testDirection(BTC, SBER, { min: { value: new Decimal('100'), asset: 'RUB' } }));
    expect(new Set([base, margin, reserve, limit]).size).toBe(4);
    expect(margin.keep.toString()).toBe('0.97');
    expect(reserve.amount.toString()).toBe('5000');
    expect(limit.limits).toContain('100 RUB');
  });

  it('gives a direction whose reserve a source read a plan of its own (its reserve is new at every build)', () => {
    const read = (reserve: string) =>
      testDirection(BTC, SBER, { reserveSource: 'bank', reserve: new Decimal(reserve) });
    const [first, again] = [planOf(read('700')), planOf(read('700'))];
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
