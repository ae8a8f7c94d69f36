// The `htx` source: HTX (formerly Huobi) spot tickers, GET /market/tickers (every symbol; symbols in lower case like
// btcusdt). Prices come as JSON numbers; getJson reads each as its exact decimal text, never through a float.
import { z } from 'zod';
import { getJson, httpTarget, type EnvelopeProblem } from './http.js';
import { httpOptions, pairsOption } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { type TickerShape, tickerQuotes } from './tickers.js';
import { isRecord, pairSymbols, serverTime } from '../../pure/sources/values.js';

const path = '/market/tickers';
const tickers: TickerShape = {
  list: (body) => (isRecord(body) ? body.data : undefined),
  expected: 'data, a list of tickers',
  symbol: 'symbol',
  bid: 'bid',
  ask: 'ask',
  // One snapshot time for every ticker (`ts`, Unix ms), capped at the fetch.
  time: (_ticker, fetchedAt, body) => serverTime(isRecord(body) ? body.ts : undefined, fetchedAt),
};

/** `{"status": "error", "err-code": "invalid-parameter", "err-msg": "…", "data": null}`; "ok" on success. */
function envelope(body: unknown): EnvelopeProblem | undefined {
  if (!isRecord(body) || body.status !== 'error') return undefined;
  const code = typeof body['err-code'] === 'string' ? body['err-code'] : 'unknown';
  const message = typeof body['err-msg'] === 'string' && body['err-msg'] !== '' ? body['err-msg'] : 'error';
  // Retried: a code naming HTX's own system (base-system-error) or it being busy or asked too often.
  return { message: `${message} (err-code ${code})`, transient: /system|busy|too-many/i.test(code) };
}

export const htxSource = defineSource({
  type: 'htx',
  options: z.strictObject({
    type: z.literal('htx'),
    pairs: pairsOption,
    ...httpOptions,
  }),
  async fetchQuotes(options, context) {
    const target = httpTarget('htx', 'https://api.huobi.pro', options, context);
    // HTX names every symbol in lower case, a mapping's too: `{ BTC/USDT: BTCUSDT }` finds btcusdt.
    const pairs = pairSymbols(options.pairs, (base, quote) => `${base}${quote}`).map((pair) => ({
      ...pair,
      symbol: pair.symbol.toLowerCase(),
    }));
    const response = await getJson(context, target, { path, envelope });
    return tickerQuotes(context, pairs, response, tickers);
  },
});
