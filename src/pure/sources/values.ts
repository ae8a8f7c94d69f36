// What sources send, made safe: JSON whose numbers stay decimal text, prices checked as decimal strings, pair lists.
import { Decimal, MAX_QUOTE_DIGITS, writtenDigits } from '../../base/decimal.js';
import { redactSecrets } from '../../base/secrets.js';
import { checkJsonBounds } from './json-bounds.js';
import type { RawQuote } from '../../model/source.js';

const numberToken = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * JSON.parse, except that every number arrives as its literal text (`81.5032` → `"81.5032"`), so a price
 * sent as a JSON number never passes through a binary float. Throws SyntaxError like JSON.parse. `mark` is put
 * in front of each number's text, for a reader that must tell a number from a string (the export check).
 */
export function parseJsonExact(text: string, mark = ''): unknown {
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the whole string, escapes included.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      numberToken.lastIndex = i;
      const match = numberToken.exec(text);
      if (!match) continue; // JSON.parse reports the bad character below
      out += `${text.slice(start, i)}"${mark}${match[0]}"`;
      i += match[0].length - 1;
      start = i + 1;
    }
  }
  return JSON.parse(out + text.slice(start)) as unknown;
}

/**
 * A source's JSON (an API's answer, a back office's file): `parseJsonExact` after an allocation-free pass that
 * refuses it past `sourceJsonBounds` (JsonBoundsError), so a hostile one costs no more than reading it.
 */
export function parseSourceJson(text: string): unknown {
  checkJsonBounds(text);
  return parseJsonExact(text);
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value as it appears in a message: strings quoted and cut short, structures named. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') {
    // Redact, then cut: a token cut short would no longer be recognized.
    const text = redactSecrets(value);
    return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  }
  if (Array.isArray(value)) return 'a list';
  if (isRecord(value)) return 'an object';
  return String(value);
}

const decimalLike = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The most digits a price may have. Decimal works to 40 significant digits; a longer number is a fault in
 * the feed, not a price, and would cost time and memory in every step after this one. (The config's own
 * decimals get their bound from src/base/decimal.ts; unify the two at merge.)
 */
/** Why a price's decimal text is too long (more than `MAX_QUOTE_DIGITS` digits written out), or undefined. */
export function priceLengthProblem(text: string): string | undefined {
  const { integer, fraction } = writtenDigits(text);
  const digits = integer + fraction;
  return digits > MAX_QUOTE_DIGITS ? `has ${digits} digits, more than ${MAX_QUOTE_DIGITS}` : undefined;
}

/**
 * A price as plain positive decimal text, or why it is not one. Exponents (`1.2e-7`, as CoinGecko sends
 * tiny prices) are expanded exactly; empty, non-numeric, zero and negative values are refused.
 */
export function priceText(value: unknown): { text: string } | { problem: string } {
  if (value === undefined || value === null) return { problem: 'is missing' };
  if (typeof value !== 'string') return { problem: `is not a decimal: ${shown(value)}` };
  if (value === '') return { problem: 'is an empty string' };
  if (!decimalLike.test(value)) return { problem: `is not a decimal: ${shown(value)}` };
  const tooLong = priceLengthProblem(value);
  if (tooLong) return { problem: `${tooLong}: ${shown(value)}` };
  const decimal = new Decimal(value);
  if (decimal.isNegative() && !decimal.isZero()) return { problem: `is negative: ${shown(value)}` };
  if (decimal.isZero()) return { problem: `is zero: ${shown(value)}` };
  return { text: /[eE]/.test(value) ? decimal.toFixed() : value };
}

/**
 * One quote from the fields a source sent, checked: positive decimal prices, bid not above ask. `label`
 * says where it came from (`BTC/USDT (BTCUSDT) in GET /api/v3/ticker/bookTicker`) for the problem line.
 */
