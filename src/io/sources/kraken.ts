// The `kraken` source: Kraken public Ticker, GET /0/public/Ticker?pair=XBTUSDT,ETHUSD. Kraken says XBT for
// BTC and XDG for DOGE, and answers under canonical names (XXBTZUSD) that need not match what was asked.
import { z } from 'zod';
import { getJson, httpTarget, SourceError, type EnvelopeProblem } from './http.js';
import { httpOptions, pairsOption, streamOption } from '../../pure/sources/options.js';
import { defineSource } from '../../model/source.js';
import { collectQuotes, isRecord, pairSymbols, quoteFrom, shown, type PairSymbol } from '../../pure/sources/values.js';

const path = '/0/public/Ticker';
const krakenNames: Record<string, string> = { BTC: 'XBT', DOGE: 'XDG' };
const krakenName = (asset: string) => krakenNames[asset] ?? asset;

const transient = /^E(API:Rate limit exceeded|General:Too many requests|Service:(Unavailable|Busy|Throttled))/;

/** HTTP 200 with `error: ["EQuery:Unknown asset pair"]`; entries starting with W are only warnings. */
function envelope(body: unknown): EnvelopeProblem | undefined {
  if (!isRecord(body) || !Array.isArray(body.error)) return undefined;
  const errors = body.error.filter((entry): entry is string => typeof entry === 'string' && entry.startsWith('E'));
  if (errors.length === 0) return undefined;
  return { message: errors.join('; '), transient: errors.every((entry) => transient.test(entry)) };
}

/**
 * The names Kraken may answer under for a pair: the altname (`XBTUSDT`, `SOLUSD`) or the canonical name,
 * where older assets carry an X (crypto) or Z (fiat) prefix on either side (`XXBTZUSD`, `XETHXXBT`, `USDTZUSD`,
 * and the fiat pairs `ZEURZUSD`, `ZGBPZUSD`, `ZUSDZJPY`).
 */
function resultNames(pair: PairSymbol): string[] {
  const [base, quote] = [krakenName(pair.base), krakenName(pair.quote)];
  const prefixes = ['', 'X', 'Z'];
  return [pair.symbol, ...prefixes.flatMap((before) => prefixes.map((after) => `${before}${base}${after}${quote}`))];
}

const firstPrice = (value: unknown): unknown => (Array.isArray(value) ? value[0] : undefined);

export const krakenSource = defineSource({
  type: 'kraken',
  options: z.strictObject({
    type: z.literal('kraken'),
    pairs: pairsOption,
    stream: streamOption,
    ...httpOptions,
  }),
  async fetchQuotes(options, context) {
    const target = httpTarget('kraken', 'https://api.kraken.com', options, context);
    const pairs = pairSymbols(options.pairs, (base, quote) => `${krakenName(base)}${krakenName(quote)}`);
    const ask = (query: Record<string, string>) => getJson(context, target, { path, query, envelope });
    let response: { where: string; body: unknown };
    try {
      response = await ask({ pair: pairs.map((pair) => pair.symbol).join(',') });
    } catch (error) {
      // One unknown pair fails the whole request: ask for every pair, so only that one is missing.
      if (!(error instanceof SourceError && /EQuery:Unknown asset pair/.test(error.message))) throw error;
      response = await ask({});
    }
    const { where, body } = response;
    const result = isRecord(body) ? body.result : undefined;
    if (!isRecord(result))
      throw new SourceError(`${context.name}: ${where}: expected result, an object of tickers, got ${shown(result)}`);
    const fetchedAt = context.now();
    return collectQuotes(
      pairs,
      where,
      (pair) => {
        const name = resultNames(pair).find((candidate) => Object.hasOwn(result, candidate));
        const ticker = name === undefined ? undefined : result[name];
        return isRecord(ticker) ? ticker : undefined;
      },
      // b and a are [price, whole-lot volume, lot volume].
      (ticker, pair, label) =>
        quoteFrom(
          pair.pair,
          label,
          { bid: ['b[0]', firstPrice(ticker.b)], ask: ['a[0]', firstPrice(ticker.a)] },
          fetchedAt,
        ),
    );
  },
});
