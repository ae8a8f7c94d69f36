// The `privatbank` source: PrivatBank's public exchange rates, GET /p24api/pubinfo?json&exchange&coursid=5 (cash, at
// its branches) or coursid=11 (non-cash: cards, Privat24): a JSON list of { ccy, base_ccy, buy, sale } as decimal
// strings. Pairs are XXX/UAH; bid = `buy` (what the bank pays for one unit), ask = `sale` (what it asks).
import { z } from 'zod';
import { getJson, httpTarget, SourceError } from './http.js';
import { httpOptions } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { pairsAgainst } from '../../pure/sources/fixing.js';
import { collectQuotes, isRecord, pairSymbols, quoteFrom } from '../../pure/sources/values.js';

const path = '/p24api/pubinfo';
const courses = { cash: '5', noncash: '11' } as const;

export const privatbankSource = defineSource({
  type: 'privatbank',
  options: z.strictObject({
    type: z.literal('privatbank'),
    pairs: pairsAgainst('UAH', 'USD/UAH', 'every currency quoted against UAH'),
    rates: z
      .enum(['cash', 'noncash'])
      .optional()
      .describe(
        "cash (default): the bank's rates at its branches (coursid=5); noncash: for cards and Privat24 (coursid=11).",
      ),
    ...httpOptions,
  }),
  defaultRefreshMs: 300_000,
  async fetchQuotes(options, context) {
    const target = httpTarget('privatbank', 'https://api.privatbank.ua', options, context);
    // `json` and `exchange` are bare flags: the query is written out, not through URLSearchParams (`json=`).
    const { where, body } = await getJson(context, target, {
      path: `${path}?json&exchange&coursid=${courses[options.rates ?? 'cash']}`,
    });
    if (!Array.isArray(body)) throw new SourceError(`${context.name}: ${where}: expected a JSON list of rates`);
    // The answer says nothing of when its rates were set; they are the bank's as of the fetch.
    const fetchedAt = context.now();
    const byCode = new Map<string, Record<string, unknown>>();
    for (const row of body.filter(isRecord)) {
      if (row.base_ccy === 'UAH' && typeof row.ccy === 'string' && !byCode.has(row.ccy)) byCode.set(row.ccy, row);
    }
    if (byCode.size === 0) throw new SourceError(`${context.name}: ${where}: no rates against UAH in the answer`);
    const pairs = pairSymbols(
      options.pairs ?? [...byCode.keys()].filter((code) => /^[A-Z]{3}$/.test(code)).map((code) => `${code}/UAH`),
      (base) => base,
    );
    return collectQuotes(
      pairs,
      where,
      (pair) => byCode.get(pair.base),
      (row, pair, label) => quoteFrom(pair.pair, label, { bid: ['buy', row.buy], ask: ['sale', row.sale] }, fetchedAt),
    );
  },
});