export function quoteFrom(
  pair: string,
  label: string,
  fields: { bid: [name: string, value: unknown]; ask: [name: string, value: unknown] },
  time: Date,
): RawQuote | string {
  const bid = priceText(fields.bid[1]);
  if ('problem' in bid) return `${label}: ${fields.bid[0]} ${bid.problem}`;
  const ask = priceText(fields.ask[1]);
  if ('problem' in ask) return `${label}: ${fields.ask[0]} ${ask.problem}`;
  if (new Decimal(bid.text).greaterThan(ask.text)) return `${label}: bid ${bid.text} is above ask ${ask.text}`;
  return { pair, bid: bid.text, ask: ask.text, time };
}

/** A configured pair and the source's own name for it. */
export interface PairSymbol {
  pair: string;
  base: string;
  quote: string;
  symbol: string;
}

/**
 * `pairs` as configured, a list (`[BTC/USDT]`, each named by `symbolOf`) or a mapping to the source's own
 * names (`{ BTC/USDT: XBTUSDT }`), as one list.
 */
export function pairSymbols(
  pairs: readonly string[] | Readonly<Record<string, string>>,
  symbolOf: (base: string, quote: string) => string,
): PairSymbol[] {
  const entries: [string, string | undefined][] = Array.isArray(pairs)
    ? pairs.map((pair: string) => [pair, undefined])
    : Object.entries(pairs);
  return entries.map(([pair, symbol]) => {
    const [base = '', quote = ''] = pair.split('/');
    return { pair, base, quote, symbol: symbol ?? symbolOf(base, quote) };
  });
}

/** A server time (Unix milliseconds) when it is plausible, capped at `fetchedAt` so clock skew never makes a quote newer than its fetch. */
export function serverTime(value: unknown, fetchedAt: Date): Date {
  const ms = typeof value === 'string' && /^\d{13}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(ms) || ms <= 0 || ms > fetchedAt.getTime()) return fetchedAt;
  return new Date(ms);
}

/** How far `timeZone`'s wall clock is ahead of UTC at `instant`, in ms (Intl, so DST follows the tz database). */
function zoneOffsetMs(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(instant);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return (
    Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second')) -
    Math.floor(instant / 1000) * 1000
  );
}

/**
 * When a bank's rate dated `day` (`2026-11-20`) is as old as it will ever be as that day's rate: the end of
 * that day (midnight after it) in the bank's `timeZone`, so `maxAge` counts from the rate's own date, not
 * from when it was fetched. Never later than `fetchedAt`: a rate of today, or set in advance for tomorrow
 * (CBR), counts as new as the fetch, never as from the future.
 */
export function endOfDay(day: string, timeZone: string, fetchedAt: Date): Date {
  const [year, month, date] = day.split('-').map(Number);
  // Date.UTC, as the sources check the date with: an impossible day rolls over the same way for both.
  const midnightAsUtc = Date.UTC(year ?? Number.NaN, (month ?? Number.NaN) - 1, (date ?? Number.NaN) + 1);
  if (Number.isNaN(midnightAsUtc)) throw new Error(`endOfDay: ${day} is not a date like 2026-11-20`);
  // The offset at the UTC reading is at most a few hours off the local one; asking again at the guess settles a DST change.
  const guess = midnightAsUtc - zoneOffsetMs(midnightAsUtc, timeZone);
  const end = midnightAsUtc - zoneOffsetMs(guess, timeZone);
  return end < fetchedAt.getTime() ? new Date(end) : fetchedAt;
}

/**
 * Quotes for the configured pairs out of a response: `find` looks a pair up, `read` turns what it found
 * into a quote or a problem. A pair not found is a problem too; the other pairs still count.
 */
export function collectQuotes<Entry, Pair extends PairSymbol>(
  pairs: readonly Pair[],
  where: string,
  find: (pair: Pair) => Entry | undefined,
  read: (entry: Entry, pair: Pair, label: string) => RawQuote | string,
): { quotes: RawQuote[]; problems: string[] } {
  const quotes: RawQuote[] = [];
  const problems: string[] = [];
  for (const pair of pairs) {
    const label = `${pair.pair} (${pair.symbol}) in ${where}`;
    const entry = find(pair);
    const result = entry === undefined ? `${label}: not in the response` : read(entry, pair, label);
    if (typeof result === 'string') problems.push(result);
    else quotes.push(result);
  }
  return { quotes, problems };
}
