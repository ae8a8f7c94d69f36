// The fault kit's parts (issue 44, item 6): one config in which each source type that sets quotes prices its own
// direction from its own recorded answer (test/fixtures/sources/, test/fixtures/exports/real/), served on one loopback
// replay server with every price of that answer multiplied by a factor; and a reader of the published parserfile.xml
// that parses it with real XML parsers (libxml2 for well-formedness, xmlbuilder2's DOM for the items).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { create } from 'xmlbuilder2';
import { expect } from 'vitest';
import { Decimal } from '../../../src/base/decimal.js';
import { fixture, type ReplayRoute } from '../../support/replay.js';
import { xmlErrors } from '../../support/xml.js';
import type { Project } from '../../support/project.js';

/** One source of the kit: its config entry, the pair it quotes, the direction that pair alone prices, its answer. */
export interface KitSource {
  name: string;
  /** The source's options in the config (flow YAML, without `refresh`/`maxAge`, which the mode adds). */
  options: string;
  /** The direction it prices alone (`chain:` its one pair) and that pair. */
  from: string;
  to: string;
  pair: string;
  /** Its quote asset is a currency with minor units (RUB, KZT, UAH): "kopecks" turn it ×100. */
  fiat: boolean;
  /** Its maxAge when not the kit's 30 minutes (a central bank's rates are as old as their own date). */
  maxAge?: string;
  /** Its answer with every price × factor: replay routes, or (a file source) the file to write. */
  answer(factor: string, now: Date): { routes: ReplayRoute[] } | { file: string; text: string };
}

/** The venue's recording × this is the other recordings' market: 97012.2 × 98.9386 ÷ 7901234.5. */
const VENUE_DAY = '1.21478';

const times = (text: string, factor: string) => new Decimal(text).times(factor).toSignificantDigits(15).toFixed();

/** A recorded answer with each of these exact texts (a price as the venue wrote it) × factor. */
function scaledFixture(name: string, texts: readonly string[], factor: string): Buffer {
  let body = fixture(name).toString('latin1');
  for (const text of texts) {
    if (!body.includes(text)) throw new Error(`${name}: ${text} not found`);
    body = body.replaceAll(
      text,
      text.replace(/[0-9.]+/, (price) => times(price, factor)),
    );
  }
  return Buffer.from(body, 'latin1');
}

/** A REST venue: its one route answers the recording with `prices` (texts in it, each scaled at its first number). */
const rest =
  (path: string, name: string, prices: readonly string[], contentType = 'application/json') =>
  (factor: string): { routes: ReplayRoute[] } => ({
    routes: [
      {
        path,
        responses: [{ body: scaledFixture(name, prices, factor), headers: { 'content-type': contentType } }],
      },
    ],
  });

