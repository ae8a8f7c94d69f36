// The `bestchange` source with `api: v2` against a loopback server in the v2 shape (test/support/bestchange-v2.ts):
// exactly the competing pairs asked, in batches of at most 490 tokens; the catalogues kept; the faults — a refused
// key (never shown), 429 with Retry-After, truncated JSON, one batch failing, a mirror down, broken rows.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/io/config/load.js';
import type { RatefileError } from '../../../src/base/errors.js';
import { competitors, directionKey } from '../../../src/pure/bestchange/feed.js';
import { maxTokensPerRequest } from '../../../src/pure/bestchange/v2.js';
import type { FeedPair, SourceConfig } from '../../../src/model/config.js';
import { fetchQuotes, QuoteCache } from '../../../src/io/quotes/quotes.js';
import { bestChangeFeed } from '../../../src/io/sources/bestchange.js';
import { sourceDefinition } from '../../../src/io/sources/index.js';
import { startV2, testKey, v2Data, type V2Server } from '../../support/bestchange-v2.js';
import { freePort } from '../../support/ports.js';
import { repoRoot } from '../../support/process.js';

const pairs: FeedPair[] = [
  { from: 'SBERRUB', to: 'BTC', cities: [] },
  { from: 'TCSBRUB', to: 'USDTTRC20', cities: [] },
  { from: 'SBERRUB', to: 'CASHUSD', cities: ['MSK', 'SPB'] },
];

function source(options: Record<string, unknown>, competes: FeedPair[] = pairs): SourceConfig {
  const parsed = sourceDefinition('bestchange')!.options.parse({
    type: 'bestchange',
    api: 'v2',
    retries: 0,
    ...options,
  });
  return { name: 'bc', type: 'bestchange', options: parsed as SourceConfig['options'], competes };
}

const env = { RATEFILE_BESTCHANGE_KEY: testKey };
/** Issue 33's answer: `{"rates":` + 5,000,000 × `[` + 5,000,000 × `]` + `}`, 10,000,010 bytes. */
const hostileNesting = `{"rates":${'['.repeat(5_000_000)}${']'.repeat(5_000_000)}}`;
let now = new Date('2026-11-21T12:00:00Z');
const deps = (extra: { cache?: QuoteCache; env?: Record<string, string> } = {}) => ({
  configDir: '/nonexistent',
  fetch: globalThis.fetch,
  now: () => now,
  env: extra.env ?? env,
  sleep: async () => {},
  ...(extra.cache ? { cache: extra.cache } : {}),
});

