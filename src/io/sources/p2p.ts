// The `p2p` source: a price for each ASSET/FIAT pair out of a P2P market's adverts, two searches per pair (one per
// side of the book), asked in turn so a venue's rate limit sees one request at a time. `venue: binance` posts to
// p2p.binance.com's public advert search, `venue: bybit` to api2.bybit.com's; src/pure/sources/p2p.ts filters and
// averages. An advert for another asset, fiat or side than asked is never counted.
import { z } from 'zod';
import { amount, describeValue, pairText } from '../../base/config/fields.js';
import { type EnvelopeProblem, httpTarget, postJson, SourceError } from './http.js';
import { httpOptions } from '../../pure/sources/options.js';
import { type Advert, type AdvertFilters, sidePrice } from '../../pure/sources/p2p.js';
import { defineSource, type SourceContext } from '../../model/source.js';
import { isRecord, type PairSymbol, pairSymbols, quoteFrom, shown } from '../../pure/sources/values.js';

type Side = 'bid' | 'ask';

/** What differs between venues: where to ask, what to send, where the adverts are and how to read one. */
interface Venue {
  baseUrl: string;
  path: string;
  request: (pair: PairSymbol, side: Side, options: P2pOptions) => Record<string, unknown>;
  envelope: (body: unknown) => EnvelopeProblem | undefined;
  adverts: (body: unknown) => unknown;
  expected: string;
  /** The advert, or undefined when it is for another asset, fiat or side than asked. */
  read: (entry: unknown, pair: PairSymbol, side: Side) => Advert | undefined;
}

/** The most adverts one search asks for (Binance's page holds at most 20). */
const pageRows = 20;

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

const binance: Venue = {
  baseUrl: 'https://p2p.binance.com',
  path: '/bapi/c2c/v2/friendly/c2c/adv/search',
  // tradeType is the user's side: BUY lists adverts selling the asset, what a client pays (the ask).
  request: (pair, side, options) => ({
    asset: pair.base,
    fiat: pair.quote,
    tradeType: side === 'ask' ? 'BUY' : 'SELL',
    page: 1,
    rows: pageRows,
    payTypes: options.payMethods ?? [],
    publisherType: options.merchantsOnly ? 'merchant' : null,
    ...(options.amount === undefined ? {} : { transAmount: options.amount }),
  }),
  // {"code":"000000","data":[…],"success":true}; an error keeps the code and says why in `message`.
  envelope: (body) => {
    if (!isRecord(body) || !('code' in body) || String(body.code) === '000000') return undefined;
    const message = typeof body.message === 'string' && body.message !== '' ? body.message : 'error';
    return { message: `${message} (code ${String(body.code)})` };
  },
  adverts: (body) => (isRecord(body) ? body.data : undefined),
  expected: 'data, a list of adverts',
  read: (entry, pair, side) => {
    if (!isRecord(entry) || !isRecord(entry.adv)) return undefined;
    const { adv } = entry;
    // An advert's own tradeType is the advertiser's: SELL adverts are the ask side.
    const advertSide = adv.tradeType === 'SELL' ? 'ask' : adv.tradeType === 'BUY' ? 'bid' : undefined;
    if (adv.asset !== pair.base || adv.fiatUnit !== pair.quote || advertSide !== side) return undefined;
    const methods = Array.isArray(adv.tradeMethods) ? adv.tradeMethods.filter(isRecord) : [];
    const userType = isRecord(entry.advertiser) ? entry.advertiser.userType : undefined;
    return {
      price: adv.price,
      minAmount: adv.minSingleTransAmount,
      maxAmount: adv.maxSingleTransAmount,
      payMethods: strings(methods.map((method) => method.identifier ?? method.payType)),
      merchant: userType === undefined ? undefined : userType === 'merchant',
    };
  },
};

const bybit: Venue = {
  baseUrl: 'https://api2.bybit.com',
  path: '/fiat/otc/item/online',
  // side "1" lists adverts selling the token (the user buys: the ask), "0" adverts buying it.
  request: (pair, side, options) => ({
    userId: '',
    tokenId: pair.base,
    currencyId: pair.quote,
    payment: options.payMethods ?? [],
    side: side === 'ask' ? '1' : '0',
    size: String(pageRows),
    page: '1',
    amount: options.amount ?? '',
    authMaker: options.merchantsOnly,
    canTrade: false,
  }),
  // {"ret_code":0,"ret_msg":"SUCCESS","result":{…}}; 10006 "Too many visits" is worth a retry.
  envelope: (body) => {
    if (!isRecord(body) || !('ret_code' in body) || String(body.ret_code) === '0') return undefined;
    const code = String(body.ret_code);
    const message = typeof body.ret_msg === 'string' && body.ret_msg !== '' ? body.ret_msg : 'error';
    return { message: `${message} (ret_code ${code})`, transient: ['10000', '10006', '10016'].includes(code) };
  },
  adverts: (body) => (isRecord(body) && isRecord(body.result) ? body.result.items : undefined),
  expected: 'result.items, a list of adverts',
  read: (entry, pair, side) => {
    if (!isRecord(entry)) return undefined;
    const advertSide = String(entry.side) === '1' ? 'ask' : String(entry.side) === '0' ? 'bid' : undefined;
    if (entry.tokenId !== pair.base || entry.currencyId !== pair.quote || advertSide !== side) return undefined;
    // Items do not say who is a merchant: `authMaker` in the search asked for verified advertisers only.
    return {
      price: entry.price,
      minAmount: entry.minAmount,
      maxAmount: entry.maxAmount,
      payMethods: strings(entry.payments),
      merchant: undefined,
    };
  },
};

