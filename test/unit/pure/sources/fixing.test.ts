import { describe, expect, it } from 'vitest';
import {
  bankDecimal,
  dottedDay,
  fixingQuotes,
  isCurrentDay,
  perUnit,
  zoneDay,
} from '../../../../src/pure/sources/fixing.js';

const now = new Date('2026-11-21T12:00:00Z');

describe('official fixings: dates', () => {
  it('reads DD.MM.YYYY and nothing else', () => {
    expect(dottedDay('21.11.2026')).toBe('2026-11-21');
    expect(dottedDay('2026-11-21')).toBeUndefined();
    expect(dottedDay('21.11.26')).toBeUndefined();
    expect(dottedDay(20261121)).toBeUndefined();
  });

  it("gives the bank's own date, and the day after it, across a year's end", () => {
    expect(zoneDay(new Date('2026-12-31T21:59:59Z'), 'Europe/Kyiv')).toBe('2026-12-31');
    expect(zoneDay(new Date('2026-12-31T22:00:00Z'), 'Europe/Kyiv')).toBe('2027-01-01');
    expect(zoneDay(new Date('2026-12-31T18:59:59Z'), 'Asia/Tashkent', 1)).toBe('2027-01-01');
    expect(zoneDay(new Date('2026-02-28T12:00:00Z'), 'Europe/Istanbul', 1)).toBe('2026-03-01');
  });

  it('takes a fixing at most the lag old and three days ahead', () => {
    // Counted from the fixing's midnight (UTC): at noon on the 21st, the 7th is within 15 days, the 6th not.
    expect(isCurrentDay('2026-11-07', now, 15)).toBe(true);
    expect(isCurrentDay('2026-11-06', now, 15)).toBe(false);
    expect(isCurrentDay('2026-11-24', now, 15)).toBe(true);
    expect(isCurrentDay('2026-11-25', now, 15)).toBe(false);
  });
});

describe('official fixings: rates per nominal', () => {
  it('reads a decimal comma or point, and refuses anything else', () => {
    expect(bankDecimal('Rate', '470,55')).toEqual({ text: '470.55' });
    expect(bankDecimal('Rate', '470.55')).toEqual({ text: '470.55' });
    expect(bankDecimal('Rate', '')).toEqual({ problem: 'Rate is missing' });
    expect(bankDecimal('Rate', '1,234.5')).toEqual({ problem: 'Rate "1,234.5" is not a decimal' });
    expect(bankDecimal('Rate', '-1')).toEqual({ problem: 'Rate "-1" is not a decimal' });
  });

  it('divides by the nominal exactly, and refuses a zero rate or a nominal that is no positive whole number', () => {
    expect(perUnit(['Rate', '31,2014'], ['Nominal', '10000'])).toEqual({ rate: '0.00312014' });
    expect(perUnit(['Rate', '4.82'], ['Nominal', '10'])).toEqual({ rate: '0.482' });
    expect(perUnit(['Rate', '0.00'], ['Nominal', '1'])).toEqual({ problem: 'Rate "0.00" is zero' });
    expect(perUnit(['Rate', '1'], ['Nominal', '0'])).toEqual({ problem: 'Nominal "0" is not a positive whole number' });
    expect(perUnit(['Rate', '1'], ['Nominal', 1])).toEqual({ problem: 'Nominal 1 is not a positive whole number' });
  });
});

describe('official fixings: the answer', () => {
  const answer = (rows: { code: string; date: string; rate: string }[], pairs?: string[]) =>
    fixingQuotes({
      rows,
      where: 'GET /rates',
      local: 'KZT',
      pairs,
      code: (row) => row.code,
      date: (row) => row.date,
      dateName: 'date',
      rate: (row) => perUnit(['rate', row.rate], ['quant', '1']),
      timeZone: 'Asia/Almaty',
      now,
      lagDays: 15,
    });

  it("dates every quote by the end of the answer's day, and drops a row dated otherwise", () => {
    const result = answer([
      { code: 'USD', date: '20.11.2026', rate: '518.42' },
      { code: 'EUR', date: '19.11.2026', rate: '600.15' },
      { code: 'usd', date: '20.11.2026', rate: '1' },
    ]);
    expect(result).toEqual({
      quotes: [{ pair: 'USD/KZT', bid: '518.42', ask: '518.42', time: new Date('2026-11-20T19:00:00Z') }],
      problems: ['EUR/KZT (EUR) in GET /rates: date "19.11.2026" is not the answer\'s "20.11.2026"'],
    });
  });

  it('fails on an empty answer or one whose date is not current', () => {
    expect(answer([])).toEqual({ problem: 'no rates in the answer' });
    expect(answer([{ code: 'USD', date: '01.10.2026', rate: '1' }])).toEqual({
      problem: 'the rates of 01.10.2026 are not current ones',
    });
  });
});
