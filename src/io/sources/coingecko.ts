// The `coingecko` source: CoinGecko simple/price, GET /api/v3/simple/price?ids=tether&vs_currencies=rub: one
// aggregated price per coin and currency (bid = ask), sent as JSON numbers and read as decimal text. Any currency
// CoinGecko prices in (`vs_currencies`: UAH, TRY, …) is a pair's QUOTE.
import { z } from 'zod';
import { getJson, httpTarget, SourceError, type EnvelopeProblem } from './http.js';
import { httpOptions, pairsOption } from '../../pure/sources/options.js';
import { registerSecret } from '../../base/secrets.js';
import { defineSource } from '../../model/source.js';
import { collectQuotes, isRecord, pairSymbols, quoteFrom, shown } from '../../pure/sources/values.js';

const path = '/api/v3/simple/price';

/** CoinGecko coin ids of well-known assets; a `pairs` mapping names any other (`{ TON/USD: the-open-network }`). */
export const coinIds: Readonly<Record<string, string>> = {
  BTC: 'bitcoin',
  ETH: 'ethereum',
  USDT: 'tether',
  USDC: 'usd-coin',
  DAI: 'dai',
  LTC: 'litecoin',
  BCH: 'bitcoin-cash',
  XRP: 'ripple',
  TRX: 'tron',
  TON: 'the-open-network',
  SOL: 'solana',
  BNB: 'binancecoin',
  DOGE: 'dogecoin',
  XMR: 'monero',
  DASH: 'dash',
  ZEC: 'zcash',
  ADA: 'cardano',
  DOT: 'polkadot',
  XLM: 'stellar',
  ETC: 'ethereum-classic',
};

/**
 * The currencies CoinGecko prices in (`vs_currencies`, as GET /api/v3/simple/supported_vs_currencies lists them): any
 * of them goes as a pair's QUOTE (`USDT/UAH`). Not a gate, since CoinGecko adds currencies: a QUOTE outside the list is
 * still asked for, and when the answer lacks it the problem line says it is not one of CoinGecko's (KZT, UZS).
 */
export const vsCurrencies: ReadonlySet<string> = new Set(
  (
    'usd aed ars aud bdt bhd bmd brl cad chf clp cny czk dkk eur gbp gel hkd huf idr ils inr jpy krw kwd lkr mmk mxn ' +
    'myr ngn nok nzd php pkr pln rub sar sek sgd thb try twd uah vef vnd zar xdr xag xau bits sats ' +
    'btc eth ltc bch bnb eos xrp xlm link dot yfi'
  ).split(' '),
);

/** A pair the answer lacks: why, when its currency is not one CoinGecko prices in. */
function missingCurrency(currency: string): string | undefined {
  return vsCurrencies.has(currency)
    ? undefined
    : `CoinGecko prices in no ${currency.toUpperCase()} (${currency} is not among the vs_currencies of GET /api/v3/simple/supported_vs_currencies)`;
}

/** `{"status": {"error_code": 429, "error_message": "…"}}`, or `{"error": "…"}`. */
function envelope(body: unknown): EnvelopeProblem | undefined {
  if (!isRecord(body)) return undefined;
  if (isRecord(body.status) && 'error_code' in body.status) {
    const code = String(body.status.error_code);
    const message = typeof body.status.error_message === 'string' ? body.status.error_message : 'error';
    return { message: `${message} (error_code ${code})`, transient: code === '429' };
  }
  if (typeof body.error === 'string') return { message: body.error };
  return undefined;
}

export const coingeckoSource = defineSource({
  type: 'coingecko',
  options: z
    .strictObject({
      type: z.literal('coingecko'),
      pairs: pairsOption.describe(
        'Pairs as COIN/CURRENCY (USDT/RUB, USDT/UAH: any currency CoinGecko prices in); a mapping gives the coin id ({ USDT/RUB: tether }). Known coins: see the README.',
      ),
      plan: z
        .enum(['demo', 'pro'])
        .optional()
        .describe('API plan of the key: demo (api.coingecko.com, default) or pro (pro-api.coingecko.com).'),
      keyEnv: z
        .string()
        .regex(/^[A-Z_][A-Z0-9_]*$/)
        .optional()
        .describe(
          'Environment variable holding the API key (default RATEFILE_COINGECKO_KEY); without a key the public limits apply.',
        ),
      ...httpOptions,
    })
    .superRefine((options, context) => {
      if (!Array.isArray(options.pairs)) return;
      options.pairs.forEach((pair: string, index: number) => {
        const base = pair.split('/')[0] ?? '';
        if (coinIds[base] === undefined) {
          context.addIssue({
            code: 'custom',
            path: ['pairs', index],
            message: `no known CoinGecko coin id for ${base}: write pairs as a mapping, e.g. { ${pair}: <coin id> }`,
          });
        }
      });
    }),
  defaultRefreshMs: 60_000,
  async fetchQuotes(options, context) {
    const plan = options.plan ?? 'demo';
    const target = httpTarget(
      'coingecko',
      plan === 'pro' ? 'https://pro-api.coingecko.com' : 'https://api.coingecko.com',
      options,
      context,
    );
    const keyEnv = options.keyEnv ?? 'RATEFILE_COINGECKO_KEY';
    const key = context.env[keyEnv];
    // An answer echoing the key (or its URL-encoded or base64 form) must not carry it into any message.
    registerSecret(key);
    if (plan === 'pro' && !key) throw new SourceError(`${context.name}: the pro plan needs an API key in ${keyEnv}`);
    const pairs = pairSymbols(options.pairs, (base) => coinIds[base] ?? base.toLowerCase());
    const ids = [...new Set(pairs.map((pair) => pair.symbol))];
    const currencies = [...new Set(pairs.map((pair) => pair.quote.toLowerCase()))];
    // The key goes in a header, never in the URL, so it cannot end up in a log line.
    const headers: Record<string, string> = key
      ? { [plan === 'pro' ? 'x-cg-pro-api-key' : 'x-cg-demo-api-key']: key }
      : {};
    const { where, body } = await getJson(context, target, {
      path,
      query: { ids: ids.join(','), vs_currencies: currencies.join(','), precision: 'full' },
      headers,
      envelope,
    });
    if (!isRecord(body))
      throw new SourceError(`${context.name}: ${where}: expected an object of prices by coin id, got ${shown(body)}`);
    const fetchedAt = context.now();
    // A currency CoinGecko has no price in is missing for every coin: say so, not only "not in the response".
    const priced = new Set(Object.values(body).flatMap((prices) => (isRecord(prices) ? Object.keys(prices) : [])));
    return collectQuotes(
      pairs,
      where,
      (pair) => {
        const prices = Object.hasOwn(body, pair.symbol) ? body[pair.symbol] : undefined;
        const currency = pair.quote.toLowerCase();
        if (isRecord(prices) && Object.hasOwn(prices, currency)) return { price: prices[currency] };
        const why = priced.has(currency) ? undefined : missingCurrency(currency);
        return why === undefined ? undefined : { why };
      },
      (entry, pair, label) =>
        'why' in entry
          ? `${label}: not in the response: ${entry.why}`
          : quoteFrom(pair.pair, label, { bid: ['price', entry.price], ask: ['price', entry.price] }, fetchedAt),
    );
  },
});
