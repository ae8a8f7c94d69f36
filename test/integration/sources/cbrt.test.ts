import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cbrtSource } from '../../../src/io/sources/cbrt.js';
import type { SourceResult } from '../../../src/model/source.js';
import { fixture, fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { contextFor, sourceError, testSource } from './contract.js';

const path = '/kurlar/today.xml';
const pairs = ['USD/TRY', 'EUR/TRY', 'JPY/TRY', 'RUB/TRY', 'IRR/TRY'];

testSource({
  type: 'cbrt',
  options: { pairs },
  path,
  normal: { fixture: 'cbrt/today.xml' },
  expected: [
    { pair: 'USD/TRY', bid: '42.321', ask: '42.3973' },
    { pair: 'EUR/TRY', bid: '49.4412', ask: '49.5303' },
    // TRY per `Unit` units: 27.3814 per 100 JPY, 0.10073 per 100 IRR.
    { pair: 'JPY/TRY', bid: '0.273814', ask: '0.275626' },
    { pair: 'RUB/TRY', bid: '0.52311', ask: '0.52994' },
    { pair: 'IRR/TRY', bid: '0.0010073', ask: '0.0010209' },
  ],
  missing: { options: { pairs: [...pairs, 'UAH/TRY'] }, pair: 'UAH/TRY' },
  zero: {
    body: fixtureWith('cbrt/today.xml', '<ForexBuying>42.3210</ForexBuying>', '<ForexBuying>0.0000</ForexBuying>'),
    pair: 'USD/TRY',
  },
  envelope: {
    response: { status: 503, body: 'Service Unavailable' },
    says: /HTTP 503 Service Unavailable: "Service Unavailable"/,
  },
});

/** Run the cbrt source at a given time. */
async function runAt(url: string, now: string, options: Record<string, unknown> = {}): Promise<SourceResult> {
  const context = { ...contextFor('cbrt', { RATEFILE_CBRT_URL: url }), now: () => new Date(now) };
  const result = await cbrtSource.fetchQuotes(cbrtSource.options.parse({ type: 'cbrt', ...options }), context);
  return Array.isArray(result) ? { quotes: result, problems: [] } : result;
}

describe('cbrt: its own traps', () => {
  let replay: ReplayServer;
  const text = () => fixture('cbrt/today.xml').toString('utf8');
  const serve = (body: string) => replay.setRoutes([{ path, responses: [{ fixture: 'cbrt/any.xml', body }] }]);
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  it('takes every currency with forex rates when no pairs are given; XDR has no selling rate', async () => {
    serve(text());
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z');
    expect(result.quotes).toHaveLength(21);
    expect(result.problems).toEqual([
      `XDR/TRY (XDR) in GET ${path}: ForexSelling is empty: TCMB sets no forex rate for it`,
    ]);
  });

  it('rates: banknote takes the banknote rates, and names a currency TCMB sets none for', async () => {
    serve(text());
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z', {
      rates: 'banknote',
      pairs: ['USD/TRY', 'JPY/TRY', 'RUB/TRY'],
    });
    expect(result.quotes.map(({ pair, bid, ask }) => `${pair} ${bid} ${ask}`)).toEqual([
      'USD/TRY 42.2914 42.4609',
      'JPY/TRY 0.272596 0.277384',
    ]);
    expect(result.problems).toEqual([
      `RUB/TRY (RUB) in GET ${path}: BanknoteBuying is empty: TCMB sets no banknote rate for it`,
    ]);
  });

  it('drops a buying rate above the selling rate, a bad Unit and a decimal comma it cannot read', async () => {
    serve(
      text()
        .replace('<ForexBuying>42.3210</ForexBuying>', '<ForexBuying>42.5000</ForexBuying>')
        .replace('<Unit>100</Unit>\n\t\t\t<Isim>JAPON YENİ', '<Unit>yüz</Unit>\n\t\t\t<Isim>JAPON YENİ')
        .replace('<ForexBuying>49.4412</ForexBuying>', '<ForexBuying>49,4412</ForexBuying>')
        .replace('<ForexSelling>0.52994</ForexSelling>', '<ForexSelling>0.529.94</ForexSelling>'),
    );
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z', {
      pairs: ['USD/TRY', 'EUR/TRY', 'JPY/TRY', 'RUB/TRY'],
    });
    expect(result.quotes.map(({ pair, bid }) => `${pair} ${bid}`)).toEqual(['EUR/TRY 49.4412']);
    expect(result.problems).toEqual([
      `USD/TRY (USD) in GET ${path}: ForexBuying 42.5 is above ForexSelling 42.3973`,
      `JPY/TRY (JPY) in GET ${path}: Unit "yüz" is not a positive whole number`,
      `RUB/TRY (RUB) in GET ${path}: ForexSelling "0.529.94" is not a decimal`,
    ]);
  });

  it("dates Friday's bulletin by the end of Friday in Istanbul (UTC+3): 2 days 15 hours old at 15:00 on Monday", async () => {
    serve(text());
    const saturday = await runAt(replay.url, '2026-11-21T12:00:00Z', { pairs: ['USD/TRY'] });
    expect(saturday.quotes[0]?.time.toISOString()).toBe('2026-11-20T21:00:00.000Z');
    const friday = await runAt(replay.url, '2026-11-20T13:00:00Z', { pairs: ['USD/TRY'] });
    expect(friday.quotes[0]?.time.toISOString()).toBe('2026-11-20T13:00:00.000Z');
  });

  it('refuses a bulletin that is not a current one, a bad date, and a document that is not a bulletin', async () => {
    serve(text());
    const stale = await sourceError(runAt(replay.url, '2026-12-20T12:00:00Z'), 'cbrt', path);
    expect(stale.message).toBe(`cbrt: GET ${path}: the rates of 20.11.2026 are not current ones`);
    serve(text().replace('Tarih="20.11.2026"', 'Tarih="11/20/2026"'));
    const date = await sourceError(runAt(replay.url, '2026-11-21T12:00:00Z'), 'cbrt', path);
    expect(date.message).toBe(`cbrt: GET ${path}: Tarih "11/20/2026" is not a date like 21.11.2026`);
    serve('<?xml version="1.0" encoding="UTF-8"?><hata>Sayfa bulunamadı</hata>');
    const other = await sourceError(runAt(replay.url, '2026-11-21T12:00:00Z'), 'cbrt', path);
    expect(other.message).toBe(`cbrt: GET ${path}: expected a <Tarih_Date> document`);
    serve('<?xml version="1.0" encoding="UTF-8"?><Tarih_Date Tarih="20.11.2026"></Tarih_Date>');
    const empty = await sourceError(runAt(replay.url, '2026-11-21T12:00:00Z'), 'cbrt', path);
    expect(empty.message).toBe(`cbrt: GET ${path}: no rates in the answer`);
  });

  it('takes only pairs against TRY, and forex or banknote rates, at load', () => {
    const parsed = cbrtSource.options.safeParse({ type: 'cbrt', pairs: ['TRY/USD'], rates: 'cash' });
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      'expected a pair against TRY like "USD/TRY", got "TRY/USD"',
      expect.stringContaining('"forex"'),
    ]);
  });
});
