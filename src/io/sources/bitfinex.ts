// The `bitfinex` source: Bitfinex spot best bid/ask, GET /v2/tickers?symbols=tBTCUST,… on api-pub.bitfinex.com. Each
// ticker is a list [SYMBOL, BID, BID_SIZE, ASK, ASK_SIZE, …] of JSON numbers, read as their exact text; Bitfinex names
// some assets its own way (UST for USDT), and a symbol with a code longer than three letters takes a colon (tDOGE:USD).
import { z } from 'zod';
import { getJson, httpTarget, type EnvelopeProblem } from './http.js';
import { httpOptions, pairsOption } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { type TickerShape, tickerQuotes } from './tickers.js';
import { isRecord, pairSymbols } from '../../pure/sources/values.js';

const path = '/v2/tickers';

/** Bitfinex's own codes for assets it names differently (its `pub:map:currency:sym` configuration). */
export const bitfinexCodes: Readonly<Record<string, string>> = {
  USDT: 'UST',
  USDC: 'UDC',
  TUSD: 'TSD',
  EURT: 'EUT',
  DASH: 'DSH',
  QTUM: 'QTM',
  IOTA: 'IOT',
  ATOM: 'ATO',
  ALGO: 'ALG',
  MANA: 'MNA',
};

/** `BTC/USDT` → `tBTCUST`; `DOGE/USD` → `tDOGE:USD` (a code that is not three letters takes a colon). */
export function bitfinexSymbol(base: string, quote: string): string {
  const b = bitfinexCodes[base] ?? base;
  const q = bitfinexCodes[quote] ?? quote;
  return b.length === 3 && q.length === 3 ? `t${b}${q}` : `t${b}:${q}`;
}

const tickers: TickerShape = {
  // A trading ticker's fields by position; a row that is not a list is skipped like a ticker without a symbol.
  list: (body) =>
    Array.isArray(body)
      ? body.map((row: unknown) => (Array.isArray(row) ? { symbol: row[0], BID: row[1], ASK: row[3] } : row))
      : body,
  expected: 'a list of tickers',
  symbol: 'symbol',
  bid: 'BID',
  ask: 'ASK',
};

/** `["error", 10020, "symbol: invalid"]`; a rate limit answers `{"error": "ERR_RATE_LIMIT"}`. */
function envelope(body: unknown): EnvelopeProblem | undefined {
  if (Array.isArray(body) && body[0] === 'error') {
    const code = String(body[1]);
    const message = typeof body[2] === 'string' && body[2] !== '' ? body[2] : 'error';
    // Retried: a rate limit ("ratelimit: error") or maintenance, by what the message says.
    return { message: `${message} (code ${code})`, transient: /ratelimit|maintenance/i.test(message) };
  }
  if (isRecord(body) && typeof body.error === 'string')
    return { message: body.error, transient: body.error === 'ERR_RATE_LIMIT' };
  return undefined;
}

export const bitfinexSource = defineSource({
  type: 'bitfinex',
  options: z.strictObject({
    type: z.literal('bitfinex'),
    pairs: pairsOption.refine(
      (pairs) =>
        Array.isArray(pairs) || Object.values(pairs).every((symbol) => /^t[A-Z0-9]+(?::[A-Z0-9]+)?$/.test(symbol)),
      // A funding ticker (fUSD) has other fields in the same positions: reading its BID as a price would be wrong.
      {
        error: 'expected trading symbols like "tBTCUST" or "tDOGE:USD" (a "t", then capitals; no funding "f" symbols)',
      },
    ),
    ...httpOptions,
  }),
  async fetchQuotes(options, context) {
    const target = httpTarget('bitfinex', 'https://api-pub.bitfinex.com', options, context);
    const pairs = pairSymbols(options.pairs, bitfinexSymbol);
    const symbols = [...new Set(pairs.map((pair) => pair.symbol))].join(',');
    const response = await getJson(context, target, { path, query: { symbols }, envelope });
    return tickerQuotes(context, pairs, response, tickers);
  },
});
