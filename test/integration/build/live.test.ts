// `ratefile build --config examples/live.yaml` with every RATEFILE_<TYPE>_URL pointed at a loopback replay of
// that source: the three exports are written; with one replay stopped, every direction that does not depend on
// it is still published, unchanged, and the log names the missing source.
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/io/config/load.js';
import { createLogger } from '../../../src/base/log.js';
import { startService } from '../../../src/service/start/service.js';
import { moscowDate } from '../../../src/io/sources/cbr.js';
import { assertBuilt, binPath, childEnv, repoRoot } from '../../support/process.js';
import { fixtureWith, startReplay, type ReplayRoute, type ReplayServer } from '../../support/replay.js';
import { xmlErrors } from '../../support/xml.js';

const sources = ['binance', 'bybit', 'okx', 'coingecko', 'cbr', 'ecb'] as const;
type Source = (typeof sources)[number];

/** The fixings carry today's date, so the build's real clock finds them current. */
function routes(now: Date): Record<Source, ReplayRoute[]> {
  const cbrDate = moscowDate(now).replaceAll('/', '.');
  const ecbDate = now.toISOString().slice(0, 10);
  return {
    binance: [{ path: '/api/v3/ticker/bookTicker', responses: [{ fixture: 'binance/bookTicker.json' }] }],
    bybit: [{ path: '/v5/market/tickers', responses: [{ fixture: 'bybit/tickers-spot.json' }] }],
    // OKX stamps each ticker (`ts`): stamped now, as a live answer would be.
    okx: [
      {
        path: '/api/v5/market/tickers',
        responses: [
          {
            fixture: 'okx/tickers-spot.json',
            body: fixtureWith('okx/tickers-spot.json', /"ts":"\d+"/g, `"ts":"${now.getTime()}"`),
          },
        ],
      },
    ],
    coingecko: [{ path: '/api/v3/simple/price', responses: [{ fixture: 'coingecko/simple-price.json' }] }],
    cbr: [
      {
        path: '/scripts/XML_daily.asp',
        responses: [
          {
            fixture: 'cbr/XML_daily.asp',
            body: fixtureWith('cbr/XML_daily.asp', 'Date="21.11.2026"', `Date="${cbrDate}"`),
          },
        ],
      },
    ],
    ecb: [
      {
        path: '/stats/eurofxref/eurofxref-daily.xml',
        responses: [
          {
            fixture: 'ecb/eurofxref-daily.xml',
            body: fixtureWith('ecb/eurofxref-daily.xml', "time='2026-11-20'", `time='${ecbDate}'`),
          },
        ],
      },
    ],
  };
}

/** BTC/USDT and ETH/USDT: the consensus of the three venues (examples/live.yaml's `rates:`). */
const venues: Source[] = ['binance', 'bybit', 'okx'];

/** Which sources each direction's quotes come from when all of them answer (read off examples/live.yaml). */
const dependsOn: Record<string, Source[]> = {
  ...Object.fromEntries(
    ['BTC', 'ETH', 'LTC', 'TRX'].flatMap((coin) => {
      const needs = coin === 'BTC' || coin === 'ETH' ? venues : ['binance'];
      return [
        [`${coin}>USDTTRC20`, needs],
        [`USDTTRC20>${coin}`, needs],
      ];
    }),
  ),
  'TON>USDTTRC20': ['bybit'],
  'USDTTRC20>TON': ['bybit'],
  'USDTERC20>USDTTRC20': [],
  'ETH>BTC': ['binance'],
  'BTC>ETH': ['binance'],
  'BTC>SBERRUB': [...venues, 'coingecko'],
  'BTC>TCSBRUB': [...venues, 'coingecko'],
  'ETH>SBERRUB': [...venues, 'coingecko'],
  'SBERRUB>BTC': [...venues, 'coingecko'],
  'USDTTRC20>SBERRUB': ['coingecko'],
  'SBERRUB>USDTTRC20': ['coingecko'],
  'USDTTRC20>CASHRUB': ['coingecko'],
  'USDTTRC20>CASHUSD': ['coingecko'],
  'CASHUSD>CASHRUB': ['cbr'],
  'CASHRUB>CASHUSD': ['cbr'],
  'CASHEUR>CASHRUB': ['cbr'],
  'CASHEUR>CASHUSD': ['ecb'],
  'CASHUSD>CASHEUR': ['ecb'],
};

/** With one venue down, the consensus of the other two prices BTC/USDT and ETH/USDT. */
const byTheOtherTwo = [
  'BTC>USDTTRC20',
  'ETH>USDTTRC20',
  'USDTTRC20>BTC',
  'USDTTRC20>ETH',
  'BTC>SBERRUB',
  'BTC>TCSBRUB',
  'ETH>SBERRUB',
  'SBERRUB>BTC',
];

