import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/io/config/load.js';
import { RatefileError } from '../../../../src/base/errors.js';
import { sourceMaxAgeMs, sourceRefreshMs } from '../../../../src/io/quotes/source-options.js';
import { repoRoot } from '../../../support/process.js';

describe('sources in the config', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratefile-sources-config-'));
    await cp(join(repoRoot, 'templates'), join(dir, 'templates'), { recursive: true });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('examples/live.yaml loads, durations in milliseconds and defaults in place', async () => {
    const config = await loadConfig(join(repoRoot, 'examples/live.yaml'));
    const byName = new Map(config.sources.map((source) => [source.name, source]));
    expect([...byName.keys()]).toEqual(['binance', 'bybit', 'okx', 'coingecko', 'cbr', 'ecb']);
    expect(byName.get('binance')?.options).toEqual({
      type: 'binance',
      priority: 10,
      pairs: ['BTC/USDT', 'ETH/USDT', 'ETH/BTC', 'LTC/USDT', 'TRX/USDT'],
    });
    expect(sourceRefreshMs(byName.get('coingecko')!)).toBe(60_000);
    expect(sourceRefreshMs(byName.get('cbr')!)).toBe(3_600_000);
    expect(sourceMaxAgeMs(byName.get('cbr')!, config.schedulePeriodMs)).toBe(3 * 86_400_000);
    expect(sourceMaxAgeMs(byName.get('binance')!, config.schedulePeriodMs)).toBe(60_000);
  });

  it('reports every problem in source options at once, each with its path', async () => {
    await writeFile(
      join(dir, 'ratefile.config.yaml'),
      `sources:
  binance: { type: binance, pairs: [BTC/USDT, btc/rub], timeout: 10 seconds, retries: 9, baseURL: "http://x" }
  bybit: { type: bybit, pairs: "BTC/USDT", baseUrl: "ftp://x" }
  gecko: { type: coingecko, pairs: [USDT/RUB, NOT/RUB], refresh: 90 }
  cbr: { type: cbr, pairs: [RUB/USD], date: yesterday }
  venue: { type: json, url: "https://v.example/t", pairs: { USDT/RUB: { bid: "a..b" } } }
  kr: { type: kraken }
  x: { type: garantex, pairs: [USDT/RUB] }
currencies:
  BTC: { reserve: "1" }
  SBERRUB: { reserve: "1000" }
  USDTTRC20: { reserve: "1000" }
  USDTERC20: { reserve: "1000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 1% }
`,
    );
    const error = await loadConfig(join(dir, 'ratefile.config.yaml')).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(RatefileError);
    expect((error as RatefileError).details).toEqual([
      'sources.binance.pairs[1]: expected a quote pair like "BTC/USDT", got "btc/rub" (line 2)',
      'sources.binance.timeout: expected a duration like "10s", "5m" or "1h", got "10 seconds" (line 2)',
      'sources.binance.retries: expected an integer 0..5, got 9 (line 2)',
      'sources.binance.baseURL: unknown key (did you mean "baseUrl"?) (line 2)',
      'sources.bybit.pairs: expected a list of pairs like [BTC/USDT] or a mapping like { BTC/USDT: BTCUSDT }, got "BTC/USDT" (line 3)',
      'sources.bybit.baseUrl: expected an http(s) URL without query like "https://api.example.com", got "ftp://x" (line 3)',
      'sources.gecko.pairs[1]: no known CoinGecko coin id for NOT: write pairs as a mapping, e.g. { NOT/RUB: <coin id> } (line 4)',
      'sources.cbr.pairs[0]: expected a pair against RUB like "USD/RUB", got "RUB/USD" (line 5)',
      'sources.cbr.date: expected one of today, latest, got "yesterday" (line 5)',
      'sources.venue.pairs.USDT/RUB.bid: expected a path like "data.bid" or "result[\\"BTC-RUB\\"].ask", got "a..b" (line 6)',
      'sources.venue.pairs.USDT/RUB.ask: required (line 6)',
      'sources.kr.pairs: required: expected a list of pairs like [BTC/USDT] or a mapping like { BTC/USDT: BTCUSDT } (line 7)',
      // No adapter for sanctioned venues; the wording of an unknown type is the config loader's.
      expect.stringMatching(
        /^sources\.x\.type: .*file, binance, bybit, okx, kraken, coingecko, cbr, ecb, json.*"garantex" \(line 8\)$/,
      ),
    ]);
  });

  it.each([
    ['500ms', 500],
    ['10s', 10_000],
    ['1.5m', 90_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    [90, 90_000],
  ])('reads the duration %j as %i ms', async (value, ms) => {
    await writeFile(
      join(dir, 'ratefile.config.yaml'),
      `sources:\n  ecb: { type: ecb, refresh: ${JSON.stringify(value)} }\ncurrencies:\n  CASHEUR: { reserve: "1" }\n  CASHUSD: { reserve: "1" }\n  USDTTRC20: { reserve: "1" }\n  USDTERC20: { reserve: "1" }\ndirections:\n  - { from: CASHEUR, to: CASHUSD, margin: 1% }\n`,
    );
    const config = await loadConfig(join(dir, 'ratefile.config.yaml'));
    expect(sourceRefreshMs(config.sources[0]!)).toBe(ms);
  });
});
