// The `okx` source: OKX v5 spot tickers, GET /api/v5/market/tickers?instType=SPOT (instruments like BTC-USDT).
import { z } from 'zod';
import { getJson, httpTarget, type EnvelopeProblem } from './http.js';
import { httpOptions, pairsOption, streamOption } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { type TickerShape, tickerQuotes } from './tickers.js';
import { isRecord, pairSymbols, serverTime } from '../../pure/sources/values.js';

const path = '/api/v5/market/tickers';
const tickers: TickerShape = {
  list: (body) => (isRecord(body) ? body.data : undefined),
  expected: 'data, a list of tickers',
  symbol: 'instId',
  bid: 'bidPx',
  ask: 'askPx',
  // Each ticker carries its own time (`ts`), so a ticker that stopped updating ages like one.
  time: (ticker, fetchedAt) => serverTime(ticker.ts, fetchedAt),
};

/** `{"code": "51001", "msg": "…", "data": []}`: `code` is a string, "0" on success; a 429 carries 50011. */
function envelope(body: unknown): EnvelopeProblem | undefined {
  if (!isRecord(body) || !('code' in body)) return undefined;
  const code = String(body.code);
  if (code === '0') return undefined;
  const message = typeof body.msg === 'string' && body.msg !== '' ? body.msg : 'error';
  // 50001: service temporarily unavailable; 50004: endpoint timeout; 50011: rate limit; 50013: busy.
  return { message: `${message} (code ${code})`, transient: ['50001', '50004', '50011', '50013'].includes(code) };
}

export const okxSource = defineSource({
  type: 'okx',
  options: z.strictObject({
    type: z.literal('okx'),
    pairs: pairsOption,
    stream: streamOption,
    ...httpOptions,
  }),
  async fetchQuotes(options, context) {
    const target = httpTarget('okx', 'https://www.okx.com', options, context);
    const pairs = pairSymbols(options.pairs, (base, quote) => `${base}-${quote}`);
    const response = await getJson(context, target, { path, query: { instType: 'SPOT' }, envelope });
    return tickerQuotes(context, pairs, response, tickers);
  },
});
