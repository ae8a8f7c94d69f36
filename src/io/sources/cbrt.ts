// The `cbrt` source: the Central Bank of the Republic of Türkiye's indicative rates, GET /kurlar/today.xml: a
// <Tarih_Date Tarih="20.11.2026"> document of <Currency CurrencyCode="USD"> elements with <Unit>, <ForexBuying>,
// <ForexSelling>, <BanknoteBuying> and <BanknoteSelling>, TRY per `Unit` units, published on working days about
// 15:30 Istanbul time. Pairs are XXX/TRY; bid = the buying rate, ask = the selling rate, forex or banknote.
import { z } from 'zod';
import { Decimal } from '../../base/decimal.js';
import { httpTarget, SourceError } from './http.js';
import { httpOptions } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { fixingQuotes, pairsAgainst, perUnit } from '../../pure/sources/fixing.js';
import { isRecord } from '../../pure/sources/values.js';
import { getXml } from './xml.js';

const path = '/kurlar/today.xml';
const timeZone = 'Europe/Istanbul';
/** The longest the rates may lag: the Feast of the Sacrifice, bridged to a weekend, closes the bank for nine days. */
const maxLagDays = 15;

/** One currency's buying and selling rates of a kind (`Forex`, `Banknote`), per one unit; or the problem. */
function buyingSelling(
  currency: Record<string, unknown>,
  kind: 'Forex' | 'Banknote',
): { bid: string; ask: string } | { problem: string } {
  const unit: [string, unknown] = ['Unit', currency.Unit];
  const read = (side: 'Buying' | 'Selling') => {
    const name = `${kind}${side}`;
    // An empty element is how TCMB says it sets no such rate (banknote rates exist for a dozen currencies).
    if (currency[name] === '' || currency[name] === undefined)
      return { problem: `${name} is empty: TCMB sets no ${kind.toLowerCase()} rate for it` };
    return perUnit([name, currency[name]], unit);
  };
  const bid = read('Buying');
  if ('problem' in bid) return bid;
  const ask = read('Selling');
  if ('problem' in ask) return ask;
  if (new Decimal(bid.rate).greaterThan(ask.rate))
    return { problem: `${kind}Buying ${bid.rate} is above ${kind}Selling ${ask.rate}` };
  return { bid: bid.rate, ask: ask.rate };
}

export const cbrtSource = defineSource({
  type: 'cbrt',
  options: z.strictObject({
    type: z.literal('cbrt'),
    pairs: pairsAgainst('TRY', 'USD/TRY', 'every currency in the bulletin'),
    rates: z
      .enum(['forex', 'banknote'])
      .optional()
      .describe(
        'forex (default): ForexBuying as bid, ForexSelling as ask; banknote: BanknoteBuying and BanknoteSelling, set for about a dozen currencies.',
      ),
    ...httpOptions,
  }),
  defaultRefreshMs: 3_600_000,
  async fetchQuotes(options, context) {
    const target = httpTarget('cbrt', 'https://www.tcmb.gov.tr', options, context);
    const { where, body } = await getXml(context, target, { path }, (name) => name === 'Currency');
    const fail = (problem: string) => new SourceError(`${context.name}: ${where}: ${problem}`);
    const root = isRecord(body) ? body.Tarih_Date : undefined;
    if (!isRecord(root)) throw fail('expected a <Tarih_Date> document');
    const kind = (options.rates ?? 'forex') === 'forex' ? 'Forex' : 'Banknote';
    const quotes = fixingQuotes({
      rows: Array.isArray(root.Currency) ? root.Currency.filter(isRecord) : [],
      where,
      local: 'TRY',
      pairs: options.pairs,
      code: (currency) => currency['@_CurrencyCode'],
      date: () => root['@_Tarih'],
      dateName: 'Tarih',
      rate: (currency) => buyingSelling(currency, kind),
      // Published in the afternoon of its day and the bank's latest until the next working day's: its age counts
      // from the end of its day in Istanbul, so maxAge must cover a weekend.
      timeZone,
      now: context.now(),
      lagDays: maxLagDays,
    });
    if ('problem' in quotes) throw fail(quotes.problem);
    return quotes;
  },
});