/** Directions that depend on a source and are still published without it, from another source or a cross rate. */
const standIns: Record<Source, string[]> = {
  // The other two venues make BTC/USDT and ETH/USDT; ETH/BTC becomes the cross ETH/USDT ÷ BTC/USDT.
  binance: [...byTheOtherTwo, 'ETH>BTC', 'BTC>ETH'],
  bybit: byTheOtherTwo,
  okx: byTheOtherTwo,
  coingecko: [],
  cbr: [],
  // EUR/USD becomes the cross EUR/RUB ÷ USD/RUB of the Bank of Russia.
  ecb: ['CASHEUR>CASHUSD', 'CASHUSD>CASHEUR'],
};

/** Loopback only: a request anywhere else would be a test reaching the internet. */
const loopbackOnly = `data:text/javascript,${encodeURIComponent(
  'const f = globalThis.fetch; globalThis.fetch = (input, init) => { const url = new URL(input instanceof Request ? input.url : String(input)); if (url.hostname !== "127.0.0.1") throw new Error("not loopback: " + url); return f(input, init); };',
)}`;

function runBuild(cwd: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  assertBuilt();
  const child = spawn(
    process.execPath,
    ['--import', loopbackOnly, binPath, 'build', '--config', 'examples/live.yaml'],
    {
      cwd,
      env: { ...childEnv(), ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr })));
}

/** Items of an export by direction (`FROM>TO`), each direction's items (one per city) as text. */
function itemsOf(xml: string): Map<string, string> {
  const items = new Map<string, string>();
  for (const [item] of xml.matchAll(/<item>[\s\S]*?<\/item>/g)) {
    const id = `${/<from>(\w+)<\/from>/.exec(item)?.[1]}>${/<to>(\w+)<\/to>/.exec(item)?.[1]}`;
    items.set(id, (items.get(id) ?? '') + item);
  }
  return items;
}

interface Run {
  code: number | null;
  stderr: string;
  exports: Record<string, string>;
  /** The reasons of the status the build wrote, by direction id: every one, whatever the log summarised. */
  held: Map<string, string>;
}

describe('ratefile build --config examples/live.yaml against replayed sources', () => {
  const dirs: string[] = [];

  /** A copy of examples/live.yaml and the templates, built with `down` stopped. */
  async function build(down?: Source): Promise<Run> {
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-live-'));
    dirs.push(dir);
    await mkdir(join(dir, 'examples'));
    await cp(join(repoRoot, 'examples/live.yaml'), join(dir, 'examples/live.yaml'));
    await cp(join(repoRoot, 'templates'), join(dir, 'templates'), { recursive: true });
    const all = routes(new Date());
    const servers = {} as Record<Source, ReplayServer>;
    for (const source of sources) servers[source] = await startReplay(all[source]);
    try {
      if (down) await servers[down].close();
      const env = Object.fromEntries(
        sources.map((source) => [`RATEFILE_${source.toUpperCase()}_URL`, servers[source].url]),
      );
      const { code, stderr } = await runBuild(dir, { ...env, RATEFILE_COINGECKO_KEY: '' });
      const exports: Record<string, string> = {};
      for (const name of ['parserfile', 'reffile', 'affiliatefile'])
        exports[name] = await readFile(join(dir, 'public/live', `${name}.xml`), 'utf8');
      const status = JSON.parse(await readFile(join(dir, 'examples/.ratefile/status.json'), 'utf8')) as {
        heldBack: { direction: string; reason: string }[];
      };
      return { code, stderr, exports, held: new Map(status.heldBack.map((h) => [h.direction, h.reason])) };
    } finally {
      await Promise.all(sources.filter((source) => source !== down).map((source) => servers[source].close()));
    }
  }

  let allUp: Run;
  beforeAll(async () => {
    allUp = await build();
  });
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('writes the three exports, every direction priced, well-formed XML 1.0', async () => {
    expect(allUp.stderr).not.toMatch(/ failed|held back [A-Z]|dropped/);
    expect(allUp.stderr).toContain('published 26 directions, 0 held back');
    expect(allUp.code).toBe(0);
    const parser = itemsOf(allUp.exports.parserfile!);
    expect([...parser.keys()].sort()).toEqual(Object.keys(dependsOn).sort());
    for (const [name, xml] of Object.entries(allUp.exports)) expect(await xmlErrors(xml, `${name}.xml`)).toEqual([]);
    expect(itemsOf(allUp.exports.reffile!).size).toBe(14);
    // Cash directions are tagged no-affiliate.
    expect(itemsOf(allUp.exports.affiliatefile!).size).toBe(19);
  });

  it('prices from the replayed quotes: BTC→SBERRUB is BTC/USDT bid × USDT/RUB less 1.2%', () => {
    const item = itemsOf(allUp.exports.parserfile!).get('BTC>SBERRUB')!;
    // 97012.30000000 × 81.61988475210483 × 0.988, rounded down to 4 places.
    expect(item).toContain('<out>7823115.1525</out>');
    const cash = itemsOf(allUp.exports.parserfile!).get('CASHUSD>CASHRUB')!;
    // The official 81.5032 less 2.5%.
    expect(cash).toContain('<out>79.46</out>');
  });

  it.each(sources)('with %s down, every direction not depending on it is still published, unchanged', async (down) => {
    const run = await build(down);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`source ${down} failed: ${down}: GET /\\S+: request to 127\\.0\\.0\\.1:\\d+ failed: .*ECONNREFUSED`),
    );
    expect(run.stderr).toMatch(new RegExp(`failing sources: ${down}\\b`));
    const before = itemsOf(allUp.exports.parserfile!);
    const after = itemsOf(run.exports.parserfile!);
    for (const [id, needs] of Object.entries(dependsOn)) {
      if (!needs.includes(down)) expect(after.get(id), id).toBe(before.get(id));
      else if (standIns[down].includes(id)) expect(after.has(id), `${id} published from a stand-in`).toBe(true);
      else {
        expect(after.has(id), `${id} held back`).toBe(false);
        expect(run.held.get(id), id).toMatch(new RegExp(`\\(failing sources: ${down}\\)`));
      }
    }
    // The log: each held direction on a line, or (more than 5 of one kind) their count and the first 3.
    const lines = [
      ...run.stderr.matchAll(/held back (\S+ → \S+) \(directions\[\d+\]\): .*\(failing sources: (\w+)\)/g),
    ];
    const counted = [...run.stderr.matchAll(/(\d+) directions held back \(\w+\), the first 3 below/g)];
    const summarised = counted.reduce((sum, match) => sum + Number(match[1]), 0);
    expect(lines.every((match) => match[2] === down)).toBe(true);
    expect(lines.length - 3 * counted.length + summarised).toBe(run.held.size);
    for (const [name, xml] of Object.entries(run.exports)) expect(await xmlErrors(xml, `${name}.xml`)).toEqual([]);
  });
});

