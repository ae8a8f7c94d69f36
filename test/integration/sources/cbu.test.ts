import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cbuSource } from '../../../src/io/sources/cbu.js';
import type { SourceResult } from '../../../src/model/source.js';
import { fixture, fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { contextFor, sourceError, testSource } from './contract.js';

const path = '/uz/arkhiv-kursov-valyut/json/';
const pairs = ['USD/UZS', 'EUR/UZS', 'RUB/UZS', 'KZT/UZS', 'VND/UZS'];

testSource({
  type: 'cbu',
  options: { pairs },
  path,
  normal: { fixture: 'cbu/json.json' },
  expected: [
    { pair: 'USD/UZS', bid: '12680.45', ask: '12680.45' },
    { pair: 'EUR/UZS', bid: '14677.02', ask: '14677.02' },
    { pair: 'RUB/UZS', bid: '156.78', ask: '156.78' },
    { pair: 'KZT/UZS', bid: '24.46', ask: '24.46' },
    // Rate is per Nominal units: 4.82 UZS per 10 VND.
    { pair: 'VND/UZS', bid: '0.482', ask: '0.482' },
  ],
  missing: { options: { pairs: [...pairs, 'XAU/UZS'] }, pair: 'XAU/UZS' },
  zero: { body: fixtureWith('cbu/json.json', '"Rate":"12680.45"', '"Rate":"0"'), pair: 'USD/UZS' },
  envelope: {
    response: { status: 503, body: 'Service Unavailable' },
    says: /HTTP 503 Service Unavailable: "Service Unavailable"/,
  },
});

/** Run the cbu source at a given time. */
async function runAt(url: string, now: string, options: Record<string, unknown> = {}): Promise<SourceResult> {
  const context = { ...contextFor('cbu', { RATEFILE_CBU_URL: url }), now: () => new Date(now) };
  const result = await cbuSource.fetchQuotes(cbuSource.options.parse({ type: 'cbu', ...options }), context);
  return Array.isArray(result) ? { quotes: result, problems: [] } : result;
}

describe('cbu: its own traps', () => {
  let replay: ReplayServer;
  const text = () => fixture('cbu/json.json').toString('utf8');
  const serve = (body: string) => replay.setRoutes([{ path, responses: [{ fixture: 'cbu/any.json', body }] }]);
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  it('takes every currency when no pairs are given, each per one unit', async () => {
    serve(text());
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z');
    expect(result.problems).toEqual([]);
    expect(result.quotes).toHaveLength(12);
    expect(Object.fromEntries(result.quotes.map((quote) => [quote.pair, quote.bid]))).toMatchObject({
      'IRR/UZS': '0.302',
      'UAH/UZS': '300.81',
      'GBP/UZS': '16662.1',
    });
  });

  it('reads a decimal comma and a Rate sent as a JSON number; drops a bad Nominal or Rate, naming it', async () => {
    serve(
      text()
        .replace('"Rate":"12680.45"', '"Rate":"12680,45"')
        .replace('"Rate":"156.78"', '"Rate":156.78')
        .replace('"Nominal":"10","Rate":"4.82"', '"Nominal":"1.5","Rate":"4.82"')
        .replace('"Rate":"14677.02"', '"Rate":"14 677.02"')
        .replace('"Rate":"24.46"', '"Rate":"-24.46"'),
    );
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z', { pairs });
    expect(result.quotes.map(({ pair, bid }) => `${pair} ${bid}`)).toEqual(['USD/UZS 12680.45', 'RUB/UZS 156.78']);
    expect(result.problems).toEqual([
      `EUR/UZS (EUR) in GET ${path}: Rate "14 677.02" is not a decimal`,
      `KZT/UZS (KZT) in GET ${path}: Rate "-24.46" is not a decimal`,
      `VND/UZS (VND) in GET ${path}: Nominal "1.5" is not a positive whole number`,
    ]);
  });

  it('dates the rates by the end of their day in Tashkent (UTC+5), a rate set in advance by the fetch', async () => {
    serve(text());
    const after = await runAt(replay.url, '2026-11-23T04:00:00Z', { pairs: ['USD/UZS'] });
    expect(after.quotes[0]?.time.toISOString()).toBe('2026-11-21T19:00:00.000Z');
    serve(text().replaceAll('"Date":"21.11.2026"', '"Date":"22.11.2026"'));
    const ahead = await runAt(replay.url, '2026-11-21T12:00:00Z', { pairs: ['USD/UZS'] });
    expect(ahead.quotes[0]?.time.toISOString()).toBe('2026-11-21T12:00:00.000Z');
  });

  it('refuses rates that are not current ones, and an answer without rates', async () => {
    serve(text());
    const stale = await sourceError(runAt(replay.url, '2026-12-20T12:00:00Z'), 'cbu', path);
    expect(stale.message).toBe(`cbu: GET ${path}: the rates of 21.11.2026 are not current ones`);
    serve(text().replaceAll('"Date":"21.11.2026"', '"Date":"2026-11-21"'));
    const format = await sourceError(runAt(replay.url, '2026-11-21T12:00:00Z'), 'cbu', path);
    expect(format.message).toBe(`cbu: GET ${path}: Date "2026-11-21" is not a date like 21.11.2026`);
    serve('[]');
    const empty = await sourceError(runAt(replay.url, '2026-11-21T12:00:00Z'), 'cbu', path);
    expect(empty.message).toBe(`cbu: GET ${path}: no rates in the answer`);
    serve('{"error":"not found"}');
    const other = await sourceError(runAt(replay.url, '2026-11-21T12:00:00Z'), 'cbu', path);
    expect(other.message).toBe(`cbu: GET ${path}: expected a JSON list of rates`);
  });

  it('drops a currency dated otherwise than the answer', async () => {
    serve(
      text().replace(
        '"Rate":"14677.02","Diff":"+9.80","Date":"21.11.2026"',
        '"Rate":"14677.02","Diff":"+9.80","Date":"20.11.2026"',
      ),
    );
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z', { pairs: ['USD/UZS', 'EUR/UZS'] });
    expect(result.problems).toEqual([
      `EUR/UZS (EUR) in GET ${path}: Date "20.11.2026" is not the answer's "21.11.2026"`,
    ]);
  });

  it('takes only pairs against UZS, at load', () => {
    const parsed = cbuSource.options.safeParse({ type: 'cbu', pairs: ['UZS/USD'] });
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      'expected a pair against UZS like "USD/UZS", got "UZS/USD"',
    ]);
  });
});
