// The `whitebit` source: WhiteBIT spot best bid/ask, GET /api/v2/public/ticker (every market; markets like BTC_USDT),
// `highestBid` and `lowestAsk`. WhiteBIT's v4 ticker carries the last price only; v2's one answer has the book's top
// for every market and says whether trading is enabled, which one order-book request per market (v4 depth) would not.
import { z } from 'zod';
import { getJson, httpTarget, type EnvelopeProblem } from './http.js';
import { httpOptions, pairsOption } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { type TickerShape, tickerQuotes } from './tickers.js';
import { isRecord, pairSymbols, shown } from '../../pure/sources/values.js';

const path = '/api/v2/public/ticker';
const tickers: TickerShape = {
  list: (body) => (isRecord(body) ? body.result : undefined),
  expected: 'result, a list of tickers',
  symbol: 'tradingPairs',
  bid: 'highestBid',
  ask: 'lowestAsk',
  // A market with trading disabled still shows its last book: no price to quote.
  unusable: (ticker) => (ticker.tradesEnabled === false ? 'trading is disabled (tradesEnabled false)' : undefined),
};

/** A message as WhiteBIT sends it: text, or problems by field (`{"market": ["Market is not available"]}`). */
function messageText(message: unknown): string {
  if (typeof message === 'string' && message !== '') return message;
  if (!isRecord(message)) return `error, message ${shown(message)}`;
  const problems = Object.entries(message).map(
    ([field, said]) => `${field}: ${Array.isArray(said) ? said.map(String).join(', ') : String(said)}`,
  );
  const text = problems.join('; ');
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** `{"success": false, "message": "…", "params": []}`, with HTTP 200 or an error status. */
function envelope(body: unknown): EnvelopeProblem | undefined {
  if (!isRecord(body) || body.success !== false) return undefined;
  const message = messageText(body.message);
  return { message, transient: /too many/i.test(message) };
}

export const whitebitSource = defineSource({
  type: 'whitebit',
  options: z.strictObject({
    type: z.literal('whitebit'),
    pairs: pairsOption,
    ...httpOptions,
  }),
  async fetchQuotes(options, context) {
    const target = httpTarget('whitebit', 'https://whitebit.com', options, context);
    const pairs = pairSymbols(options.pairs, (base, quote) => `${base}_${quote}`);
    const response = await getJson(context, target, { path, envelope });
    return tickerQuotes(context, pairs, response, tickers);
  },
});
