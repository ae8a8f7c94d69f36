// The configs the golden test builds (test/integration/build/golden.test.ts): every shipped config — the demo, examples/*.yaml,
// the `ratefile init` starter — and bench/generate.js's projects, each copied into a temporary folder and built
// in-process with build() at one fixed clock, its sources served on loopback from fixed recordings.
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from '../../src/io/build/build.js';
import { loadConfig } from '../../src/io/config/load.js';
import { moscowDate } from '../../src/io/sources/cbr.js';
import { dump } from './bestchange.js';
import { repoRoot } from './process.js';
import { fixtureWith, startReplay, type ReplayServer } from './replay.js';
import { runRatefile } from './run-cli.js';

/** The one clock of every golden build: 30 s after the demo's quotes were taken. */
export const goldenNow = new Date('2026-11-21T12:00:30Z');

/** One file a build wrote, with the number of items its export holds. */
export interface GoldenFile {
  file: string;
  bytes: Buffer;
  items: number;
}

export interface GoldenBuild {
  files: GoldenFile[];
  /** Sources and reserve sources that failed in this build: the setup's faults are part of what is compared. */
  failing: string[];
  /** Directions published. */
  published: number;
}

export interface GoldenCase {
  name: string;
  /** True: the files' bytes are checked in; false (big outputs): only their digest, size and item count. */
  bytes: boolean;
  build(): Promise<GoldenBuild>;
}

/** A request anywhere but loopback is a test reaching the internet: refused. */
const loopbackFetch: typeof globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.hostname !== '127.0.0.1')
    return Promise.reject(new Error(`golden builds stay on loopback, asked for ${url.href}`));
  return globalThis.fetch(input, init);
};

/** Closed after every case: the temporary folders and the loopback servers. */
const cleanups: (() => Promise<void>)[] = [];

export async function cleanUp(): Promise<void> {
  await Promise.all(cleanups.splice(0).map((close) => close()));
}

/** A temporary folder laid out like the repository: the demo, templates/ and examples/ as shipped. */
async function shippedTree(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-golden-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  for (const name of ['ratefile.config.yaml', 'quotes.json', 'templates', 'examples'])
    await cp(join(repoRoot, name), join(dir, name), { recursive: true });
  return dir;
}

/** A loopback server answering every request with `body` (a feed source asks for one path). */
async function serveBytes(body: Uint8Array): Promise<string> {
  const server = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'application/zip' }).end(body),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function serveReplay(routes: Parameters<typeof startReplay>[0]): Promise<ReplayServer> {
  const server = await startReplay(routes);
  cleanups.push(() => server.close());
  return server;
}

/** `config` (absolute path) loaded and built at the golden clock with exactly `env`, nothing of process.env. */
async function buildConfig(config: string, env: Record<string, string> = {}): Promise<GoldenBuild> {
  const loaded = await loadConfig(config);
  const { files, report } = await build(loaded, { now: () => goldenNow, env, fetch: loopbackFetch });
  return {
    files: files.map((file, index) => ({
      file: file.file,
      bytes: file.bytes,
      items: report.exports[index]?.items ?? -1,
    })),
    failing: [
      ...report.sources.filter((s) => !s.ok).map((s) => s.name),
      ...report.reserves.filter((r) => !r.ok).map((r) => r.name),
    ].sort(),
    published: report.priced.length,
  };
}

/** Quotes without a `time` are as old as their file: it is dated 10 s before the golden clock. */
const dateFile = (path: string) =>
  utimes(path, new Date(goldenNow.getTime() - 10_000), new Date(goldenNow.getTime() - 10_000));

/** Every recorded source of examples/live.yaml, its fixings dated the golden day (as test/integration/build/live.test.ts does). */
async function liveEnv(): Promise<Record<string, string>> {
  const cbrDate = moscowDate(goldenNow).replaceAll('/', '.');
  const ecbDate = goldenNow.toISOString().slice(0, 10);
  const servers = {
    binance: await serveReplay([
      { path: '/api/v3/ticker/bookTicker', responses: [{ fixture: 'binance/bookTicker.json' }] },
    ]),
    bybit: await serveReplay([{ path: '/v5/market/tickers', responses: [{ fixture: 'bybit/tickers-spot.json' }] }]),
    okx: await serveReplay([{ path: '/api/v5/market/tickers', responses: [{ fixture: 'okx/tickers-spot.json' }] }]),
    coingecko: await serveReplay([
      { path: '/api/v3/simple/price', responses: [{ fixture: 'coingecko/simple-price.json' }] },
    ]),
    cbr: await serveReplay([
      {
        path: '/scripts/XML_daily.asp',
        responses: [
          {
            fixture: 'cbr/XML_daily.asp',
            body: fixtureWith('cbr/XML_daily.asp', 'Date="21.11.2026"', `Date="${cbrDate}"`),
          },
        ],
      },
    ]),
    ecb: await serveReplay([
      {
        path: '/stats/eurofxref/eurofxref-daily.xml',
        responses: [
          {
            fixture: 'ecb/eurofxref-daily.xml',
            body: fixtureWith('ecb/eurofxref-daily.xml', "time='2026-11-20'", `time='${ecbDate}'`),
          },
        ],
      },
    ]),
  };
  return Object.fromEntries(
    Object.entries(servers).map(([type, server]) => [`RATEFILE_${type.toUpperCase()}_URL`, server.url]),
  );
}

