// What official fixings have in common (the `nbu`, `nbk`, `cbu` and `cbrt` sources): pairs against one local
// currency, a rate per `nominal` units that may be written with a decimal comma, and a date of its own, checked to
// be a current one and turned into the time the rate is as old as.
import { z } from 'zod';
import { Decimal, formatDecimal } from '../../base/decimal.js';
import { pairText } from '../../base/config/fields.js';
import type { RawQuote } from '../../model/source.js';
import { collectQuotes, endOfDay, pairSymbols, priceLengthProblem, shown } from './values.js';

const dayMs = 86_400_000;

/** The `pairs` option of a source whose rates are all against `local` (`XXX/UAH`). */
export function pairsAgainst(local: string, example: string, all: string) {
  return z
    .array(
      pairText.refine((pair) => pair.endsWith(`/${local}`), {
        error: (issue) => `expected a pair against ${local} like "${example}", got ${shown(issue.input)}`,
      }),
    )
    .min(1, { error: 'expected at least one pair' })
    .optional()
    .describe(`Pairs to take, XXX/${local} (default: ${all}).`);
}

/** `21.11.2026` as `2026-11-21`; undefined for anything else. */
export function dottedDay(value: unknown): string | undefined {
  const match = typeof value === 'string' ? /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(value) : null;
  return match ? `${match[3]}-${match[2]}-${match[1]}` : undefined;
}

/** The date in `timeZone` at `now`, `days` later, as `2026-11-21`: the day a bank is asked for. */
export function zoneDay(now: Date, timeZone: string, days = 0): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
  }).formatToParts(now);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return new Date(Date.UTC(part('year'), part('month') - 1, part('day') + days)).toISOString().slice(0, 10);
}

/**
 * Whether a fixing dated `day` (`2026-11-21`) is a current one at `now`: at most `lagDays` old (a fixing stands
 * over weekends and holidays) and at most `aheadDays` ahead (banks set tomorrow's in the afternoon).
 */
export function isCurrentDay(day: string, now: Date, lagDays: number, aheadDays = 3): boolean {
  const [year, month, date] = day.split('-').map(Number);
  const fixed = Date.UTC(year ?? Number.NaN, (month ?? Number.NaN) - 1, date ?? Number.NaN);
  return fixed >= now.getTime() - lagDays * dayMs && fixed <= now.getTime() + aheadDays * dayMs;
}

/**
 * The day of a fixing from its date as the bank wrote it (`21.11.2026`, in the field `name`), when it is a current one
 * at `now` (see `isCurrentDay`); the problem otherwise, for the source to fail with.
 */
export function fixingDay(
  name: string,
  value: unknown,
  now: Date,
  lagDays: number,
): { day: string } | { problem: string } {
  const day = dottedDay(value);
  if (day === undefined) return { problem: `${name} ${shown(value)} is not a date like 21.11.2026` };
  if (!isCurrentDay(day, now, lagDays)) return { problem: `the rates of ${String(value)} are not current ones` };
  return { day };
}

/** A rate as a bank wrote it, `470,55` or `470.55`, as decimal text; the problem otherwise (named `name`). */
export function bankDecimal(name: string, value: unknown): { text: string } | { problem: string } {
  if (value === undefined || value === '') return { problem: `${name} is missing` };
  if (typeof value !== 'string' || !/^\d+([.,]\d+)?$/.test(value.trim()))
    return { problem: `${name} ${shown(value)} is not a decimal` };
  const tooLong = priceLengthProblem(value.trim());
  return tooLong ? { problem: `${name} ${shown(value)} ${tooLong}` } : { text: value.trim().replace(',', '.') };
}

/**
 * Local currency per one unit: a rate per `nominal` units (`21,5637` per 100 AMD is `0.215637`), both as the
 * bank wrote them; the problem with either otherwise (a zero rate, a nominal that is not a positive whole number).
 */
export function perUnit(
  rate: [name: string, value: unknown],
  nominal: [name: string, value: unknown],
): { rate: string } | { problem: string } {
  const read = bankDecimal(rate[0], rate[1]);
  if ('problem' in read) return read;
  const units = typeof nominal[1] === 'string' ? nominal[1].trim() : nominal[1];
  if (typeof units !== 'string' || !/^[1-9]\d{0,9}$/.test(units))
    return { problem: `${nominal[0]} ${shown(nominal[1])} is not a positive whole number` };
  const unit = new Decimal(read.text).div(units);
  if (unit.isZero()) return { problem: `${rate[0]} ${shown(rate[1])} is zero` };
  return { rate: formatDecimal(unit) };
}

/** One central bank's answer, read row by row: what the source knows of its shape. */
export interface FixingAnswer<Row> {
  rows: readonly Row[];
  /** How messages name the request (`GET /rss/rates_all.xml`). */
  where: string;
  /** The local currency every pair is against (`KZT`). */
  local: string;
  /** The configured pairs; every currency in the answer when absent. */
  pairs: readonly string[] | undefined;
  /** A row's currency code, and its date (`21.11.2026`) under the field name `dateName`. */
  code: (row: Row) => unknown;
  date: (row: Row) => unknown;
  dateName: string;
  /** A row's rate in the local currency per one unit (or its buying and selling rates), or the problem with it. */
  rate: (row: Row) => { rate: string } | { bid: string; ask: string } | { problem: string };
  /** The bank's time zone: a rate is as old as the end of its own date there. */
  timeZone: string;
  now: Date;
  lagDays: number;
}

/**
 * The quotes of an official fixing: the answer's date is its first row's and must be a current one (the problem,
 * for the source to fail with, otherwise); a row dated otherwise, a currency not in the answer or a bad rate
 * drops that pair with a reason; bid = ask = the rate (or the bank's buying and selling rates), dated by the end
 * of the fixing's day in the bank's zone.
 */
export function fixingQuotes<Row>(
  answer: FixingAnswer<Row>,
): { quotes: RawQuote[]; problems: string[] } | { problem: string } {
  const first = answer.rows[0];
  if (first === undefined) return { problem: 'no rates in the answer' };
  const date = answer.date(first);
  const fixing = fixingDay(answer.dateName, date, answer.now, answer.lagDays);
  if ('problem' in fixing) return fixing;
  const time = endOfDay(fixing.day, answer.timeZone, answer.now);
  const byCode = new Map<string, Row>();
  for (const row of answer.rows) {
    const code = answer.code(row);
    if (typeof code === 'string' && !byCode.has(code)) byCode.set(code, row);
  }
  const pairs = pairSymbols(
    answer.pairs ??
      [...byCode.keys()].filter((code) => /^[A-Z]{3}$/.test(code)).map((code) => `${code}/${answer.local}`),
    (base) => base,
  );
  return collectQuotes(
    pairs,
    answer.where,
    (pair) => byCode.get(pair.base),
    (row, pair, label) => {
      const own = answer.date(row);
      if (own !== date) return `${label}: ${answer.dateName} ${shown(own)} is not the answer's ${shown(date)}`;
      const rate = answer.rate(row);
      if ('problem' in rate) return `${label}: ${rate.problem}`;
      return 'rate' in rate
        ? { pair: pair.pair, bid: rate.rate, ask: rate.rate, time }
        : { pair: pair.pair, bid: rate.bid, ask: rate.ask, time };
    },
  );
}
