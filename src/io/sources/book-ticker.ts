// Binance's spot "order book ticker" shape, GET /api/v3/ticker/bookTicker: a list of { symbol, bidPrice, askPrice }
// and errors as { code, msg }. MEXC's spot v3 API answers the same path in the same shape, so `binance` and `mexc`
// read it with this one piece of code.
import type { EnvelopeProblem } from './http.js';
import type { TickerShape } from './tickers.js';
import { isRecord } from '../../pure/sources/values.js';

export const bookTickerPath = '/api/v3/ticker/bookTicker';

export const bookTickers: TickerShape = {
  list: (body) => body,
  expected: 'a list of tickers',
  symbol: 'symbol',
  bid: 'bidPrice',
  ask: 'askPrice',
};

/**
 * `{"code": -1121, "msg": "Invalid symbol."}`; a 451 from a restricted location carries code 0. Transient: -1003 too
 * many requests, -1001/-1007 the venue's side timed out (Binance), 429 too many requests (MEXC's code list).
 */
export function bookTickerEnvelope(body: unknown): EnvelopeProblem | undefined {
  if (!isRecord(body) || !('code' in body) || typeof body.msg !== 'string') return undefined;
  const code = String(body.code);
  return { message: `${body.msg} (code ${code})`, transient: ['-1001', '-1003', '-1007', '429'].includes(code) };
}
