// Working hours: parseHours (every kind of mistake gets its own reason) and isOpen (day ranges, overnight
// windows, time zones, several windows) at fixed instants. 2026-11-20 is a Friday, 2026-11-21 a Saturday.
import { describe, expect, it } from 'vitest';
import { isOpen, parseHours, type HoursWindow } from '../../../src/base/hours.js';

function parsed(text: string): HoursWindow {
  const window = parseHours(text);
  if (typeof window === 'string') throw new Error(`expected "${text}" to parse, got: ${window}`);
  return window;
}

const openAt = (texts: string | readonly string[], at: string): boolean =>
  isOpen((typeof texts === 'string' ? [texts] : texts).map(parsed), new Date(at));

describe('parseHours: what is refused, and why', () => {
  it.each([
    ['Xyz 09:00-21:00 UTC', /unknown day in "Xyz"/],
    ['Mon-Funday 09:00-21:00 UTC', /expected hours like/],
    ['Mon-Fry 09:00-21:00 UTC', /unknown day in "Mon-Fry"/],
    ['Mon,Tue,Wex 09:00-21:00 UTC', /unknown day in "Wex"/],
    ['25:00-26:00 UTC', /invalid time in "25:00-26:00 UTC"/],
    ['09:60-21:00 UTC', /invalid time/],
    ['09:00-21:75 UTC', /invalid time/],
    ['09:00-24:30 UTC', /invalid time/],
    ['24:00-06:00 UTC', /invalid time/],
    ['9:00-21:00 UTC', /expected hours like/],
    ['09:00-21:00', /expected hours like/],
    ['09:00 - 21:00 UTC', /expected hours like/],
    ['09:00-21:00 Mars/Olympus_Mons', /unknown time zone "Mars\/Olympus_Mons"/],
    ['09:00-21:00 MSK+3', /unknown time zone "MSK\+3"/],
    ['09:00-09:00 UTC', /empty window "09:00-09:00 UTC"/],
    ['Mon 00:00-00:00 UTC', /empty window/],
    ['', /expected hours like/],
    ['always', /expected hours like/],
  ])('%j: %s', (text, reason) => {
    const result = parseHours(text);
    expect(typeof result, `"${text}" should be refused`).toBe('string');
    expect(result).toMatch(reason);
  });

  it('accepts days in any case, 24:00 as the end of the day, and surrounding blanks', () => {
    expect(parsed('mon-FRI 09:00-24:00 Europe/Moscow')).toMatchObject({
      start: 9 * 60,
      end: 24 * 60,
      timeZone: 'Europe/Moscow',
    });
    expect(parsed('  22:00-06:00 UTC  ')).toMatchObject({ start: 22 * 60, end: 6 * 60, timeZone: 'UTC' });
  });

  it.each([
    ['09:00-21:00 UTC', [0, 1, 2, 3, 4, 5, 6]],
    ['Mon-Fri 09:00-21:00 UTC', [1, 2, 3, 4, 5]],
    ['Fri-Mon 09:00-21:00 UTC', [0, 1, 5, 6]],
    ['Sat-Sun 09:00-21:00 UTC', [0, 6]],
    ['Sun-Sat 09:00-21:00 UTC', [0, 1, 2, 3, 4, 5, 6]],
    ['Wed 09:00-21:00 UTC', [3]],
    ['Mon,Wed,Fri-Sat 09:00-21:00 UTC', [1, 3, 5, 6]],
  ])('%j starts on days %j (0 = Sunday)', (text, days) => {
    expect([...parsed(text).days].sort((a, b) => a - b)).toEqual(days);
  });
});

