// The `okx` source: OKX v5 spot tickers, GET /api/v5/market/tickers?instType=SPOT (instruments like BTC-USDT).
import { z } from 'zod';
import { getJson, httpTarget, SourceError, type EnvelopeProblem } from './http.js';
import { httpOptions, pairsOption } from './options.js';
import { defineSource } from './source.js';
import { collectQuotes, isRecord, pairSymbols, quoteFrom, serverTime, shown } from './values.js';

const path = '/api/v5/market/tickers';

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
    ...httpOptions,
  }),
  async fetchQuotes(options, context) {
    const target = httpTarget('okx', 'https://www.okx.com', options, context);
    const pairs = pairSymbols(options.pairs, (base, quote) => `${base}-${quote}`);
    const { where, body } = await getJson(context, target, { path, query: { instType: 'SPOT' }, envelope });
    const data = isRecord(body) ? body.data : undefined;
    if (!Array.isArray(data))
      throw new SourceError(`${context.name}: ${where}: expected data, a list of tickers, got ${shown(data)}`);
    const tickers = new Map<string, Record<string, unknown>>();
    for (const entry of data) if (isRecord(entry) && typeof entry.instId === 'string') tickers.set(entry.instId, entry);
    const fetchedAt = context.now();
    // Each ticker carries its own time (`ts`), so a ticker that stopped updating ages like one.
    return collectQuotes(
      pairs,
      where,
      (pair) => tickers.get(pair.symbol),
      (ticker, pair, label) =>
        quoteFrom(
          pair.pair,
          label,
          { bid: ['bidPx', ticker.bidPx], ask: ['askPx', ticker.askPx] },
          serverTime(ticker.ts, fetchedAt),
        ),
    );
  },
});