const venues = { binance, bybit } as const;

const expectedInt = (what: string) => (issue: { input?: unknown }) =>
  `expected ${what}, got ${describeValue(issue.input)}`;
const count = (min: number, max: number) =>
  z
    .int({ error: expectedInt(`an integer ${min}..${max}`) })
    .min(min, { error: expectedInt(`an integer ${min}..${max}`) })
    .max(max, { error: expectedInt(`an integer ${min}..${max}`) });

const options = z
  .strictObject({
    type: z.literal('p2p'),
    venue: z
      .enum(['binance', 'bybit'], { error: expectedInt('binance or bybit') })
      .describe('Whose P2P market: binance (p2p.binance.com) or bybit (api2.bybit.com).'),
    pairs: z
      .array(pairText)
      .min(1, { error: 'expected at least one pair' })
      .describe('ASSET/FIAT pairs, like USDT/RUB: one asset costs bid..ask of the fiat.'),
    payMethods: z
      .array(z.string().regex(/^[A-Za-z0-9_.-]{1,40}$/, { error: expectedInt('a pay method like "TinkoffNew"') }))
      .max(20)
      .optional()
      .describe("Only adverts taking one of these pay methods, by the venue's identifier (default: any)."),
    amount: amount
      .optional()
      .describe('Only adverts accepting a trade of this much fiat (between their min and max single trade).'),
    merchantsOnly: z.boolean().default(false).describe('Only merchants\u2019 adverts (default false).'),
    take: count(1, pageRows).default(5).describe('How many adverts are averaged (default 5).'),
    skip: count(0, pageRows - 1)
      .default(0)
      .describe('How many of the best adverts are left out first, as outliers (default 0).'),
    average: z
      .enum(['mean', 'median'], { error: expectedInt('mean or median') })
      .default('mean')
      .describe('mean (rounded to 12 significant digits) or median (exact) of the adverts taken (default mean).'),
    ...httpOptions,
  })
  .refine((given) => given.skip + given.take <= pageRows, {
    error: `expected skip + take of at most ${pageRows}, the adverts one search lists`,
    path: ['take'],
  });
type P2pOptions = z.output<typeof options>;

async function sidePriceOf(
  context: SourceContext,
  venue: Venue,
  target: ReturnType<typeof httpTarget>,
  given: { pair: PairSymbol; side: Side; options: P2pOptions },
): Promise<{ price: string } | { problem: string }> {
  const { pair, side } = given;
  const response = await postJson(context, target, {
    path: venue.path,
    body: venue.request(pair, side, given.options),
    envelope: venue.envelope,
  });
  const list = venue.adverts(response.body);
  if (!Array.isArray(list))
    throw new SourceError(`${context.name}: ${response.where}: expected ${venue.expected}, got ${shown(list)}`);
  const adverts = list.flatMap((entry) => venue.read(entry, pair, side) ?? []);
  if (adverts.length === 0) return { problem: `not in the response (no ${pair.pair} adverts on the ${side} side)` };
  const filters: AdvertFilters = given.options;
  return sidePrice(adverts, side, filters);
}

export const p2pSource = defineSource({
  type: 'p2p',
  options,
  defaultRefreshMs: 60_000,
  async fetchQuotes(given, context) {
    const venue = venues[given.venue];
    const target = httpTarget('p2p', venue.baseUrl, given, context);
    const quotes = [];
    const problems: string[] = [];
    for (const pair of pairSymbols(given.pairs, (base, quote) => `${base}/${quote}`)) {
      const label = `${pair.pair} (${given.venue}) in POST ${venue.path}`;
      const bid = await sidePriceOf(context, venue, target, { pair, side: 'bid', options: given });
      const ask =
        'problem' in bid ? bid : await sidePriceOf(context, venue, target, { pair, side: 'ask', options: given });
      if ('problem' in bid || 'problem' in ask) {
        problems.push(`${label}: ${'problem' in bid ? bid.problem : (ask as { problem: string }).problem}`);
        continue;
      }
      const quote = quoteFrom(pair.pair, label, { bid: ['bid', bid.price], ask: ['ask', ask.price] }, context.now());
      if (typeof quote === 'string') problems.push(quote);
      else quotes.push(quote);
    }
    return { quotes, problems };
  },
});
