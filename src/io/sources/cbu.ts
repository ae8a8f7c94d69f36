// The `cbu` source: the Central Bank of Uzbekistan's official sum rates, GET /uz/arkhiv-kursov-valyut/json/: a JSON
// list of { Ccy, Nominal, Rate, Date, CcyNm_EN, … }, every value a string, `Rate` in UZS per `Nominal` units. Pairs
// are XXX/UZS; bid = ask = the official rate per one unit.
import { z } from 'zod';
import { getJson, httpTarget, SourceError } from './http.js';
import { httpOptions } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { fixingQuotes, pairsAgainst, perUnit } from '../../pure/sources/fixing.js';
import { isRecord } from '../../pure/sources/values.js';

const path = '/uz/arkhiv-kursov-valyut/json/';
const timeZone = 'Asia/Tashkent';
/** The longest a rate may lag (the New Year and Navruz holidays, with weekends). */
const maxLagDays = 15;

export const cbuSource = defineSource({
  type: 'cbu',
  options: z.strictObject({
    type: z.literal('cbu'),
    pairs: pairsAgainst('UZS', 'USD/UZS', 'every currency in the answer'),
    ...httpOptions,
  }),
  defaultRefreshMs: 3_600_000,
  async fetchQuotes(options, context) {
    const target = httpTarget('cbu', 'https://cbu.uz', options, context);
    const { where, body } = await getJson(context, target, { path });
    const fail = (problem: string) => new SourceError(`${context.name}: ${where}: ${problem}`);
    if (!Array.isArray(body)) throw fail('expected a JSON list of rates');
    const quotes = fixingQuotes({
      rows: body.filter(isRecord),
      where,
      local: 'UZS',
      pairs: options.pairs,
      code: (row) => row.Ccy,
      date: (row) => row.Date,
      dateName: 'Date',
      rate: (row) => perUnit(['Rate', row.Rate], ['Nominal', row.Nominal]),
      // The date a rate is in force from, through that day in Tashkent: its age counts from the end of that day.
      timeZone,
      now: context.now(),
      lagDays: maxLagDays,
    });
    if ('problem' in quotes) throw fail(quotes.problem);
    return quotes;
  },
});