describe('bestchange source, api: v2', () => {
  let server: V2Server;
  beforeEach(async () => {
    server = await startV2();
    now = new Date('2026-11-21T12:00:00Z');
  });
  afterEach(() => server.close());

  it('asks the catalogues, then rates for exactly the competing pairs, and files rows by direction and city', async () => {
    const { reports, feeds } = await fetchQuotes([source({ baseUrl: server.url })], deps());
    expect(reports[0]?.error).toBeUndefined();
    const feed = bestChangeFeed(feeds.get('bc'))!;
    expect(feed.order).toBe('rankrate');
    const rates = server.paths.filter((path) => path.includes('/rates/'));
    expect(rates).toEqual([`/v2/${testKey}/rates/42-93+105-10+42-89-1+42-89-2`]);
    expect(['currencies', 'cities', 'changers'].map((endpoint) => server.count(endpoint))).toEqual([1, 1, 1]);
    // give = rate (from per 1 to), get = 1: ranked best first by what the client gets, exactly.
    const sber = competitors(feed, 'SBERRUB', 'BTC').map(({ row }) => [row.exchanger, row.give, row.rankrate]);
    expect(sber).toEqual([
      ['Alpha', '5020000', '5120400'],
      ['Beta', '5050000', '5050000'],
      // Sent as JSON numbers: read as their text.
      ['Gamma', '5060000', '5070120'],
      ['Delta', '5080000', '5085000'],
    ]);
    expect(feed.directions.get(directionKey('SBERRUB', 'CASHUSD', 'MSK'))?.map((row) => row.exchanger)).toEqual([
      'Beta',
      'Gamma',
    ]);
    expect(feed.directions.get(directionKey('SBERRUB', 'CASHUSD', 'SPB'))?.map((row) => row.exchanger)).toEqual([
      'Beta',
      'Delta',
    ]);
    expect(feed.rows).toBe(12);
  });

  it('sends at most 490 tokens a request, and every token once', async () => {
    const many: FeedPair[] = [];
    const data = v2Data();
    // 1,000 pairs: the five currencies have 20 pairs; cities make the rest (ids 1000..), each a cash pair.
    const cities = Array.from({ length: 60 }, (_, i) => ({ id: 1000 + i, name: `City ${i}`, code: `C${i}` }));
    data.cities = JSON.stringify({ cities });
    const codes = ['BTC', 'SBERRUB', 'TCSBRUB', 'USDTTRC20', 'CASHUSD'];
    for (const from of codes)
      for (const to of codes)
        if (from !== to) many.push({ from, to, cities: cities.map((city) => `C${city.id - 1000}`) });
    await server.close();
    server = await startV2(data);
    const options = {
      baseUrl: server.url,
      cities: Object.fromEntries(cities.map((c) => [String(c.id), `C${c.id - 1000}`])),
    };
    const { reports } = await fetchQuotes([source(options, [...many, ...many])], deps());
    expect(reports[0]?.error).toBeUndefined();
    const sent = server.paths
      .filter((path) => path.includes('/rates/'))
      .map((path) => path.split('/rates/')[1]!.split('+'));
    expect(sent.map((tokens) => tokens.length)).toEqual([490, 490, 220]);
    expect(Math.max(...sent.map((tokens) => tokens.length))).toBeLessThanOrEqual(maxTokensPerRequest);
    expect(new Set(sent.flat()).size).toBe(1200);
  });

  it('keeps the catalogues for catalogueRefresh, asks rates once per refresh', async () => {
    const cache = new QuoteCache();
    const bc = source({ baseUrl: server.url, refresh: '30s', catalogueRefresh: '1h' });
    await fetchQuotes([bc], deps({ cache }));
    now = new Date(now.getTime() + 10_000);
    await fetchQuotes([bc], deps({ cache }));
    expect([server.count('currencies'), server.count('rates')]).toEqual([1, 1]);
    now = new Date(now.getTime() + 30_000);
    await fetchQuotes([bc], deps({ cache }));
    expect([server.count('currencies'), server.count('rates')]).toEqual([1, 2]);
    now = new Date(now.getTime() + 3_600_000);
    await fetchQuotes([bc], deps({ cache }));
    expect([server.count('currencies'), server.count('rates')]).toEqual([2, 3]);
  });

  it('a rates batch failing: the catalogues just read are not asked again before catalogueRefresh', async () => {
    const cache = new QuoteCache();
    const bc = source({ baseUrl: server.url, refresh: '30s' });
    server.fault = (endpoint, n) => (endpoint === 'rates' && n === 1 ? { status: 500, body: '{}' } : undefined);
    expect((await fetchQuotes([bc], deps({ cache }))).reports[0]?.error).toMatch(/HTTP 500/);
    now = new Date(now.getTime() + 30_000);
    expect((await fetchQuotes([bc], deps({ cache }))).reports[0]?.error).toBeUndefined();
    expect(['currencies', 'cities', 'changers', 'rates'].map((endpoint) => server.count(endpoint))).toEqual([
      1, 1, 1, 2,
    ]);
  });

  it('RATEFILE_BESTCHANGE_URL replaces the host (and the default mirrors), as for every source', async () => {
    const bc = source({});
    const { reports } = await fetchQuotes([bc], deps({ env: { ...env, RATEFILE_BESTCHANGE_URL: server.url } }));
    expect(reports[0]?.error).toBeUndefined();
    expect(server.count('rates')).toBe(1);
  });

  it('401: a configuration error naming the variable, never the key; not asked again in a loop', async () => {
    const cache = new QuoteCache();
    const bad = { RATEFILE_BESTCHANGE_KEY: 'Wrong0Key1Wrong2Key3Wrong4Key5Xx' };
    const bc = source({ baseUrl: server.url });
    const { reports } = await fetchQuotes([bc], deps({ cache, env: bad }));
    const error = reports[0]?.error ?? '';
    expect(error).toMatch(/HTTP 401: the API key in RATEFILE_BESTCHANGE_KEY is refused — a configuration error/);
    expect(error).not.toContain('Wrong0Key');
    expect(error).toContain('/v2/***/currencies/en');
    expect(server.count('currencies')).toBe(1);
    // A minute later (two refreshes), still not asked: a refused key pauses the source for 15 minutes.
    now = new Date(now.getTime() + 60_000);
    const again = await fetchQuotes([bc], deps({ cache, env: bad }));
    expect(again.reports[0]?.error).toMatch(/next try after 2026-11-21T12:15:00Z/);
    expect(server.count('currencies')).toBe(1);
  });

  it('no key: says which variable to set', async () => {
    const { reports } = await fetchQuotes([source({ baseUrl: server.url, keyEnv: 'BC_API_KEY' })], deps({ env: {} }));
    expect(reports[0]?.error).toBe('bc: API v2 needs its key in the environment variable BC_API_KEY (unset)');
    expect(server.paths).toEqual([]);
  });

  it('429 with Retry-After: the source is not asked again before it, on any host', async () => {
    const cache = new QuoteCache();
    server.fault = (endpoint) =>
      endpoint === 'rates' ? { status: 429, headers: { 'retry-after': '120' } } : undefined;
    const mirror = await startV2();
    try {
      const bc = source({ baseUrl: server.url, mirrors: [mirror.url], retries: 2 });
      const { reports } = await fetchQuotes([bc], deps({ cache }));
      expect(reports[0]?.error).toMatch(/rates\/ \(batch 1 of 1, 4 pairs\): HTTP 429/);
      expect(server.count('rates')).toBe(1);
      expect(mirror.count('rates')).toBe(0);
      now = new Date(now.getTime() + 60_000);
      const early = await fetchQuotes([bc], deps({ cache }));
      expect(early.reports[0]?.error).toMatch(/next try after 2026-11-21T12:02:00Z/);
      expect(server.count('rates')).toBe(1);
      server.fault = undefined;
      now = new Date(now.getTime() + 61_000);
      const later = await fetchQuotes([bc], deps({ cache }));
      expect(later.reports[0]?.error).toBeUndefined();
      expect(server.count('rates')).toBe(2);
    } finally {
      await mirror.close();
    }
  });

  it('429 on rates under a quota of 3 requests a minute: only rates is asked again, also across config reloads', async () => {
    // The service loads the config afresh for every build: each fetch gets new options objects.
    const cache = new QuoteCache({ background: true });
    const asked: number[] = [];
    server.fault = () => {
      const at = now.getTime();
      while (asked.length > 0 && asked[0]! <= at - 60_000) asked.shift();
      if (asked.length < 3) return void asked.push(at);
      return { status: 429, headers: { 'retry-after': String(Math.ceil((asked[0]! + 60_000 - at) / 1000)) } };
    };
    const results: (string | undefined)[] = [];
    for (let build = 0; build < 8; build++) {
      const bc = source({ baseUrl: server.url, refresh: '30s' });
      await fetchQuotes([bc], deps({ cache }));
      await cache.settled();
      results.push((await fetchQuotes([bc], deps({ cache }))).reports[0]?.error);
      now = new Date(now.getTime() + 30_000);
    }
    expect(results[0]).toMatch(/rates\/ \(batch 1 of 1, 4 pairs\): HTTP 429 Too Many Requests/);
    expect(results.slice(2)).toEqual(Array(6).fill(undefined));
    expect(['currencies', 'cities', 'changers'].map((endpoint) => server.count(endpoint))).toEqual([1, 1, 1]);
  });

  it('429 with a Retry-After of days: asked again after 10 minutes', async () => {
    const cache = new QuoteCache();
    server.fault = (endpoint, n) =>
      endpoint === 'rates' && n === 1 ? { status: 429, headers: { 'retry-after': '999999' } } : undefined;
    const { reports } = await fetchQuotes([source({ baseUrl: server.url })], deps({ cache }));
    expect(reports[0]?.error).toMatch(/HTTP 429 .*\(Retry-After asks for 12 days; a source waits at most 10 min\)/);
    now = new Date(now.getTime() + 9 * 60_000);
    const early = await fetchQuotes([source({ baseUrl: server.url })], deps({ cache }));
    expect(early.reports[0]?.error).toMatch(/next try after 2026-11-21T12:10:00Z/);
    now = new Date(now.getTime() + 60_000);
    const later = await fetchQuotes([source({ baseUrl: server.url })], deps({ cache }));
    expect(later.reports[0]?.error).toBeUndefined();
    expect(['currencies', 'rates'].map((endpoint) => server.count(endpoint))).toEqual([1, 2]);
  });

  it('a host down: the next one answers', async () => {
    const mirror = await startV2();
    try {
      const down = `http://127.0.0.1:${await freePort()}`;
      const { reports, feeds } = await fetchQuotes([source({ baseUrl: down, mirrors: [mirror.url] })], deps());
      expect(reports[0]?.error).toBeUndefined();
      expect(bestChangeFeed(feeds.get('bc'))?.rows).toBe(12);
      expect(mirror.count('rates')).toBe(1);
    } finally {
      await mirror.close();
    }
  });

  it('every host down: fails naming the last and how many', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const bc = source({ baseUrl: `http://127.0.0.1:${a}`, mirrors: [`http://127.0.0.1:${b}`] });
    const { reports, feeds } = await fetchQuotes([bc], deps());
    expect(reports[0]?.error).toMatch(
      new RegExp(`request to 127\\.0\\.0\\.1:${b} failed: .*\\(and 1 other hosts failed too\\)`),
    );
    expect(feeds.has('bc')).toBe(false);
  });

  const broken: [string, (endpoint: string, n: number) => { body?: string; status?: number } | undefined, RegExp][] = [
    [
      'JSON nested 5,000,000 deep in 10,000,010 bytes (under the 10 MB cap)',
      (endpoint) => (endpoint === 'rates' ? { body: hostileNesting } : undefined),
      /rates\/ \(batch 1 of 1, 4 pairs\): refused before parsing: JSON nested more than 64 levels deep \(level 65 opens at character 73\); expected at most 64$/,
    ],
    [
      'truncated JSON',
      (endpoint) => (endpoint === 'rates' ? { body: '{"rates":{"42-93":[{"changer":40,"rate":"50' } : undefined),
      /rates\/ \(batch 1 of 1, 4 pairs\): not valid JSON/,
    ],
    [
      'a wrong envelope',
      (endpoint) => (endpoint === 'currencies' ? { body: '{"data":[]}' } : undefined),
      /currencies\/en: expected \{"currencies": \[\.\.\.\]\}, got an object with "data"/,
    ],
    [
      'a zero rate',
      (endpoint) =>
        endpoint === 'rates' ? { body: '{"rates":{"42-93":[{"changer":20,"rate":"0","rankrate":"1"}]}}' } : undefined,
      /rates\.42-93\[0\]\.rate: "0" is not positive/,
    ],
    [
      'a rate in exponent form',
      (endpoint) =>
        endpoint === 'rates' ? { body: '{"rates":{"42-93":[{"changer":20,"rate":5e6,"rankrate":"1"}]}}' } : undefined,
      /rates\.42-93\[0\]\.rate: "5e6" is not a decimal/,
    ],
    [
      'a negative rankrate',
      (endpoint) =>
        endpoint === 'rates' ? { body: '{"rates":{"42-93":[{"changer":20,"rate":"1","rankrate":-2}]}}' } : undefined,
      /rankrate: "-2" is not a decimal/,
    ],
    [
      'a name longer than 200 characters',
      (endpoint) =>
        endpoint === 'changers' ? { body: `{"changers":[{"id":1,"name":"${'x'.repeat(201)}"}]}` } : undefined,
      /changers\[0\]\.name: expected a text of 1 to 200 characters/,
    ],
  ];

  it.each(broken)('%s fails the source', async (_, fault, says) => {
    server.fault = fault;
    const { reports, feeds } = await fetchQuotes([source({ baseUrl: server.url })], deps());
    expect(reports[0]?.error).toMatch(says);
    expect(feeds.has('bc')).toBe(false);
  });

  it('one batch of several failing fails the source; nothing of the good batches is used', async () => {
    const many: FeedPair[] = Array.from({ length: 600 }, (_, i) => ({ from: 'SBERRUB', to: 'BTC', cities: [`K${i}`] }));
    const data = v2Data();
    data.cities = JSON.stringify({ cities: many.map((_, i) => ({ id: 100 + i, name: `Town ${i}` })) });
    await server.close();
    server = await startV2(data);
    server.fault = (endpoint, n) => (endpoint === 'rates' && n === 2 ? { status: 500, body: '{}' } : undefined);
    const cities = Object.fromEntries(many.map((_, i) => [`Town ${i}`, `K${i}`]));
    const { reports, feeds } = await fetchQuotes([source({ baseUrl: server.url, cities }, many)], deps());
    expect(reports[0]?.error).toMatch(/rates\/ \(batch 2 of 2, 110 pairs\): HTTP 500/);
    expect(feeds.has('bc')).toBe(false);
  });

  it('a code the API does not list is reported, the other pairs still asked', async () => {
    const { reports } = await fetchQuotes(
      [source({ baseUrl: server.url }, [...pairs, { from: 'SBERRUB', to: 'XMR', cities: [] }])],
      deps(),
    );
    expect(reports[0]?.ok).toBe(true);
    expect(reports[0]?.rejected).toEqual(["SBERRUB>XMR: XMR not in the API's currencies list"]);
  });
});

