// The `kucoin` source: KuCoin spot tickers, GET /api/v1/market/allTickers (every symbol; symbols like BTC-USDT),
// `buy` the best bid and `sell` the best ask.
import { z } from 'zod';
import { getJson, httpTarget, type EnvelopeProblem } from './http.js';
import { httpOptions, pairsOption } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { type TickerShape, tickerQuotes } from './tickers.js';
import { isRecord, pairSymbols, serverTime } from '../../pure/sources/values.js';

const path = '/api/v1/market/allTickers';

/** `{"code": "200000", "data": {"time": …, "ticker": [ … ]}}`: the list and the time it was taken. */
const tickersIn = (body: unknown) => (isRecord(body) && isRecord(body.data) ? body.data : undefined);
const tickers: TickerShape = {
  list: (body) => tickersIn(body)?.ticker,
  expected: 'data.ticker, a list of tickers',
  symbol: 'symbol',
  bid: 'buy',
  ask: 'sell',
  // One snapshot time for every ticker (`data.time`, Unix ms), capped at the fetch.
  time: (_ticker, fetchedAt, body) => serverTime(tickersIn(body)?.time, fetchedAt),
};

/** `{"code": "400100", "msg": "…"}`: `code` is a string, "200000" on success, with HTTP 200 or an error status. */
function envelope(body: unknown): EnvelopeProblem | undefined {
  if (!isRecord(body) || !('code' in body)) return undefined;
  const code = String(body.code);
  if (code === '200000') return undefined;
  const message = typeof body.msg === 'string' && body.msg !== '' ? body.msg : 'error';
  // Retried: 429000, KuCoin's servers over capacity (its rate-limit page), and 1015, its IP rate limit.
  return { message: `${message} (code ${code})`, transient: ['429000', '1015'].includes(code) };
}

export const kucoinSource = defineSource({
  type: 'kucoin',
  options: z.strictObject({
    type: z.literal('kucoin'),
    pairs: pairsOption,
    ...httpOptions,
  }),
  async fetchQuotes(options, context) {
    const target = httpTarget('kucoin', 'https://api.kucoin.com', options, context);
    const pairs = pairSymbols(options.pairs, (base, quote) => `${base}-${quote}`);
    const response = await getJson(context, target, { path, envelope });
    return tickerQuotes(context, pairs, response, tickers);
  },
});
