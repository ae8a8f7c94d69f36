// The `binance` source: Binance spot best bid/ask, GET /api/v3/ticker/bookTicker?symbols=[…] (symbols like BTCUSDT).
import { z } from 'zod';
import { getJson, httpTarget, SourceError } from './http.js';
import { httpOptions, pairsOption, streamOption } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { bookTickerEnvelope as envelope, bookTickerPath as path, bookTickers as tickers } from './book-ticker.js';
import { tickerQuotes } from './tickers.js';
import { isRecord, pairSymbols } from '../../pure/sources/values.js';

export const binanceSource = defineSource({
  type: 'binance',
  options: z.strictObject({
    type: z.literal('binance'),
    pairs: pairsOption,
    stream: streamOption,
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