describe('bestchange api: v2 in a config', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratefile-v2-config-'));
    await cp(join(repoRoot, 'templates'), join(dir, 'templates'), { recursive: true });
    await mkdir(join(dir, 'examples'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** examples/compete.yaml with its `bc:` lines as given, loaded from a copy beside the shipped templates. */
  async function example(replace: (text: string) => string) {
    const text = replace(await readFile(join(repoRoot, 'examples/compete.yaml'), 'utf8'));
    await writeFile(join(dir, 'examples/compete.yaml'), text);
    return loadConfig(join(dir, 'examples/compete.yaml'));
  }

  it("examples/compete.yaml's commented API v2 setup loads: directions compete on the v2 source, info.zip stands in", async () => {
    const config = await example((text) => {
      const v2 = text.replace(/^ {2}bc: \{ type: bestchange, refresh: 30s, maxAge: 2m, self: 40 \}\n/m, '');
      expect(v2).not.toBe(text);
      return v2.replace(/^ {2}# (bc(-zip)?: \{ type: bestchange.*)$/gm, '  $1');
    });
    const bc = config.sources.find((source) => source.name === 'bc')!;
    expect(bc.options).toMatchObject({ api: 'v2', keyEnv: 'BESTCHANGE_API_KEY', fallback: 'bc-zip', self: 40 });
    expect(config.directions.filter((d) => d.compete).map((d) => d.compete?.source)).toEqual(['bc', 'bc', 'bc']);
    // The pairs v2 is asked for: each competing direction's codes, a cash one with its cities.
    expect(bc.competes).toEqual([
      { from: 'BTC', to: 'SBERRUB', cities: [] },
      { from: 'USDTTRC20', to: 'SBERRUB', cities: [] },
      { from: 'USDTTRC20', to: 'CASHRUB', cities: ['MSK', 'SPB'] },
    ]);
  });

  it.each([
    ['bc: { type: bestchange, keyEnv: MY_KEY }', /sources\.bc\.keyEnv: only with api: v2/],
    ['bc: { type: bestchange, api: v3 }', /sources\.bc\.api: expected "v2"/],
    [
      'bc: { type: bestchange, api: v2, fallback: nothing }',
      /sources\.bc\.fallback: expected the name of another bestchange source reading info\.zip/,
    ],
    [
      'bc: { type: bestchange, api: v2, catalogueRefresh: 1m }',
      /sources\.bc\.catalogueRefresh: expected at least "10m"/,
    ],
  ])('%s is refused', async (line, says) => {
    const problems = await example((text) =>
      text.replace('bc: { type: bestchange, refresh: 30s, maxAge: 2m, self: 40 }', line),
    ).then(
      () => 'loaded',
      (error: RatefileError) => error.details.join('\n'),
    );
    expect(problems).toMatch(says);
  });
});