/** Every recorded source of examples/regional.yaml (fixtures of 2026-11-21, the golden day). */
async function regionalEnv(): Promise<Record<string, string>> {
  const p2p = '/bapi/c2c/v2/friendly/c2c/adv/search';
  const server = await serveReplay([
    { path: p2p, body: { tradeType: 'BUY' }, responses: [{ fixture: 'p2p/binance-usdt-rub-ask.json' }] },
    { path: p2p, body: { tradeType: 'SELL' }, responses: [{ fixture: 'p2p/binance-usdt-rub-bid.json' }] },
    { path: '/api/v2/public/ticker', responses: [{ fixture: 'whitebit/ticker.json' }] },
    { path: '/0/public/Ticker', responses: [{ fixture: 'kraken/ticker.json' }] },
    { path: '/NBUStatService/v1/statdirectory/exchange', responses: [{ fixture: 'nbu/exchange.json' }] },
    { path: '/p24api/pubinfo', responses: [{ fixture: 'privatbank/pubinfo-noncash.json' }] },
    { path: '/rss/rates_all.xml', responses: [{ fixture: 'nbk/rates_all.xml' }] },
    { path: '/kurlar/today.xml', responses: [{ fixture: 'cbrt/today.xml' }] },
    { path: '/api/v1/market/allTickers', responses: [{ fixture: 'kucoin/allTickers.json' }] },
    { path: '/market/tickers', responses: [{ fixture: 'htx/tickers.json' }] },
    { path: '/v2/tickers', responses: [{ fixture: 'bitfinex/tickers.json' }] },
    { path: '/api/v3/ticker/bookTicker', responses: [{ fixture: 'mexc/bookTicker.json' }] },
    { path: '/uz/arkhiv-kursov-valyut/json/', responses: [{ fixture: 'cbu/json.json' }] },
    { path: '/api/v3/simple/price', responses: [{ fixture: 'coingecko/simple-price-fiat.json' }] },
  ]);
  const types = [
    'p2p',
    'whitebit',
    'kraken',
    'nbu',
    'privatbank',
    'nbk',
    'cbrt',
    'kucoin',
    'htx',
    'bitfinex',
    'mexc',
    'cbu',
    'coingecko',
  ];
  return Object.fromEntries(types.map((type) => [`RATEFILE_${type.toUpperCase()}_URL`, server.url]));
}

/**
 * BestChange's field for examples/compete.yaml near the demo's quotes (BTC/USDT 96,850, USDT/RUB 93.45): six
 * exchangers, among them the ones the example ignores (MyExchanger, id 1042) and one below its minReserve (Delta); cash in Moscow and St Petersburg.
 */
export function competeField(): Uint8Array {
  return dump({
    'bm_cycodes.dat': '1;SBERRUB\n2;BTC\n3;USDTTRC20\n4;CASHRUB\n',
    'bm_exch.dat':
      '10;Alpha;;0;1\n20;Beta;;0;1\n30;Gamma;;0;1\n40;MyExchanger;;0;1\n1042;Partner;;0;1\n50;Delta;;0;1\n',
    'bm_cities.dat': '1;Moscow\n2;Saint Petersburg\n',
    'bm_info.dat': 'last_update=15:00:00, 21 ноября\ncurrent_version=2.02\n',
    // from;to;exchanger;give;get;reserve;reviews;unused;min;max;city — 1 SBERRUB, 2 BTC, 3 USDTTRC20, 4 CASHRUB
    'bm_rates.dat': [
      '2;1;40;1;9010000;50000000;0.1;0;0.001;2;0',
      '2;1;1042;1;9005000;50000000;0.1;0;0.001;2;0',
      '2;1;10;1;8990000.5;50000000;0.1;0;0.001;2;0',
      '2;1;20;1;8975000;50000000;0.1;0;0.001;2;0',
      '2;1;30;1;8960000;50000000;0.1;0;0.001;2;0',
      // Below minReserve (1000 USDT in RUB): not counted.
      '2;1;50;1;8970000;50000;0.1;0;0.001;2;0',
      '3;1;40;1;93.1;90000000;0.1;0;100;100000;0',
      '3;1;10;1;92.85;90000000;0.1;0;100;100000;0',
      '3;1;20;1;92.6;90000000;0.1;0;100;100000;0',
      '3;1;30;1;92.41;90000000;0.1;0;100;100000;0',
      '3;4;10;1;92.2;9000000;0.1;0;500;50000;1',
      '3;4;20;1;91.9;9000000;0.1;0;500;50000;1',
      '3;4;30;1;91.5;9000000;0.1;0;500;50000;1',
      '3;4;10;1;91.95;9000000;0.1;0;500;50000;2',
      '3;4;20;1;91.7;9000000;0.1;0;500;50000;2',
    ].join('\r\n'),
  });
}

