import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChain } from '../../../src/pure/pricing/chains.js';
import { convertAlong } from '../../../src/pure/pricing/convert.js';
import { fetchQuotes } from '../../../src/io/quotes/quotes.js';
import { formatDecimal } from '../../../src/base/decimal.js';
import { fixture, fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { ecbSource } from '../../../src/io/sources/ecb.js';
import { endOfDay } from '../../../src/pure/sources/values.js';
import { contextFor, runSource, sourceError, testNow, testSource } from './contract.js';

const path = '/stats/eurofxref/eurofxref-daily.xml';
const pairs = ['EUR/USD', 'EUR/GBP', 'EUR/JPY', 'EUR/CNY', 'EUR/TRY'];

testSource({
  type: 'ecb',
  options: { pairs },
  path,
  normal: { fixture: 'ecb/eurofxref-daily.xml' },
  expected: [
    { pair: 'EUR/USD', bid: '1.0705', ask: '1.0705' },
    { pair: 'EUR/GBP', bid: '0.84638', ask: '0.84638' },
    { pair: 'EUR/JPY', bid: '171.94', ask: '171.94' },
    { pair: 'EUR/CNY', bid: '7.6234', ask: '7.6234' },
    { pair: 'EUR/TRY', bid: '45.2871', ask: '45.2871' },
  ],
  // The ECB stopped publishing RUB on 1 March 2022.
  missing: { options: { pairs: [...pairs, 'EUR/RUB'] }, pair: 'EUR/RUB' },
  zero: { body: fixtureWith('ecb/eurofxref-daily.xml', "rate='1.0705'", "rate='0'"), pair: 'EUR/USD' },
  envelope: {
    response: { status: 503, body: 'Service Unavailable' },
    says: /HTTP 503 Service Unavailable: "Service Unavailable"/,
  },
});

describe('ecb: its own traps', () => {
  let replay: ReplayServer;
  const serve = (body: string) => replay.setRoutes([{ path, responses: [{ fixture: 'ecb/any.xml', body }] }]);
  const text = () => fixture('ecb/eurofxref-daily.xml').toString('utf8');
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  it('refuses XML nested 700,000 deep (9.1 MB) before validating or parsing it', async () => {
    serve(`<gesmes:Envelope>${'<Cube>'.repeat(700_000)}${'</Cube>'.repeat(700_000)}</gesmes:Envelope>`);
    const error = await sourceError(runSource('ecb', {}, replay.url), 'ecb', path);
    expect(error.message).toBe(
      `ecb: GET ${path}: refused before parsing: XML nested more than 64 levels deep (level 65 opens at character 396); expected at most 64`,
    );
  });

  it('takes every currency when no pairs are given', async () => {
    serve(text());
    const result = await runSource('ecb', {}, replay.url);
    expect(result.quotes).toHaveLength(29);
    expect(result.quotes.every((quote) => quote.pair.startsWith('EUR/'))).toBe(true);
    expect(result.quotes.find((quote) => quote.pair === 'EUR/ISK')?.bid).toBe('145.30');
  });

  it('rates are foreign units per 1 EUR: USD→EUR is 1 / 1.0705 through the book', async () => {
    serve(text());
    const { book } = await fetchQuotes([{ name: 'ecb', type: 'ecb', options: { type: 'ecb', pairs: ['EUR/USD'] } }], {
      configDir: '/nonexistent',
      fetch: globalThis.fetch,
      now: () => testNow,
      env: { RATEFILE_ECB_URL: replay.url },
    });
    const chain = findChain(book, 'USD', 'EUR');
    expect(chain).toEqual(['EUR/USD']);
    const converted = convertAlong(book, chain!, 'USD');
    expect('factor' in converted && formatDecimal(converted.factor.toDecimalPlaces(10))).toBe('0.9341429239');
  });

  it('finds the Cube elements by namespace, whatever prefix binds it', async () => {
    const prefixed = text()
      .replace(
        'xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"',
        'xmlns:ecb="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"',
      )
      .replace(/<Cube\b/g, '<ecb:Cube')
      .replace(/<\/Cube>/g, '</ecb:Cube>');
    serve(prefixed);
    const result = await runSource('ecb', { pairs: ['EUR/USD'] }, replay.url);
    expect(result.quotes).toEqual([expect.objectContaining({ pair: 'EUR/USD', bid: '1.0705' })]);
  });

  it('refuses Cube elements of another vocabulary', async () => {
    serve(
      text().replace(
        'xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"',
        'xmlns="http://example.com/not-the-ecb"',
      ),
    );
    const error = await sourceError(runSource('ecb', { pairs }, replay.url), 'ecb', path);
    expect(error.message).toContain('not in the ECB eurofxref namespace');
  });

  it('refuses a document with more than one day (the 90-day history is a different file)', async () => {
    serve(
      text().replace(
        "<Cube time='2026-11-20'>",
        "<Cube time='2026-11-20'><Cube currency='USD' rate='1.07'/></Cube><Cube time='2026-11-19'>",
      ),
    );
    const error = await sourceError(runSource('ecb', { pairs }, replay.url), 'ecb', path);
    expect(error.message).toContain('expected one day of rates, found 2');
  });

  it('refuses reference rates that are not current', async () => {
    serve(text().replace("time='2026-11-20'", "time='2026-10-20'"));
    const error = await sourceError(runSource('ecb', { pairs }, replay.url), 'ecb', path);
    expect(error.message).toContain('the reference rates of 2026-10-20 are not current ones');
  });

  it('refuses a DTD with an external entity (no XXE)', async () => {
    serve(
      text()
        .replace(
          '<gesmes:Envelope',
          '<!DOCTYPE gesmes:Envelope [<!ENTITY rate SYSTEM "http://127.0.0.1:9/steal">]><gesmes:Envelope',
        )
        .replace("rate='1.0705'", "rate='&rate;'"),
    );
    const before = replay.requests.length;
    const error = await sourceError(runSource('ecb', { pairs }, replay.url), 'ecb', path);
    expect(error.message).toContain('a DTD (<!DOCTYPE …>) is not accepted');
    expect(replay.requests.length - before).toBe(1);
  });

  it('dates a reference rate by the end of its own day in Frankfurt, never after the fetch', async () => {
    const timeAt = async (day: string, now: string) => {
      serve(text().replace("time='2026-11-20'", `time='${day}'`));
      const context = { ...contextFor('ecb', { RATEFILE_ECB_URL: replay.url }), now: () => new Date(now) };
      const result = await ecbSource.fetchQuotes(ecbSource.options.parse({ type: 'ecb', pairs: ['EUR/USD'] }), context);
      return (Array.isArray(result) ? result : result.quotes)[0]?.time.toISOString();
    };
    // Friday's rate read on Monday morning: midnight after Friday in CET (UTC+1), not the fetch.
    expect(await timeAt('2026-11-20', '2026-11-23T09:00:00Z')).toBe('2026-11-20T23:00:00.000Z');
    // In summer Frankfurt is on CEST (UTC+2).
    expect(await timeAt('2026-07-10', '2026-07-13T09:00:00Z')).toBe('2026-07-10T22:00:00.000Z');
    // Read the same afternoon it was published: as new as the fetch, not from tonight.
    expect(await timeAt('2026-11-20', '2026-11-20T15:30:00Z')).toBe('2026-11-20T15:30:00.000Z');
  });

  it('endOfDay follows the time zone across a DST change and clamps to the fetch', () => {
    const late = new Date('2027-01-01T00:00:00Z');
    // 2026-03-29: Berlin goes to CEST at 02:00, so that day ends at 22:00 UTC; 2026-10-25 ends back on CET.
    expect(endOfDay('2026-03-29', 'Europe/Berlin', late).toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect(endOfDay('2026-03-28', 'Europe/Berlin', late).toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(endOfDay('2026-10-25', 'Europe/Berlin', late).toISOString()).toBe('2026-10-25T23:00:00.000Z');
    expect(endOfDay('2026-12-31', 'Europe/Moscow', late).toISOString()).toBe('2026-12-31T21:00:00.000Z');
    expect(endOfDay('2026-12-31', 'Europe/Moscow', new Date('2026-12-31T20:00:00Z')).toISOString()).toBe(
      '2026-12-31T20:00:00.000Z',
    );
  });

  it('drops a rate that is not a decimal', async () => {
    serve(text().replace("rate='0.84638'", "rate='0,84638'"));
    const result = await runSource('ecb', { pairs: ['EUR/USD', 'EUR/GBP'] }, replay.url);
    expect(result.problems).toEqual([`EUR/GBP (GBP) in GET ${path}: rate is not a decimal: "0,84638"`]);
  });

  it('drops an absurdly long rate, naming the pair, without writing out its exponent', async () => {
    serve(
      text()
        .replace("rate='0.84638'", `rate='0.${'8'.repeat(60)}'`)
        .replace("rate='171.94'", "rate='1e-999999999'"),
    );
    const result = await runSource('ecb', { pairs: ['EUR/USD', 'EUR/GBP', 'EUR/JPY'] }, replay.url);
    expect(result.quotes.map((quote) => quote.pair)).toEqual(['EUR/USD']);
    expect(result.problems).toEqual([
      `EUR/GBP (GBP) in GET ${path}: rate has 61 digits, more than 40: "0.${'8'.repeat(38)}…"`,
      `EUR/JPY (JPY) in GET ${path}: rate has 1000000000 digits, more than 40: "1e-999999999"`,
    ]);
  });
});
