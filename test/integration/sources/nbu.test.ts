import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nbuSource } from '../../../src/io/sources/nbu.js';
import type { SourceResult } from '../../../src/model/source.js';
import { fixture, fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { contextFor, sourceError, testSource } from './contract.js';

const path = '/NBUStatService/v1/statdirectory/exchange';
const pairs = ['USD/UAH', 'EUR/UAH', 'PLN/UAH', 'JPY/UAH', 'KZT/UAH'];

testSource({
  type: 'nbu',
  options: { pairs },
  path,
  normal: { fixture: 'nbu/exchange.json' },
  expected: [
    { pair: 'USD/UAH', bid: '42.1536', ask: '42.1536' },
    { pair: 'EUR/UAH', bid: '48.7421', ask: '48.7421' },
    { pair: 'PLN/UAH', bid: '11.4823', ask: '11.4823' },
    { pair: 'JPY/UAH', bid: '0.27154', ask: '0.27154' },
    { pair: 'KZT/UAH', bid: '0.081234', ask: '0.081234' },
  ],
  // NBU sets no rate for the rouble since 2022.
  missing: { options: { pairs: [...pairs, 'RUB/UAH'] }, pair: 'RUB/UAH' },
  zero: { body: fixtureWith('nbu/exchange.json', '"rate":42.1536', '"rate":0'), pair: 'USD/UAH' },
  envelope: {
    response: { fixture: 'nbu/wrong-parameters.json' },
    says: /NBU answered "Wrong parameters format"/,
  },
});

/** Run the nbu source at a given time. */
async function runAt(url: string, now: string, options: Record<string, unknown> = {}): Promise<SourceResult> {
  const context = { ...contextFor('nbu', { RATEFILE_NBU_URL: url }), now: () => new Date(now) };
  const result = await nbuSource.fetchQuotes(nbuSource.options.parse({ type: 'nbu', ...options }), context);
  return Array.isArray(result) ? { quotes: result, problems: [] } : result;
}

describe('nbu: its own traps', () => {
  let replay: ReplayServer;
  const serve = (body: Buffer | string) => replay.setRoutes([{ path, responses: [{ fixture: 'nbu/any.json', body }] }]);
  beforeAll(async () => {
    replay = await startReplay([{ path, responses: [{ fixture: 'nbu/exchange.json' }] }]);
  });
  afterAll(() => replay.close());

  it('asks for the rates in force, and takes every currency per one unit', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'nbu/exchange.json' }] }]);
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z');
    const request = replay.requests.at(-1);
    expect(request?.query.has('json')).toBe(true);
    expect(request?.query.has('date')).toBe(false);
    expect(result.problems).toEqual([]);
    expect(result.quotes).toHaveLength(15);
    // Gold is per troy ounce; SDR and the forint per one unit, as NBU has quoted every currency since 2019.
    expect(result.quotes.find((quote) => quote.pair === 'XAU/UAH')?.bid).toBe('171234.56');
    expect(result.quotes.find((quote) => quote.pair === 'HUF/UAH')?.bid).toBe('0.12704');
  });

  it("date: latest asks for tomorrow's rates, and for those in force while tomorrow's are not set", async () => {
    replay.setRoutes([
      { path, query: { date: '20261122' }, responses: [{ body: '[]', fixture: 'nbu/any.json' }] },
      { path, query: { date: null }, responses: [{ fixture: 'nbu/exchange.json' }] },
    ]);
    const before = replay.requests.length;
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z', { date: 'latest', pairs: ['USD/UAH'] });
    expect(replay.requests.slice(before).map((request) => request.query.get('date'))).toEqual(['20261122', null]);
    expect(result.quotes).toEqual([expect.objectContaining({ pair: 'USD/UAH', bid: '42.1536' })]);
    // Once set, tomorrow's rates are as new as the fetch, never from the future.
    replay.setRoutes([
      {
        path,
        responses: [{ body: fixtureWith('nbu/exchange.json', /21\.11\.2026/g, '22.11.2026'), fixture: 'nbu/any.json' }],
      },
    ]);
    const tomorrow = await runAt(replay.url, '2026-11-21T15:00:00Z', { date: 'latest', pairs: ['USD/UAH'] });
    expect(tomorrow.quotes[0]?.time.toISOString()).toBe('2026-11-21T15:00:00.000Z');
    // 22:30 UTC on 21 November is already 22 November in Kyiv (UTC+2): tomorrow is the 23rd.
    await runAt(replay.url, '2026-11-21T22:30:00Z', { date: 'latest', pairs: ['USD/UAH'] });
    expect(replay.requests.at(-1)?.query.get('date')).toBe('20261123');
  });

  it('dates the rates by the end of their day in Kyiv', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'nbu/exchange.json' }] }]);
    // Saturday's rates read on Sunday: midnight after Saturday in Kyiv is 22:00 UTC.
    const result = await runAt(replay.url, '2026-11-22T09:00:00Z', { pairs: ['USD/UAH'] });
    expect(result.quotes[0]?.time.toISOString()).toBe('2026-11-21T22:00:00.000Z');
  });

  it('refuses rates that are not current ones, and an empty answer', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'nbu/exchange.json' }] }]);
    const stale = await sourceError(runAt(replay.url, '2026-12-20T12:00:00Z'), 'nbu', path);
    expect(stale.message).toBe(`nbu: GET ${path}: the rates of 21.11.2026 are not current ones`);
    serve('[]');
    const empty = await sourceError(runAt(replay.url, '2026-11-21T12:00:00Z'), 'nbu', path);
    expect(empty.message).toBe(`nbu: GET ${path}: no rates in the answer`);
  });

  it('drops a row dated otherwise than the answer, a rate sent as text, and a negative rate', async () => {
    serve(
      fixture('nbu/exchange.json')
        .toString('utf8')
        .replace('"cc":"USD","exchangedate":"21.11.2026"', '"cc":"USD","exchangedate":"20.11.2026"')
        .replace('"rate":48.7421', '"rate":"48,7421"')
        .replace('"rate":11.4823', '"rate":-11.4823'),
    );
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z', {
      pairs: ['USD/UAH', 'EUR/UAH', 'PLN/UAH', 'GBP/UAH'],
    });
    expect(result.quotes.map((quote) => quote.pair)).toEqual(['GBP/UAH']);
    expect(result.problems).toEqual([
      `USD/UAH (USD) in GET ${path}: exchangedate "20.11.2026" is not the answer's "21.11.2026"`,
      `EUR/UAH (EUR) in GET ${path}: rate is not a decimal: "48,7421"`,
      `PLN/UAH (PLN) in GET ${path}: rate is negative: "-11.4823"`,
    ]);
  });

  it('reads a rate NBU sends with an exponent exactly', async () => {
    serve(fixtureWith('nbu/exchange.json', '"rate":0.081234', '"rate":8.1234E-2'));
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z', { pairs: ['KZT/UAH'] });
    expect(result.quotes[0]?.bid).toBe('0.081234');
  });

  it('takes only pairs against UAH, at load', () => {
    const parsed = nbuSource.options.safeParse({ type: 'nbu', pairs: ['USD/UAH', 'UAH/USD'] });
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      'expected a pair against UAH like "USD/UAH", got "UAH/USD"',
    ]);
  });
});