export const kitSources: readonly KitSource[] = [
  {
    name: 'backoffice',
    options: 'type: file, path: quotes.json',
    from: 'LTC',
    to: 'USDTTRC20',
    pair: 'LTC/USDT',
    fiat: false,
    answer: (factor, now) => ({
      file: 'quotes.json',
      text: JSON.stringify({
        quotes: [
          { pair: 'LTC/USDT', bid: times('88.41', factor), ask: times('88.42', factor), time: now.toISOString() },
        ],
      }),
    }),
  },
  {
    name: 'venue',
    options:
      'type: json, url: "https://venue.example/api/v1/tickers", pairs: { BTC/RUB: { bid: \'data.tickers["BTC-RUB"].bid\', ask: \'data.tickers["BTC-RUB"].ask\' } }',
    from: 'BTC',
    to: 'SBERRUB',
    pair: 'BTC/RUB',
    fiat: true,
    // The recorded venue is another day's market: at the kit's start every source tells one market (BTC/RUB within
    // 0.01% of kucoin's BTC/USDT × upstream's USDT/RUB), as the independent references expect of a healthy upstream.
    answer: (factor) =>
      rest('/api/v1/tickers', 'json/venue.json', ['"7901234.5"', '"7934567.8"'])(times(factor, VENUE_DAY)),
  },
  {
    name: 'binance',
    options: 'type: binance, pairs: [ETH/BTC]',
    from: 'ETH',
    to: 'BTC',
    pair: 'ETH/BTC',
    fiat: false,
    answer: rest('/api/v3/ticker/bookTicker', 'binance/bookTicker.json', ['"0.03217000"', '"0.03218000"']),
  },
  {
    name: 'bybit',
    options: 'type: bybit, pairs: [ETH/USDT]',
    from: 'ETH',
    to: 'USDTTRC20',
    pair: 'ETH/USDT',
    fiat: false,
    answer: rest('/v5/market/tickers', 'bybit/tickers-spot.json', ['"3120.44"', '"3120.45"']),
  },
  {
    name: 'okx',
    options: 'type: okx, pairs: [TON/USDT]',
    from: 'TON',
    to: 'USDTTRC20',
    pair: 'TON/USDT',
    fiat: false,
    answer: rest('/api/v5/market/tickers', 'okx/tickers-spot.json', ['"5.412"', '"5.414"']),
  },
  {
    name: 'kraken',
    options: 'type: kraken, pairs: [SOL/USD]',
    from: 'SOL',
    to: 'WIREUSD',
    pair: 'SOL/USD',
    fiat: false,
    answer: rest('/0/public/Ticker', 'kraken/ticker.json', ['"187.45000"', '"187.46000"']),
  },
  {
    name: 'p2p',
    options: 'type: p2p, venue: binance, pairs: [USDT/KZT], take: 3',
    from: 'USDTTRC20',
    to: 'KSPBKZT',
    pair: 'USDT/KZT',
    fiat: true,
    answer: (factor) => ({
      routes: [
        {
          path: '/bapi/c2c/v2/friendly/c2c/adv/search',
          responses: [
            {
              // The whole book: every advert's price.
              body: fixture('p2p/binance-contract.json')
                .toString('utf8')
                .replace(/"price":"([0-9.]+)"/g, (_all, price: string) => `"price":"${times(price, factor)}"`),
              headers: { 'content-type': 'application/json' },
            },
          ],
        },
      ],
    }),
  },
  {
    name: 'upstream',
    options:
      'type: exportfile, url: "https://upstream.example/export/rates.xml", pairs: { USDT/RUB: { bid: USDTTRC20>SBERRUB, ask: SBERRUB>USDTTRC20 } }',
    from: 'USDTTRC20',
    to: 'SBERRUB',
    pair: 'USDT/RUB',
    fiat: true,
    // Another exchanger's file: USDTTRC20 → SBERRUB at 1 : 98.9386, SBERRUB → USDTTRC20 at 100.0202 : 1.
    answer: (factor) => ({
      routes: [
        {
          path: '/export/rates.xml',
          responses: [
            {
              body: scaledFixture('../exports/real/CoinDrop.xml', ['<out>98.9386</out>', '<in>100.0202</in>'], factor),
              headers: { 'content-type': 'application/xml' },
            },
          ],
        },
      ],
    }),
  },
  {
    name: 'mexc',
    options: 'type: mexc, pairs: [USDC/USDT]',
    from: 'USDCTRC20',
    to: 'USDTTRC20',
    pair: 'USDC/USDT',
    fiat: false,
    // Binance's path too: its base URL has a prefix on the shared server (kitEnv).
    answer: rest('/mexc/api/v3/ticker/bookTicker', 'mexc/bookTicker.json', ['"0.9998"', '"0.9999"']),
  },
  {
    name: 'htx',
    options: 'type: htx, pairs: [TRX/USDT]',
    from: 'TRX',
    to: 'USDTTRC20',
    pair: 'TRX/USDT',
    fiat: false,
    answer: rest('/market/tickers', 'htx/tickers.json', ['"bid":0.27314', '"ask":0.27316']),
  },
  {
    name: 'kucoin',
    options: 'type: kucoin, pairs: [BTC/USDT]',
    from: 'BTC',
    to: 'USDTTRC20',
    pair: 'BTC/USDT',
    fiat: false,
    answer: rest('/api/v1/market/allTickers', 'kucoin/allTickers.json', ['"97012.2"', '"97012.3"']),
  },
  {
    name: 'whitebit',
    options: 'type: whitebit, pairs: [USDT/UAH]',
    from: 'USDTTRC20',
    to: 'CARDUAH',
    pair: 'USDT/UAH',
    fiat: true,
    answer: rest('/api/v2/public/ticker', 'whitebit/ticker.json', ['"41.91"', '"41.93"']),
  },
  {
    name: 'bitfinex',
    options: 'type: bitfinex, pairs: [BTC/USD]',
    from: 'BTC',
    to: 'WIREUSD',
    pair: 'BTC/USD',
    fiat: false,
    // Its tickers are arrays of JSON numbers: ["tBTCUSD", bid, bid size, ask, …, last, …].
    answer: rest('/v2/tickers', 'bitfinex/tickers.json', ['"tBTCUSD",97010,', ',97011,']),
  },
  {
    name: 'ecb',
    options: 'type: ecb, pairs: [EUR/USD]',
    from: 'WIREEUR',
    to: 'WIREUSD',
    pair: 'EUR/USD',
    fiat: false,
    maxAge: '3d',
    answer: rest('/stats/eurofxref/eurofxref-daily.xml', 'ecb/eurofxref-daily.xml', ["rate='1.0705'"], 'text/xml'),
  },
];

