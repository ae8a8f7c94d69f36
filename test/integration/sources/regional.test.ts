// Issue 36's build: USDT/RUB from a Binance P2P average, USDT/UAH from a consensus of WhiteBIT and the NBU-anchored
// cross (the official USD/UAH carried to USDT by Kraken's USDT/USD), every venue a recorded answer on loopback.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../../src/io/build/build.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { derivationLines } from '../../../src/pure/rates/explain.js';
import { startReplay, type ReplayServer } from '../../support/replay.js';

const binancePath = '/bapi/c2c/v2/friendly/c2c/adv/search';
const now = new Date('2026-11-21T12:00:00Z');

describe('regional pricing: a P2P average and a consensus with an official cross', () => {
  let dir: string;
  let replay: ReplayServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratefile-regional-'));
    await mkdir(join(dir, 'templates'));
    await writeFile(join(dir, 'templates', 'parserfile.yaml'), 'description: every direction\n');
    replay = await startReplay([
      { path: binancePath, body: { tradeType: 'BUY' }, responses: [{ fixture: 'p2p/binance-usdt-rub-ask.json' }] },
      { path: binancePath, body: { tradeType: 'SELL' }, responses: [{ fixture: 'p2p/binance-usdt-rub-bid.json' }] },
      { path: '/api/v2/public/ticker', responses: [{ fixture: 'whitebit/ticker.json' }] },
      { path: '/NBUStatService/v1/statdirectory/exchange', responses: [{ fixture: 'nbu/exchange.json' }] },
      { path: '/0/public/Ticker', responses: [{ fixture: 'kraken/ticker.json' }] },
    ]);
  });
  afterAll(async () => {
    await replay.close();
    await rm(dir, { recursive: true, force: true });
  });

  const env = () =>
    Object.fromEntries(['P2P', 'WHITEBIT', 'NBU', 'KRAKEN'].map((type) => [`RATEFILE_${type}_URL`, replay.url]));

  async function configWith(spread: string) {
    await writeFile(
      join(dir, 'ratefile.config.yaml'),
      `sources:
  p2p_rub: { type: p2p, venue: binance, pairs: [USDT/RUB], payMethods: [TinkoffNew], amount: 50000, merchantsOnly: true, skip: 1, take: 3 }
  whitebit: { type: whitebit, pairs: [USDT/UAH] }
  nbu: { type: nbu, pairs: [USD/UAH], maxAge: 3d }
  kraken: { type: kraken, pairs: [USDT/USD] }
rates:
  USDT/UAH: { sources: [whitebit, "nbu:USD/UAH * kraken:USDT/USD"], spread: ${spread} }
currencies:
  USDTTRC20: { reserve: "100000" }
  SBERRUB: { reserve: "5000000" }
  MONOBUAH: { asset: UAH, reserve: "2000000" }
directions:
  - { from: USDTTRC20, to: SBERRUB, margin: 1% }
  - { from: USDTTRC20, to: MONOBUAH, margin: 1% }
`,
    );
    return loadConfig(join(dir, 'ratefile.config.yaml'));
  }

  it('prices both from their sources, each term named in the explanation', async () => {
    const config = await configWith('1%');
    const { report } = await build(config, { now: () => now, env: env() });
    expect(report.sources.map((s) => `${s.name} ${s.ok}`)).toEqual([
      'p2p_rub true',
      'whitebit true',
      'nbu true',
      'kraken true',
    ]);
    const market = Object.fromEntries(report.priced.map((p) => [p.direction.id, p.market.toFixed()]));
    // The P2P bid: the mean of the best merchant adverts' prices after the filters.
    expect(market['USDTTRC20>SBERRUB']).toBe('96.6233333333');
    // WhiteBIT bid 41.91 and the cross 42.1536 × 1.0002 = 42.16203072: their median (two terms: the mean).
    expect(market['USDTTRC20>MONOBUAH']).toBe('42.03601536');
    const steps = report.priced.find((p) => p.direction.id === 'USDTTRC20>MONOBUAH')!.steps;
    expect(steps.map((s) => `${s.pair} from ${s.quote.source}`)).toEqual(['USDT/UAH from median of 2']);
    const made = report.rates[0]!;
    expect(derivationLines(made, report.rates, now, '')).toEqual([
      'consensus of 2 terms: median, quorum 2, spread limit 1%; spread 0.581%',
      '  whitebit: bid 41.91, ask 41.93, 0 s old — used',
      '  nbu:USD/UAH * kraken:USDT/USD: bid 42.16203072, ask 42.16624608, 0 s old — used',
      '    USD/UAH from nbu: bid 42.1536, ask 42.1536, 0 s old',
      '    USDT/USD from kraken: bid 1.0002, ask 1.0003, 0 s old',
      '  median of the 2 used terms: bid 41.91, 42.16203072 → 42.03601536; ask 41.93, 42.16624608 → 42.04812304',
    ]);
  });

  it('two terms further apart than the limit: the UAH direction is withheld with the reason, the RUB one published', async () => {
    const config = await configWith('0.5%');
    const { report } = await build(config, { now: () => now, env: env() });
    expect(report.priced.map((p) => p.direction.id)).toEqual(['USDTTRC20>SBERRUB']);
    expect(report.withheld.map((w) => `${w.direction.id}: ${w.reason}`)).toEqual([
      'USDTTRC20>MONOBUAH: no quote for USDT/UAH (median of 2: spread 0.581% past 0.5%, and no single term is furthest from the median)',
    ]);
  });
});
