import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemsFromIssues } from '../../../src/base/config/problems.js';
import { jsonSource, parsePath } from '../../../src/io/sources/json.js';
import { fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { runSource, sourceError, testSource, type Options } from './contract.js';

const path = '/api/v1/tickers';
const url = 'https://venue.example/api/v1/tickers?market=spot';
const pairs = {
  'USDT/RUB': { bid: 'data.tickers["USDT-RUB"].bid', ask: 'data.tickers["USDT-RUB"].ask' },
  'BTC/RUB': { bid: 'data.tickers["BTC-RUB"].bid', ask: 'data.tickers["BTC-RUB"].ask' },
};

testSource({
  type: 'json',
  options: { url, pairs, error: 'error' },
  path,
  normal: { fixture: 'json/venue.json' },
  expected: [
    { pair: 'USDT/RUB', bid: '81.41', ask: '81.97' },
    { pair: 'BTC/RUB', bid: '7901234.5', ask: '7934567.8' },
  ],
  missing: { options: { pairs: { ...pairs, 'ETH/RUB': 'data.tickers["ETH-RUB"].last' } }, pair: 'ETH/RUB' },
  zero: { body: fixtureWith('json/venue.json', '"bid": "81.41"', '"bid": "0"'), pair: 'USDT/RUB' },
  envelope: { response: { fixture: 'json/error.json' }, says: /error: maintenance: trading is paused until 12:30 UTC/ },
  withBase: (options: Options, base: string) => ({ ...options, url: `${base}${path}?market=spot` }),
});

describe('json: its own traps', () => {
  let replay: ReplayServer;
  const run = (options: Options, env: Record<string, string> = {}) =>
    runSource('json', { url, ...options }, replay.url, [], env);
  beforeAll(async () => {
    replay = await startReplay([{ path, responses: [{ fixture: 'json/venue.json' }] }]);
  });
  afterAll(() => replay.close());

  it('RATEFILE_JSON_URL replaces scheme, host and port, keeping the path and query', async () => {
    await run({ pairs });
    expect(replay.requests.at(-1)?.path).toBe(path);
    expect(replay.requests.at(-1)?.query.get('market')).toBe('spot');
    replay.setRoutes([{ path: `/mirror${path}`, responses: [{ fixture: 'json/venue.json' }] }]);
    const mirrored = await runSource('json', { url, pairs }, `${replay.url}/mirror/`);
    expect(mirrored.quotes).toHaveLength(2);
    replay.setRoutes([{ path, responses: [{ fixture: 'json/venue.json' }] }]);
  });

  it('one path is both bid and ask, and a JSON number keeps every digit', async () => {
    const result = await run({ pairs: { 'USDT/RUB': 'data.index[0].price' } });
    expect(result.quotes).toEqual([
      expect.objectContaining({ pair: 'USDT/RUB', bid: '81.6512345678901234', ask: '81.6512345678901234' }),
    ]);
  });

  it('dates the quotes by the time path, ISO 8601 or Unix seconds', async () => {
    const iso = await run({ pairs, time: 'serverTime' });
    expect(iso.quotes[0]?.time.toISOString()).toBe('2026-11-21T11:59:58.000Z');
    replay.setRoutes([
      {
        path,
        responses: [
          { body: fixtureWith('json/venue.json', '"serverTime": "2026-11-21T11:59:58Z"', '"serverTime": 1795262390') },
        ],
      },
    ]);
    const seconds = await run({ pairs, time: 'serverTime' });
    expect(seconds.quotes[0]?.time.toISOString()).toBe('2026-11-21T11:59:50.000Z');
    replay.setRoutes([{ path, responses: [{ fixture: 'json/venue.json' }] }]);
  });

  it('refuses a time path that holds no time', async () => {
    const error = await sourceError(run({ pairs, time: 'data.tickers["BTC-RUB"].bid' }), 'json', path);
    expect(error.message).toContain('data.tickers["BTC-RUB"].bid "7901234.5" is not a time');
  });

  it('reports a zero ask where the venue sends one', async () => {
    const result = await run({
      pairs: { 'TON/RUB': { bid: 'data.tickers["TON-RUB"].bid', ask: 'data.tickers["TON-RUB"].ask' } },
    });
    expect(result.problems).toEqual([
      `TON/RUB (data.tickers["TON-RUB"].bid, data.tickers["TON-RUB"].ask) in GET ${path}: data.tickers["TON-RUB"].ask is zero: "0"`,
    ]);
  });

  it('refuses JSON nested 5,000,000 deep (10,000,010 bytes, under the 10 MB cap) before parsing it, naming the bound', async () => {
    const hostile = `{"rates":${'['.repeat(5_000_000)}${']'.repeat(5_000_000)}}`;
    expect(hostile.length).toBe(10_000_010);
    replay.setRoutes([{ path, responses: [{ body: hostile }] }]);
    try {
      const error = await sourceError(run({ pairs }), 'json', path);
      expect(error.message).toBe(
        `json: GET ${path}: refused before parsing: JSON nested more than 64 levels deep (level 65 opens at character 73); expected at most 64`,
      );
      expect(error.transient).toBe(false);
    } finally {
      replay.setRoutes([{ path, responses: [{ fixture: 'json/venue.json' }] }]);
    }
  });

  it('refuses an answer of more than 500,000 values before parsing it', async () => {
    replay.setRoutes([{ path, responses: [{ body: `{"rates":[${'1,'.repeat(500_000)}1]}` }] }]);
    try {
      const error = await sourceError(run({ pairs }), 'json', path);
      expect(error.message).toMatch(
        /refused before parsing: JSON of more than 500,000 values \(the next at character \d+\); expected at most 500,000$/,
      );
    } finally {
      replay.setRoutes([{ path, responses: [{ fixture: 'json/venue.json' }] }]);
    }
  });

  it('a path finds only what the body holds (no inherited properties)', async () => {
    const result = await run({ pairs: { 'USDT/RUB': 'data.constructor', 'BTC/RUB': 'data.tickers["BTC-RUB"].bid' } });
    expect(result.problems).toEqual([`USDT/RUB (data.constructor) in GET ${path}: not in the response`]);
  });

  it('an error path holding null, false or "" is no error', async () => {
    const result = await run({ pairs, error: 'error' });
    expect(result.quotes).toHaveLength(2);
  });

  it.each([
    ['data.bid', ['data', 'bid']],
    ['rates[0].price', ['rates', 0, 'price']],
    ['result["USDT-RUB"].ask', ['result', 'USDT-RUB', 'ask']],
    ['$.a', ['$', 'a']],
    ['data..bid', undefined],
    ['.data', undefined],
    ['a[b]', undefined],
    ['', undefined],
  ])('reads the path %j', (text, steps) => {
    expect(parsePath(text)).toEqual(steps);
  });

  it('refuses a bad path and an URL that is not http(s), at load', () => {
    const parsed = jsonSource.options.safeParse({
      type: 'json',
      url: 'ftp://venue.example/x',
      pairs: { 'USDT/RUB': 'data..bid' },
    });
    const problems = problemsFromIssues(parsed.error?.issues ?? [], jsonSource.options);
    expect(problems.map((problem) => problem.message)).toEqual([
      'expected an http(s) URL, got "ftp://venue.example/x"',
      'expected a path like "data.bid" or "result[\\"BTC-RUB\\"].ask", got "data..bid"',
    ]);
  });
});