/** Every source type's base URL is the replay server's (MEXC's under /mexc: its paths are Binance's). */
export const kitEnv = (url: string): Record<string, string> => ({
  ...Object.fromEntries(
    [
      'JSON',
      'BINANCE',
      'BYBIT',
      'OKX',
      'KRAKEN',
      'P2P',
      'EXPORTFILE',
      'HTX',
      'KUCOIN',
      'WHITEBIT',
      'BITFINEX',
      'ECB',
    ].map((type) => [`RATEFILE_${type}_URL`, url]),
  ),
  RATEFILE_MEXC_URL: `${url}/mexc`,
});

/** The kit's config: each source (asked at most every `refresh`, when given), its direction at 1%, parserfile.xml only. */
export function kitConfig(refresh: string | undefined, top = ''): string {
  const sources = kitSources
    .map(
      (source) =>
        `  ${source.name}: { ${source.options}, ${refresh ? `refresh: ${refresh}, ` : ''}maxAge: ${source.maxAge ?? '30m'} }`,
    )
    .join('\n');
  const codes = [...new Set(kitSources.flatMap((source) => [source.from, source.to]))];
  const currencies = codes.map((code) => `  ${code}: { reserve: "1000000000" }`).join('\n');
  const directions = kitSources
    .map((source) => `  - { from: ${source.from}, to: ${source.to}, chain: [${source.pair}] }`)
    .join('\n');
  return `sources:\n${sources}\ncurrencies:\n${currencies}\ndefaults:\n  margin: 1%\ndirections:\n${directions}\n${top}`;
}

/** A published rate: `in` : `out`, and out ÷ in. */
export interface PublishedRate {
  in: string;
  out: string;
  rate: Decimal;
}

interface ParsedItem {
  from?: string;
  to?: string;
  in?: string;
  out?: string;
}

const wellFormed = new Set<string>();

/** The rates parserfile.xml publishes, by direction id, parsed by libxml2 (well-formed) and xmlbuilder2 (items). */
export async function publishedRates(made: Project): Promise<Map<string, PublishedRate>> {
  const text = await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8');
  // libxml2 (a quarter of a second a call under load) once per distinct file: most builds publish the last one again.
  if (!wellFormed.has(text)) {
    expect(await xmlErrors(text, 'parserfile.xml')).toEqual([]);
    wellFormed.add(text);
  }
  const document = create(text).end({ format: 'object' }) as { rates?: { item?: ParsedItem | ParsedItem[] } | string };
  const items = typeof document.rates === 'object' && document.rates.item ? [document.rates.item].flat() : [];
  const rates = new Map<string, PublishedRate>();
  for (const item of items) {
    const [from, to, inText, outText] = [item.from, item.to, item.in, item.out].map(String);
    rates.set(`${from}>${to}`, { in: inText!, out: outText!, rate: new Decimal(outText!).div(inText!) });
  }
  return rates;
}
