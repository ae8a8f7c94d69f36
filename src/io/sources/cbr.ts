// The `cbr` source: the Bank of Russia's official daily rates, GET /scripts/XML_daily.asp: windows-1251 XML,
// decimal commas, RUB per `Nominal` units. Pairs are XXX/RUB; bid = ask = the fixing.
import { z } from 'zod';
import { Decimal, formatDecimal } from '../../base/decimal.js';
import { pairText } from '../../base/config/fields.js';
import { httpTarget, SourceError } from './http.js';
import { httpOptions } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import {
  collectQuotes,
  endOfDay,
  isRecord,
  pairSymbols,
  priceLengthProblem,
  shown,
} from '../../pure/sources/values.js';
import { getXml } from './xml.js';

const path = '/scripts/XML_daily.asp';
const dayMs = 86_400_000;
/** The longest a fixing may lag the day asked for (New Year holidays run ten days). */
const maxLagDays = 15;

/** Today in Moscow as CBR wants it (`21/11/2026`): without a date CBR may answer with tomorrow's rates. */
export function moscowDate(now: Date): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Europe/Moscow',
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
  }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('day')}/${part('month')}/${part('year')}`;
}

/** `81,5032` (or `81.5032`) as decimal text; undefined for anything else. */
const commaDecimal = (value: unknown): string | undefined =>
  typeof value === 'string' && /^\d+([.,]\d+)?$/.test(value) ? value.replace(',', '.') : undefined;

/** The problem with a Value or VunitRate as CBR wrote it, or its decimal text. */
function rateText(name: string, value: unknown): { text: string } | { problem: string } {
  const text = commaDecimal(value);
  if (text === undefined) return { problem: `${name} ${shown(value)} is not a decimal` };
  const tooLong = priceLengthProblem(text);
  return tooLong ? { problem: `${name} ${shown(value)} ${tooLong}` } : { text };
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** RUB per one unit: Value ÷ Nominal, checked against VunitRate when CBR sends it (it did not before 2024). */
function unitRate(valute: Record<string, unknown>): { rate: string } | { problem: string } {
  const read = rateText('Value', valute.Value);
  if ('problem' in read) return read;
  const value = read.text;
  const nominal = text(valute.Nominal);
  if (nominal === undefined || !/^[1-9]\d*$/.test(nominal))
    return { problem: `Nominal ${shown(valute.Nominal)} is not a positive whole number` };
  const rate = new Decimal(value).div(nominal);
  if (rate.isZero()) return { problem: `Value ${shown(valute.Value)} is zero` };
  if (valute.VunitRate !== undefined) {
    const readUnit = rateText('VunitRate', valute.VunitRate);
    if ('problem' in readUnit) return readUnit;
    const unit = readUnit.text;
    if (new Decimal(unit).minus(rate).abs().greaterThan(rate.times('0.000001'))) {
      return {
        problem: `VunitRate ${unit} disagrees with Value ÷ Nominal (${value} ÷ ${nominal} = ${formatDecimal(rate)})`,
      };
    }
  }
  return { rate: formatDecimal(rate) };
}

export const cbrSource = defineSource({
  type: 'cbr',
  options: z.strictObject({
    type: z.literal('cbr'),
    pairs: z
      .array(
        pairText.refine((pair) => pair.endsWith('/RUB'), {
          error: (issue) => `expected a pair against RUB like "USD/RUB", got ${shown(issue.input)}`,
        }),
      )
      .min(1, { error: 'expected at least one pair' })
      .optional()
      .describe('Pairs to take, XXX/RUB (default: every currency in the fixing).'),
    date: z
      .enum(['today', 'latest'])
      .optional()
      .describe(
        "today (default): the rates in force today in Moscow; latest: the newest fixing, which after about 15:30 is tomorrow's.",
      ),
    ...httpOptions,
  }),
  defaultRefreshMs: 3_600_000,
  async fetchQuotes(options, context) {
    const target = httpTarget('cbr', 'https://www.cbr.ru', options, context);
    const now = context.now();
    const query: Record<string, string> = (options.date ?? 'today') === 'today' ? { date_req: moscowDate(now) } : {};
    const { where, body } = await getXml(context, target, { path, query }, (name) => name === 'Valute');
    const fail = (problem: string) => new SourceError(`${context.name}: ${where}: ${problem}`);
    const root = isRecord(body) ? body.ValCurs : undefined;
    // A bad request is answered with 200 and <ValCurs>Error in parameters</ValCurs>.
    if (typeof root === 'string') throw fail(`CBR answered ${shown(root)}`);
    if (!isRecord(root)) throw fail('expected a <ValCurs> document');
    const date = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(text(root['@_Date']) ?? '');
    if (!date) throw fail(`ValCurs Date ${shown(root['@_Date'])} is not a date like 21.11.2026`);
    const fixed = Date.UTC(Number(date[3]), Number(date[2]) - 1, Number(date[1]));
    if (fixed < now.getTime() - maxLagDays * dayMs || fixed > now.getTime() + 3 * dayMs)
      throw fail(`the fixing of ${date[0]} is not a current one`);
    // The rate set for a date is in force through that day in Moscow, so its age counts from the end of that
    // day; a fixing for today, or set in advance for tomorrow (date: latest in the evening), is as new as the fetch.
    const dated = endOfDay(`${date[3]}-${date[2]}-${date[1]}`, 'Europe/Moscow', now);
    const valutes = Array.isArray(root.Valute) ? root.Valute.filter(isRecord) : [];
    if (valutes.length === 0) throw fail('no <Valute> rates in the document');
    const byCode = new Map<string, Record<string, unknown>>();
    for (const valute of valutes) {
      const code = text(valute.CharCode);
      if (code && !byCode.has(code)) byCode.set(code, valute);
    }
    const pairs = pairSymbols(
      options.pairs ?? [...byCode.keys()].filter((code) => /^[A-Z]{3}$/.test(code)).map((code) => `${code}/RUB`),
      (base) => base,
    );
    return collectQuotes(
      pairs,
      where,
      (pair) => byCode.get(pair.base),
      (valute, pair, label) => {
        const rate = unitRate(valute);
        // The decoded name (Доллар США) makes a problem line easy to place.
        const named =
          typeof valute.Name === 'string'
            ? label.replace(`(${pair.symbol})`, `(${pair.symbol}, ${valute.Name})`)
            : label;
        return 'problem' in rate
          ? `${named}: ${rate.problem}`
          : { pair: pair.pair, bid: rate.rate, ask: rate.rate, time: dated };
      },
    );
  },
});