describe('isOpen', () => {
  it.each([
    // A plain window: start inclusive, end exclusive.
    ['Mon-Fri 09:00-21:00 UTC', '2026-11-20T08:59:59Z', false],
    ['Mon-Fri 09:00-21:00 UTC', '2026-11-20T09:00:00Z', true],
    ['Mon-Fri 09:00-21:00 UTC', '2026-11-20T20:59:59Z', true],
    ['Mon-Fri 09:00-21:00 UTC', '2026-11-20T21:00:00Z', false],
    ['Mon-Fri 09:00-21:00 UTC', '2026-11-21T12:00:00Z', false], // Saturday
    ['09:00-24:00 UTC', '2026-11-21T23:59:00Z', true],
    // A day range that wraps past Sunday: Fri, Sat, Sun, Mon.
    ['Fri-Mon 10:00-12:00 UTC', '2026-11-22T11:00:00Z', true], // Sunday
    ['Fri-Mon 10:00-12:00 UTC', '2026-11-23T11:00:00Z', true], // Monday
    ['Fri-Mon 10:00-12:00 UTC', '2026-11-24T11:00:00Z', false], // Tuesday
    ['Fri-Mon 10:00-12:00 UTC', '2026-11-19T11:00:00Z', false], // Thursday
    // Overnight windows belong to the day they start.
    ['Fri 22:00-06:00 UTC', '2026-11-20T23:00:00Z', true], // Friday evening
    ['Fri 22:00-06:00 UTC', '2026-11-21T03:00:00Z', true], // Saturday 03:00: Friday's night
    ['Fri 22:00-06:00 UTC', '2026-11-20T03:00:00Z', false], // Friday 03:00: Thursday's night, not listed
    ['Fri 22:00-06:00 UTC', '2026-11-21T06:00:00Z', false], // the end is exclusive
    ['Fri 22:00-06:00 UTC', '2026-11-21T23:00:00Z', false], // Saturday evening
    ['Fri 22:00-06:00 UTC', '2026-11-20T21:59:00Z', false],
    ['Sat 22:00-06:00 UTC', '2026-11-22T05:59:00Z', true], // Sunday morning after Saturday
    ['Sun 22:00-06:00 UTC', '2026-11-23T05:00:00Z', true], // Monday morning after Sunday (the week wraps)
    ['Sun 22:00-06:00 UTC', '2026-11-21T05:00:00Z', false], // Saturday morning
    ['22:00-06:00 UTC', '2026-11-20T12:00:00Z', false],
    ['22:00-06:00 UTC', '2026-11-20T00:30:00Z', true],
  ])('%j at %s → %s', (text, at, open) => {
    expect(openAt(text, at)).toBe(open);
  });

  it('reads the clock in the window’s time zone', () => {
    // 2026-11-20T06:30Z is Friday 09:30 in Moscow (UTC+3) and 06:30 in UTC.
    const at = '2026-11-20T06:30:00Z';
    expect(openAt('Mon-Fri 09:00-21:00 Europe/Moscow', at)).toBe(true);
    expect(openAt('Mon-Fri 09:00-21:00 UTC', at)).toBe(false);
    // 2026-11-20T19:30Z is Friday 22:30 in Moscow: closed there, open in UTC.
    expect(openAt('Mon-Fri 09:00-21:00 Europe/Moscow', '2026-11-20T19:30:00Z')).toBe(false);
    expect(openAt('Mon-Fri 09:00-21:00 UTC', '2026-11-20T19:30:00Z')).toBe(true);
    // The weekday is Moscow's too: Friday 22:00Z is already Saturday 01:00 in Moscow.
    expect(openAt('Sat 00:00-02:00 Europe/Moscow', '2026-11-20T22:00:00Z')).toBe(true);
    expect(openAt('Sat 00:00-02:00 UTC', '2026-11-20T22:00:00Z')).toBe(false);
    // A zone west of UTC: 2026-11-21T03:00Z is Friday 22:00 in New York (UTC-5 in November).
    expect(openAt('Fri 21:00-23:00 America/New_York', '2026-11-21T03:00:00Z')).toBe(true);
    expect(openAt('Sat 21:00-23:00 America/New_York', '2026-11-21T03:00:00Z')).toBe(false);
  });

  it('an overnight window in a time zone crosses midnight there, not in UTC', () => {
    // Fri 22:00-06:00 Moscow = Fri 19:00Z .. Sat 03:00Z.
    const night = 'Fri 22:00-06:00 Europe/Moscow';
    expect(openAt(night, '2026-11-20T19:00:00Z')).toBe(true);
    expect(openAt(night, '2026-11-21T02:59:00Z')).toBe(true);
    expect(openAt(night, '2026-11-21T03:00:00Z')).toBe(false);
    expect(openAt(night, '2026-11-20T18:59:00Z')).toBe(false);
  });

  it('is open when any of several windows is open', () => {
    const split = ['Mon-Fri 09:00-13:00 UTC', 'Mon-Fri 14:00-18:00 UTC', 'Sat 10:00-12:00 Europe/Moscow'];
    expect(openAt(split, '2026-11-20T10:00:00Z')).toBe(true);
    expect(openAt(split, '2026-11-20T13:30:00Z')).toBe(false); // lunch
    expect(openAt(split, '2026-11-20T15:00:00Z')).toBe(true);
    expect(openAt(split, '2026-11-21T07:30:00Z')).toBe(true); // Saturday 10:30 in Moscow
    expect(openAt(split, '2026-11-21T10:00:00Z')).toBe(false); // Saturday 13:00 in Moscow
    expect(isOpen([], new Date('2026-11-20T10:00:00Z'))).toBe(false);
  });
});
