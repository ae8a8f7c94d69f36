import { describe, expect, it } from 'vitest';
import { compact, Decimal } from '../../../src/base/decimal.js';

describe('compact', () => {
  it.each([
    new Decimal('123.456789').times('0.98500000000001').div('3.3333'),
    new Decimal(1).div(3),
    new Decimal('1e-35').times('7.5'),
    new Decimal('12345678901234567890123456789012345678.9'),
    new Decimal(0),
    new Decimal('-0.0001'),
  ])('copies %s exactly: another object, the same digits, never rounded', (value) => {
    const copy = compact(value);
    expect(copy).not.toBe(value);
    expect(copy.d).not.toBe(value.d);
    expect(copy.toString()).toBe(value.toString());
    expect([copy.d, copy.e, copy.s]).toEqual([value.d, value.e, value.s]);
  });
});
