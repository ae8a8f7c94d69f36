import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nbkSource } from '../../../src/io/sources/nbk.js';
import type { SourceResult } from '../../../src/model/source.js';
import { fixture, fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { contextFor, sourceError, testSource } from './contract.js';

const path = '/rss/rates_all.xml';
const pairs = ['USD/KZT', 'EUR/KZT', 'RUB/KZT', 'UZS/KZT', 'KRW/KZT', 'AMD/KZT'];

testSource({
  type: 'nbk',
  options: { pairs },
  path,
  normal: { fixture: 'nbk/rates_all.xml' },
  expected: [
    { pair: 'USD/KZT', bid: '518.42', ask: '518.42' },
    { pair: 'EUR/KZT', bid: '600.15', ask: '600.15' },
    { pair: 'RUB/KZT', bid: '6.45', ask: '6.45' },
    // KZT per `quant` units: 4.08 per 100 UZS, 37.00 per 100 KRW, 13.45 per 10 AMD.
    { pair: 'UZS/KZT', bid: '0.0408', ask: '0.0408' },
    { pair: 'KRW/KZT', bid: '0.37', ask: '0.37' },
    { pair: 'AMD/KZT', bid: '1.345', ask: '1.345' },
  ],
  missing: { options: { pairs: [...pairs, 'VND/KZT'] }, pair: 'VND/KZT' },
  zero: {
    body: fixtureWith('nbk/rates_all.xml', '<description>518.42</description>', '<description>0.00</description>'),
    pair: 'USD/KZT',
  },
  envelope: {
    response: { status: 503, body: 'Service Unavailable' },
    says: /HTTP 503 Service Unavailable: "Service Unavailable"/,
  },
});

/** Run the nbk source at a given time. */
async function runAt(url: string, now: string, options: Record<string, unknown> = {}): Promise<SourceResult> {
  const context = { ...contextFor('nbk', { RATEFILE_NBK_URL: url }), now: () => new Date(now) };
  const result = await nbkSource.fetchQuotes(nbkSource.options.parse({ type: 'nbk', ...options }), context);
  return Array.isArray(result) ? { quotes: result, problems: [] } : result;
}

describe('nbk: its own traps', () => {
  let replay: ReplayServer;
  const text = () => fixture('nbk/rates_all.xml').toString('utf8');
  const serve = (body: string) => replay.setRoutes([{ path, responses: [{ fixture: 'nbk/any.xml', body }] }]);
  beforeAll(async () => {
    replay = await startReplay([]);
  });
  afterAll(() => replay.close());

  it('takes every currency when no pairs are given, each per one unit', async () => {
    serve(text());
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z');
    expect(result.problems).toEqual([]);
    expect(Object.fromEntries(result.quotes.map((quote) => [quote.pair, quote.bid]))).toMatchObject({
      'IRR/KZT': '0.01233',
      'JPY/KZT': '3.36',
      'UAH/KZT': '12.3',
    });
    expect(result.quotes).toHaveLength(15);
  });

  it('reads a decimal comma, and drops a bad quant or rate, naming it', async () => {
    serve(
      text()
        .replace('<description>518.42</description>', '<description>518,42</description>')
        .replace(
          '<description>4.08</description>\n\t<quant>100</quant>',
          '<description>4.08</description>\n\t<quant>0</quant>',
        )
        .replace('<description>600.15</description>', '<description>600.15.1</description>')
        .replace('<description>6.45</description>', '<description></description>'),
    );
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z', {
      pairs: ['USD/KZT', 'UZS/KZT', 'EUR/KZT', 'RUB/KZT'],
    });
    expect(result.quotes.map(({ pair, bid }) => `${pair} ${bid}`)).toEqual(['USD/KZT 518.42']);
    expect(result.problems).toEqual([
      `UZS/KZT (UZS) in GET ${path}: quant "0" is not a positive whole number`,
      `EUR/KZT (EUR) in GET ${path}: description "600.15.1" is not a decimal`,
      `RUB/KZT (RUB) in GET ${path}: description is missing`,
    ]);
  });

  it('dates the rates by the end of their day in Kazakhstan (UTC+5), and by the fetch on that day', async () => {
    serve(text());
    const on = await runAt(replay.url, '2026-11-21T12:00:00Z', { pairs: ['USD/KZT'] });
    expect(on.quotes[0]?.time.toISOString()).toBe('2026-11-21T12:00:00.000Z');
    const after = await runAt(replay.url, '2026-11-23T04:00:00Z', { pairs: ['USD/KZT'] });
    expect(after.quotes[0]?.time.toISOString()).toBe('2026-11-21T19:00:00.000Z');
  });

  it('refuses rates that are not current ones, and drops an item dated otherwise than the feed', async () => {
    serve(text());
    const stale = await sourceError(runAt(replay.url, '2026-12-20T12:00:00Z'), 'nbk', path);
    expect(stale.message).toBe(`nbk: GET ${path}: the rates of 21.11.2026 are not current ones`);
    serve(
      text().replace(
        '<title>EUR</title>\n\t<pubDate>21.11.2026</pubDate>',
        '<title>EUR</title>\n\t<pubDate>14.11.2026</pubDate>',
      ),
    );
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z', { pairs: ['USD/KZT', 'EUR/KZT'] });
    expect(result.problems).toEqual([
      `EUR/KZT (EUR) in GET ${path}: pubDate "14.11.2026" is not the answer's "21.11.2026"`,
    ]);
  });

  it('refuses a document that is not the rates feed, and a feed without items', async () => {
    serve('<?xml version="1.0"?><html><body>Сайт на обслуживании</body></html>');
    const other = await sourceError(runAt(replay.url, '2026-11-21T12:00:00Z'), 'nbk', path);
    expect(other.message).toBe(`nbk: GET ${path}: expected an RSS document (<rss><channel>)`);
    serve('<?xml version="1.0"?><rss version="2.0"><channel><title>Курсы</title></channel></rss>');
    const empty = await sourceError(runAt(replay.url, '2026-11-21T12:00:00Z'), 'nbk', path);
    expect(empty.message).toBe(`nbk: GET ${path}: no rates in the answer`);
  });

  it('takes only pairs against KZT, at load', () => {
    const parsed = nbkSource.options.safeParse({ type: 'nbk', pairs: ['KZT/USD'] });
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      'expected a pair against KZT like "USD/KZT", got "KZT/USD"',
    ]);
  });
});