/** The demo with two templates in the other formats, so EREF 1.1 and JSON bytes are held too. */
const otherFormats = {
  'rates-1.1.yaml': 'format: eref-1.1\nfile: rates-1.1.xml\n',
  'rates.yaml': 'format: json\nexclude: { tags: [no-affiliate] }\nmarkup: "0.3%"\naliases: { USDTTRC20: USDTTRC }\n',
};

/** bench/generate.js's project of `count` directions, written by its own process as the bench does. */
async function benchProject(count: number, bestchange: boolean): Promise<GoldenBuild> {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-golden-bench-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  execFileSync(
    process.execPath,
    [join(repoRoot, 'bench/generate.js'), dir, String(count), ...(bestchange ? ['--bestchange'] : [])],
    { encoding: 'utf8' },
  );
  await dateFile(join(dir, 'quotes.json'));
  const env = bestchange ? { RATEFILE_BESTCHANGE_URL: await serveBytes(await readFile(join(dir, 'info.zip'))) } : {};
  return buildConfig(join(dir, 'ratefile.config.yaml'), env);
}

/** The demo with `from` replaced by `to` in ratefile.config.yaml (first occurrence; throws when absent). */
export async function demoWith(from: string, to: string): Promise<GoldenBuild> {
  const dir = await shippedTree();
  const path = join(dir, 'ratefile.config.yaml');
  const text = await readFile(path, 'utf8');
  if (!text.includes(from)) throw new Error(`ratefile.config.yaml: ${from} not found`);
  await writeFile(path, text.replace(from, to));
  return buildConfig(path);
}

export const goldenCases: GoldenCase[] = [
  { name: 'demo', bytes: true, build: async () => buildConfig(join(await shippedTree(), 'ratefile.config.yaml')) },
  {
    name: 'demo-formats',
    bytes: true,
    build: async () => {
      const dir = await shippedTree();
      await rm(join(dir, 'templates'), { recursive: true });
      await mkdir(join(dir, 'templates'));
      for (const [name, text] of Object.entries(otherFormats)) await writeFile(join(dir, 'templates', name), text);
      return buildConfig(join(dir, 'ratefile.config.yaml'));
    },
  },
  {
    name: 'examples-live',
    bytes: true,
    build: async () => buildConfig(join(await shippedTree(), 'examples/live.yaml'), await liveEnv()),
  },
  {
    name: 'examples-formulas',
    bytes: true,
    build: async () => buildConfig(join(await shippedTree(), 'examples/formulas.yaml')),
  },
  {
    name: 'examples-regional',
    bytes: true,
    build: async () => buildConfig(join(await shippedTree(), 'examples/regional.yaml'), await regionalEnv()),
  },
  {
    name: 'examples-monitors',
    bytes: true,
    build: async () => buildConfig(join(await shippedTree(), 'examples/monitors.yaml')),
  },
  {
    name: 'examples-compete',
    bytes: true,
    build: async () =>
      buildConfig(join(await shippedTree(), 'examples/compete.yaml'), {
        RATEFILE_BESTCHANGE_URL: await serveBytes(competeField()),
      }),
  },
  {
    name: 'examples-backoffice',
    bytes: true,
    // The file and HTTP reserve sources answer; the two SQL ones have no database URL here (test/sql/example.test.ts
    // runs them against real servers), so the directions needing them are withheld: that is part of the output.
    build: async () => {
      const dir = await shippedTree();
      await writeFile(
        join(dir, 'examples/reserves.json'),
        JSON.stringify({
          time: '2026-11-21T12:00:05Z',
          reserves: { SBERRUB: { reserve: '18000000', min: '5000', enabled: true }, BTC: '1.5' },
        }),
      );
      await dateFile(join(dir, 'examples/reserves.json'));
      const engine = await serveReplay([
        {
          path: '/api/reserves',
          responses: [
            {
              body: JSON.stringify({
                data: {
                  updatedAt: '2026-11-21T12:00:20Z',
                  reserves: { BTC: '4.25', USDTTRC20: { reserve: '250000', max: '50000' } },
                },
              }),
            },
          ],
        },
      ]);
      return buildConfig(join(dir, 'examples/backoffice.yaml'), {
        ENGINE_TOKEN: 'Bearer golden',
        RATEFILE_HTTP_URL: engine.url,
      });
    },
  },
  {
    name: 'init-starter',
    bytes: true,
    build: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ratefile-golden-init-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const init = await runRatefile(['init'], dir);
      if (init.code !== 0) throw new Error(`ratefile init failed: ${init.stderr}`);
      await dateFile(join(dir, 'quotes.json'));
      return buildConfig(join(dir, 'ratefile.config.yaml'));
    },
  },
  { name: 'bench-1k', bytes: false, build: () => benchProject(1000, false) },
  { name: 'bench-1k-bestchange', bytes: false, build: () => benchProject(1000, true) },
];
