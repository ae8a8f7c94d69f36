// The `bybit` source: Bybit v5 spot tickers, GET /v5/market/tickers?category=spot (all of them; symbols like BTCUSDT).
import { z } from 'zod';
import { getJson, httpTarget, SourceError, type EnvelopeProblem } from './http.js';
import { httpOptions, pairsOption, streamOption } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { type TickerShape, tickerQuotes } from './tickers.js';
import { isRecord, pairSymbols } from '../../pure/sources/values.js';

const path = '/v5/market/tickers';
const tickers: TickerShape = {
  list: (body) => (isRecord(body) && isRecord(body.result) ? body.result.list : undefined),
  expected: 'result.list, a list of tickers',
  symbol: 'symbol',
  bid: 'bid1Price',
  ask: 'ask1Price',
};
/** After a 403 ("access too frequent") Bybit asks for at least ten minutes of silence. */
const forbiddenPauseMs = 10 * 60_000;

/** Errors come with HTTP 200 and `retCode` ≠ 0 (`10001` "Not supported symbols", `10006` "Too many visits!"). */
function envelope(body: unknown): EnvelopeProblem | undefined {
  if (!isRecord(body) || !('retCode' in body)) return undefined;
  const code = String(body.retCode);
  if (code === '0') return undefined;
  const message = typeof body.retMsg === 'string' && body.retMsg !== '' ? body.retMsg : 'error';
  // 10000: server timeout; 10006: rate limit; 10016: server error.
  return { message: `${message} (retCode ${code})`, transient: ['10000', '10006', '10016'].includes(code) };
}

export const bybitSource = defineSource({
  type: 'bybit',
  options: z.strictObject({
    type: z.literal('bybit'),
    pairs: pairsOption,
    stream: streamOption,
    ...httpOptions,
  }),
  async fetchQuotes(options, context) {
    const target = httpTarget('bybit', 'https://api.bybit.com', options, context);
    const pairs = pairSymbols(options.pairs, (base, quote) => `${base}${quote}`);
    let response: { where: string; body: unknown };
    try {
      response = await getJson(context, target, { path, query: { category: 'spot' }, envelope });
    } catch (error) {
      if (error instanceof SourceError && error.status === 403 && error.retryAfterMs === undefined) {
        throw new SourceError(`${error.message}; Bybit asks for 10 minutes without requests after a 403`, {
          status: 403,
          retryAfterMs: forbiddenPauseMs,
          cause: error,
        });
      }
      throw error;
    }
    return tickerQuotes(context, pairs, response, tickers);
  },
});
