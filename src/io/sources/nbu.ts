// The `nbu` source: the National Bank of Ukraine's official hryvnia rates, GET
// /NBUStatService/v1/statdirectory/exchange?json[&date=YYYYMMDD]: a JSON list of { r030, txt, rate, cc, exchangedate },
// `rate` a JSON number of UAH per 1 unit. Pairs are XXX/UAH; bid = ask = the official rate.
import { z } from 'zod';
import { getJson, httpTarget, SourceError, type EnvelopeProblem, type HttpTarget } from './http.js';
import { httpOptions } from '../../pure/sources/options.js';
import { defineSource, type SourceContext } from '../../model/source.js';
import { fixingQuotes, pairsAgainst, zoneDay } from '../../pure/sources/fixing.js';
import { isRecord, priceText, shown } from '../../pure/sources/values.js';

const path = '/NBUStatService/v1/statdirectory/exchange';
const timeZone = 'Europe/Kyiv';
/** The longest an official rate may lag the day asked for (the New Year holidays, with a weekend on each side). */
const maxLagDays = 15;

/** A bad request is answered with HTTP 200 and `[{"message":"Wrong parameters format"}]`. */
function envelope(body: unknown): EnvelopeProblem | undefined {
  if (!Array.isArray(body) || body.length !== 1 || !isRecord(body[0])) return undefined;
  const message = body[0].message;
  return typeof message === 'string' ? { message: `NBU answered ${shown(message)}` } : undefined;
}

/** The rates NBU set for `day` (`2026-11-21`), none when that day's are not set yet; without a day, those in force. */
async function ratesOf(
  context: SourceContext,
  target: HttpTarget,
  day?: string,
): Promise<{ where: string; rows: Record<string, unknown>[] }> {
  // `?json` is a bare flag; the query is written out, not through URLSearchParams, which would make it `json=`.
  const { where, body } = await getJson(context, target, {
    path: day === undefined ? `${path}?json` : `${path}?json&date=${day.replaceAll('-', '')}`,
    envelope,
  });
  if (!Array.isArray(body)) throw new SourceError(`${context.name}: ${where}: expected a JSON list of rates`);
  return { where, rows: body.filter(isRecord) };
}

export const nbuSource = defineSource({
  type: 'nbu',
  options: z.strictObject({
    type: z.literal('nbu'),
    pairs: pairsAgainst('UAH', 'USD/UAH', 'every currency NBU sets a rate for'),
    date: z
      .enum(['today', 'latest'])
      .optional()
      .describe(
        "today (default): the rates in force now; latest: tomorrow's once NBU has set them (on working days, in the afternoon), else those in force.",
      ),
    ...httpOptions,
  }),
  defaultRefreshMs: 3_600_000,
  async fetchQuotes(options, context) {
    const target = httpTarget('nbu', 'https://bank.gov.ua', options, context);
    const now = context.now();
    let asked = options.date === 'latest' ? await ratesOf(context, target, zoneDay(now, timeZone, 1)) : undefined;
    if (asked === undefined || asked.rows.length === 0) asked = await ratesOf(context, target);
    const { where, rows } = asked;
    const quotes = fixingQuotes({
      rows,
      where,
      local: 'UAH',
      pairs: options.pairs,
      code: (row) => row.cc,
      date: (row) => row.exchangedate,
      dateName: 'exchangedate',
      rate: (row) => {
        const rate = priceText(row.rate);
        return 'problem' in rate ? { problem: `rate ${rate.problem}` } : { rate: rate.text };
      },
      // Set on the working day before and in force through its own day in Kyiv: its age counts from the end of that day.
      timeZone,
      now,
      lagDays: maxLagDays,
    });
    if ('problem' in quotes) throw new SourceError(`${context.name}: ${where}: ${quotes.problem}`);
    return quotes;
  },
});
