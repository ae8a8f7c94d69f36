// The `mexc` source: MEXC spot best bid/ask, GET /api/v3/ticker/bookTicker (every symbol; symbols like BTCUSDT). MEXC's
// spot v3 API is Binance-shaped: the answer and its errors are read by book-ticker.ts, as for `binance`.
import { z } from 'zod';
import { getJson, httpTarget } from './http.js';
import { httpOptions, pairsOption } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { bookTickerEnvelope as envelope, bookTickerPath as path, bookTickers as tickers } from './book-ticker.js';
import { tickerQuotes } from './tickers.js';
import { pairSymbols } from '../../pure/sources/values.js';

export const mexcSource = defineSource({
  type: 'mexc',
  options: z.strictObject({
    type: z.literal('mexc'),
    pairs: pairsOption,
    ...httpOptions,
  }),
  async fetchQuotes(options, context) {
    const target = httpTarget('mexc', 'https://api.mexc.com', options, context);
    const pairs = pairSymbols(options.pairs, (base, quote) => `${base}${quote}`);
    // MEXC takes one `symbol` or none (Binance's `symbols` list is not documented there): one request for every
    // ticker costs less than one per pair, and an unknown symbol is then only that pair missing.
    const response = await getJson(context, target, { path, envelope });
    return tickerQuotes(context, pairs, response, tickers);
  },
});
