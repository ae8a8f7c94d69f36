// Working hours such as "Mon-Fri 09:00-21:00 Europe/Moscow": parsed once at load, checked against the build's clock.
import { quoteValue } from './errors.js';

const dayNames = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

export interface HoursWindow {
  /** Days (0 = Sunday) on which a window starts; an overnight window ends on the next day. */
  readonly days: ReadonlySet<number>;
  /** Minutes since midnight; `end` ≤ `start` means the window runs past midnight. */
  readonly start: number;
  readonly end: number;
  readonly timeZone: string;
  /** The text it came from, for messages. */
  text: string;
}

const windowPattern =
  /^(?:([A-Za-z]{3}(?:-[A-Za-z]{3})?(?:,[A-Za-z]{3}(?:-[A-Za-z]{3})?)*)\s+)?(\d{2}):(\d{2})-(\d{2}):(\d{2})\s+(\S+)$/;

function dayIndex(name: string): number {
  return dayNames.findIndex((day) => day.toLowerCase() === name.toLowerCase());
}

function validTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** Parse one window; a string is the reason it is invalid. */
export function parseHours(text: string): HoursWindow | string {
  const match = windowPattern.exec(text.trim());
  const expected =
    'expected hours like "Mon-Fri 09:00-21:00 Europe/Moscow" (days optional, 22:00-06:00 runs overnight)';
  if (!match) return expected;
  const [, daysText, startH, startM, endH, endM, timeZone = ''] = match;
  const days = new Set<number>();
  for (const part of daysText ? daysText.split(',') : ['Sun-Sat']) {
    const [first = '', last = first] = part.split('-');
    const [from, to] = [dayIndex(first), dayIndex(last)];
    if (from < 0 || to < 0) return `unknown day in ${quoteValue(part)}; expected Mon, Tue, Wed, Thu, Fri, Sat or Sun`;
    for (let day = from; ; day = (day + 1) % 7) {
      days.add(day);
      if (day === to) break;
    }
  }
  const start = Number(startH) * 60 + Number(startM);
  const end = Number(endH) * 60 + Number(endM);
  if (
    Number(startH) > 23 ||
    Number(endH) > 24 ||
    Number(startM) > 59 ||
    Number(endM) > 59 ||
    (Number(endH) === 24 && Number(endM) > 0)
  ) {
    return `invalid time in ${quoteValue(text)}; expected HH:MM between 00:00 and 24:00`;
  }
  if (start === end) return `empty window ${quoteValue(text)}: start and end are the same`;
  if (!validTimeZone(timeZone))
    return `unknown time zone ${quoteValue(timeZone)}; expected an IANA name like Europe/Moscow`;
  return { days, start, end, timeZone, text };
}

/** Weekday and minute of the day at `at` in a time zone. */
function localTime(at: Date, timeZone: string): { day: number; minute: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { day: dayIndex(part('weekday')), minute: Number(part('hour')) * 60 + Number(part('minute')) };
}

export function isOpen(windows: readonly HoursWindow[], at: Date): boolean {
  return windows.some((window) => {
    const { day, minute } = localTime(at, window.timeZone);
    if (window.start < window.end) return window.days.has(day) && minute >= window.start && minute < window.end;
    // Overnight: the evening part belongs to a listed day, the morning part to the day after one.
    return (window.days.has(day) && minute >= window.start) || (window.days.has((day + 6) % 7) && minute < window.end);
  });
}
