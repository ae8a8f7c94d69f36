// The `nbk` source: the National Bank of Kazakhstan's official tenge rates, GET /rss/rates_all.xml: an RSS channel of
// items `<title>USD</title><pubDate>21.11.2026</pubDate><description>518.42</description><quant>1</quant>`, KZT per
// `quant` units. Pairs are XXX/KZT; bid = ask = the official rate per one unit.
import { z } from 'zod';
import { httpTarget, SourceError } from './http.js';
import { httpOptions } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { fixingQuotes, pairsAgainst, perUnit } from '../../pure/sources/fixing.js';
import { isRecord } from '../../pure/sources/values.js';
import { getXml } from './xml.js';

const path = '/rss/rates_all.xml';
const timeZone = 'Asia/Almaty';
/** The longest a rate may lag (the New Year and Nauryz holidays, with weekends). */
const maxLagDays = 15;

export const nbkSource = defineSource({
  type: 'nbk',
  options: z.strictObject({
    type: z.literal('nbk'),
    pairs: pairsAgainst('KZT', 'USD/KZT', 'every currency in the feed'),
    ...httpOptions,
  }),
  defaultRefreshMs: 3_600_000,
  async fetchQuotes(options, context) {
    const target = httpTarget('nbk', 'https://nationalbank.kz', options, context);
    const { where, body } = await getXml(context, target, { path }, (name) => name === 'item');
    const fail = (problem: string) => new SourceError(`${context.name}: ${where}: ${problem}`);
    const channel = isRecord(body) && isRecord(body.rss) ? body.rss.channel : undefined;
    if (!isRecord(channel)) throw fail('expected an RSS document (<rss><channel>)');
    const quotes = fixingQuotes({
      rows: Array.isArray(channel.item) ? channel.item.filter(isRecord) : [],
      where,
      local: 'KZT',
      pairs: options.pairs,
      code: (item) => item.title,
      date: (item) => item.pubDate,
      dateName: 'pubDate',
      rate: (item) => perUnit(['description', item.description], ['quant', item.quant]),
      // Set for its day and in force through it in Kazakhstan: its age counts from the end of that day.
      timeZone,
      now: context.now(),
      lagDays: maxLagDays,
    });
    if ('problem' in quotes) throw fail(quotes.problem);
    return quotes;
  },
});