describe('ratefile start on examples/live.yaml: fixings are not fetched every build', () => {
  it('asks the exchanges every build, CoinGecko once a minute, CBR and ECB once an hour', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-live-service-'));
    await mkdir(join(dir, 'examples'));
    await cp(join(repoRoot, 'examples/live.yaml'), join(dir, 'examples/live.yaml'));
    await cp(join(repoRoot, 'templates'), join(dir, 'templates'), { recursive: true });
    const start = new Date();
    const all = routes(start);
    const servers = {} as Record<Source, ReplayServer>;
    for (const source of sources) servers[source] = await startReplay(all[source]);
    const env = Object.fromEntries(
      sources.map((source) => [`RATEFILE_${source.toUpperCase()}_URL`, servers[source].url]),
    );
    const path = join(dir, 'examples/live.yaml');
    let now = start;
    let log = '';
    const service = await startService({
      config: await loadConfig(path),
      loadConfig: () => loadConfig(path),
      outDir: join(dir, 'public'),
      port: 0,
      host: '127.0.0.1',
      log: createLogger({ write: (text: string) => (log += text) }),
      deps: { now: () => now, env },
    });
    const asked = () => Object.fromEntries(sources.map((source) => [source, servers[source].requests.length]));
    try {
      expect(log).toContain('published 26 directions, 0 held back');
      expect(asked()).toEqual({ binance: 1, bybit: 1, okx: 1, coingecko: 1, cbr: 1, ecb: 1 });
      now = new Date(start.getTime() + 30_000);
      await service.rebuild();
      expect(asked()).toEqual({ binance: 2, bybit: 2, okx: 2, coingecko: 1, cbr: 1, ecb: 1 });
      now = new Date(start.getTime() + 61_000);
      await service.rebuild();
      expect(asked()).toEqual({ binance: 3, bybit: 3, okx: 3, coingecko: 2, cbr: 1, ecb: 1 });
      now = new Date(start.getTime() + 3_600_000);
      await service.rebuild();
      expect(asked()).toEqual({ binance: 4, bybit: 4, okx: 4, coingecko: 3, cbr: 2, ecb: 2 });
      expect(log).not.toMatch(/ failed|held back [A-Z]/);
    } finally {
      await service.stop();
      await Promise.all(sources.map((source) => servers[source].close()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
