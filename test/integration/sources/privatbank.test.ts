import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privatbankSource } from '../../../src/io/sources/privatbank.js';
import type { SourceResult } from '../../../src/model/source.js';
import { fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { contextFor, sourceError, testNow, testSource } from './contract.js';

const path = '/p24api/pubinfo';

testSource({
  type: 'privatbank',
  options: { pairs: ['USD/UAH', 'EUR/UAH'] },
  path,
  normal: { fixture: 'privatbank/pubinfo-cash.json' },
  expected: [
    { pair: 'USD/UAH', bid: '41.85000', ask: '42.40000' },
    { pair: 'EUR/UAH', bid: '48.40000', ask: '49.30000' },
  ],
  missing: { options: { pairs: ['USD/UAH', 'EUR/UAH', 'PLN/UAH'] }, pair: 'PLN/UAH' },
  zero: { body: fixtureWith('privatbank/pubinfo-cash.json', '"buy":"41.85000"', '"buy":"0.00000"'), pair: 'USD/UAH' },
  envelope: {
    response: { status: 503, body: 'Service Unavailable' },
    says: /HTTP 503 Service Unavailable: "Service Unavailable"/,
  },
});

/** Run the privatbank source once. */
async function run(url: string, options: Record<string, unknown> = {}): Promise<SourceResult> {
  const context = contextFor('privatbank', { RATEFILE_PRIVATBANK_URL: url });
  const parsed = privatbankSource.options.parse({ type: 'privatbank', ...options });
  const result = await privatbankSource.fetchQuotes(parsed, context);
  return Array.isArray(result) ? { quotes: result, problems: [] } : result;
}

describe('privatbank: its own traps', () => {
  let replay: ReplayServer;
  const serve = (body: string) => replay.setRoutes([{ path, responses: [{ fixture: 'privatbank/any.json', body }] }]);
  beforeAll(async () => {
    replay = await startReplay([
      { path, query: { coursid: '5' }, responses: [{ fixture: 'privatbank/pubinfo-cash.json' }] },
      { path, query: { coursid: '11' }, responses: [{ fixture: 'privatbank/pubinfo-noncash.json' }] },
    ]);
  });
  afterAll(() => replay.close());

  it('asks for the cash rates by default and the non-cash ones with rates: noncash, buy as bid and sale as ask', async () => {
    const cash = await run(replay.url);
    expect(replay.requests.at(-1)?.query.get('coursid')).toBe('5');
    expect(replay.requests.at(-1)?.query.has('json')).toBe(true);
    expect(replay.requests.at(-1)?.query.has('exchange')).toBe(true);
    expect(cash.quotes.map(({ pair, bid, ask }) => `${pair} ${bid} ${ask}`)).toEqual([
      'EUR/UAH 48.40000 49.30000',
      'USD/UAH 41.85000 42.40000',
    ]);
    const noncash = await run(replay.url, { rates: 'noncash', pairs: ['USD/UAH'] });
    expect(replay.requests.at(-1)?.query.get('coursid')).toBe('11');
    expect(noncash.quotes).toEqual([{ pair: 'USD/UAH', bid: '41.93000', ask: '42.37288', time: testNow }]);
  });

  it('drops a buy above the sale, and a rate sent as a number or with a comma', async () => {
    serve(
      '[{"ccy":"EUR","base_ccy":"UAH","buy":"49.50000","sale":"49.30000"},{"ccy":"USD","base_ccy":"UAH","buy":41.85,"sale":"42.40000"},' +
        '{"ccy":"PLN","base_ccy":"UAH","buy":"11,30000","sale":"11.70000"}]',
    );
    const result = await run(replay.url);
    // A JSON number is read as its exact text, like every source's.
    expect(result.quotes.map(({ pair, bid }) => `${pair} ${bid}`)).toEqual(['USD/UAH 41.85']);
    expect(result.problems).toEqual([
      `EUR/UAH (EUR) in GET ${path}: bid 49.50000 is above ask 49.30000`,
      `PLN/UAH (PLN) in GET ${path}: buy is not a decimal: "11,30000"`,
    ]);
  });

  it('takes only rows against UAH: a BTC/USD row of older answers is no BTC/UAH', async () => {
    serve(
      '[{"ccy":"USD","base_ccy":"UAH","buy":"41.85000","sale":"42.40000"},{"ccy":"BTC","base_ccy":"USD","buy":"91234.5600","sale":"95876.1200"}]',
    );
    const all = await run(replay.url);
    expect(all.quotes.map((quote) => quote.pair)).toEqual(['USD/UAH']);
    const asked = await run(replay.url, { pairs: ['USD/UAH', 'BTC/UAH'] });
    expect(asked.problems).toEqual([`BTC/UAH (BTC) in GET ${path}: not in the response`]);
  });

  it('refuses an answer that is not a list of rates against UAH', async () => {
    serve('{"error":"Service is temporarily unavailable"}');
    const other = await sourceError(run(replay.url), 'privatbank', path);
    expect(other.message).toBe(`privatbank: GET ${path}: expected a JSON list of rates`);
    serve('[]');
    const empty = await sourceError(run(replay.url), 'privatbank', path);
    expect(empty.message).toBe(`privatbank: GET ${path}: no rates against UAH in the answer`);
  });

  it('takes only pairs against UAH, and cash or noncash rates, at load', () => {
    const parsed = privatbankSource.options.safeParse({ type: 'privatbank', pairs: ['UAH/USD'], rates: 'card' });
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      'expected a pair against UAH like "USD/UAH", got "UAH/USD"',
      expect.stringContaining('"noncash"'),
    ]);
  });
});
