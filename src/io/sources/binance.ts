// The `binance` source: Binance spot best bid/ask, GET /api/v3/ticker/bookTicker?symbols=[…] (symbols like BTCUSDT).
import { z } from 'zod';
import { getJson, httpTarget, SourceError, type EnvelopeProblem } from './http.js';
import { httpOptions, pairsOption } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { type TickerShape, tickerQuotes } from './tickers.js';
import { isRecord, pairSymbols } from '../../pure/sources/values.js';

const path = '/api/v3/ticker/bookTicker';
const tickers: TickerShape = {
  list: (body) => body,
  expected: 'a list of tickers',
  symbol: 'symbol',
  bid: 'bidPrice',
  ask: 'askPrice',
};

/** `{"code": -1121, "msg": "Invalid symbol."}`; a 451 from a restricted location carries code 0. */
function envelope(body: unknown): EnvelopeProblem | undefined {
  if (!isRecord(body) || !('code' in body) || typeof body.msg !== 'string') return undefined;
  const code = String(body.code);
  // -1003: too many requests; -1001/-1007: Binance's side timed out.
  return { message: `${body.msg} (code ${code})`, transient: ['-1001', '-1003', '-1007'].includes(code) };
}

export const binanceSource = defineSource({
  type: 'binance',
  options: z.strictObject({
    type: z.literal('binance'),
    pairs: pairsOption,
    ...httpOptions,
  }),
  async fetchQuotes(options, context) {
    const target = httpTarget('binance', 'https://api.binance.com', options, context);
    const pairs = pairSymbols(options.pairs, (base, quote) => `${base}${quote}`);
    const ask = (query: Record<string, string>) => getJson(context, target, { path, query, envelope });
    let response: { where: string; body: unknown };
    try {
      response = await ask({ symbols: JSON.stringify(pairs.map((pair) => pair.symbol)) });
    } catch (error) {
      // One unknown symbol fails the whole request: ask for every ticker, so only that pair is missing.
      if (!(error instanceof SourceError && isRecord(error.body) && String(error.body.code) === '-1121')) throw error;
      response = await ask({});
    }
    return tickerQuotes(context, pairs, response, tickers);
  },
});
