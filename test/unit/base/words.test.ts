// words.ts: the one wording of a percentage, a count, an age, a long rate and a direction for people.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/base/decimal.js';
import { age, ago, directionName, directionNameOfId, percent, plural, show } from '../../../src/base/words.js';

describe('words', () => {
  it.each([
    [0, '0 s'],
    [0.4, '0 s'],
    [90, '90 s'],
    [119, '119 s'],
    [120, '2 min'],
    [300, '5 min'],
    [7_170, '2 h'],
    [7_500, '2 h 5 min'],
    [10_800, '3 h'],
    [172_799, '2 days'],
    [360_000, '4 days'],
    [31_536_000, '365 days'],
    [-90, '-90 s'],
    [-7_500, '-2 h 5 min'],
  ])('age(%s) is %s', (seconds, text) => {
    expect(age(seconds)).toBe(text);
  });

  it('ago reads the age between two times', () => {
    expect(ago('2026-11-21T10:00:00.000Z', new Date('2026-11-21T12:05:00Z'))).toBe('2 h 5 min ago');
    expect(ago('2026-11-21T12:00:00.000Z', '2026-11-21T12:00:05.000Z')).toBe('5 s ago');
  });

  it('percent, plural', () => {
    expect(percent(new Decimal('0.015'))).toBe('1.5%');
    expect(percent(new Decimal('0.1001'))).toBe('10.01%');
    expect(percent(new Decimal('0'))).toBe('0%');
    expect([plural(0, 'file'), plural(1, 'file'), plural(2, 'file')]).toEqual(['0 files', '1 file', '2 files']);
    expect([plural(1, 'entry', 'entries'), plural(3, 'entry', 'entries')]).toEqual(['1 entry', '3 entries']);
  });

  it('show: 14 significant digits, and "…" only when that cut something', () => {
    expect(show(new Decimal('8942034.1428'))).toBe('8942034.1428');
    expect(show(new Decimal('18500000').div('8942034.1428'))).toBe('2.0688804923537…');
    expect(show(new Decimal('0.000000108753619345123'))).toBe('0.00000010875361934512…');
    expect(show(new Decimal('123456789012345678901234567890123456789'))).toBe(
      '123456789012350000000000000000000000000…',
    );
  });

  it('a direction is named "FROM → TO", from its codes or its id', () => {
    expect(directionName('BTC', 'SBERRUB')).toBe('BTC → SBERRUB');
    expect(directionNameOfId('BTC>SBERRUB')).toBe('BTC → SBERRUB');
    expect(directionNameOfId('odd')).toBe('odd');
  });
});
