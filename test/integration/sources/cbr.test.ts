import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cbrSource, moscowDate } from '../../../src/io/sources/cbr.js';
import type { SourceResult } from '../../../src/model/source.js';
import { decodeXml } from '../../../src/io/sources/xml.js';
import { encodeCp1251 } from '../../support/cp1251.js';
import { fixture, fixtureWith, startReplay, type ReplayServer } from '../../support/replay.js';
import { contextFor, runSource, sourceError, testSource } from './contract.js';

const path = '/scripts/XML_daily.asp';
const pairs = ['USD/RUB', 'EUR/RUB', 'CNY/RUB', 'AMD/RUB', 'VND/RUB'];

testSource({
  type: 'cbr',
  options: { pairs },
  path,
  normal: { fixture: 'cbr/XML_daily.asp' },
  expected: [
    { pair: 'USD/RUB', bid: '81.5032', ask: '81.5032' },
    { pair: 'EUR/RUB', bid: '87.2491', ask: '87.2491' },
    { pair: 'CNY/RUB', bid: '11.2874', ask: '11.2874' },
    // Value is per Nominal units: 21,5637 RUB per 100 AMD, 31,2014 RUB per 10000 VND.
    { pair: 'AMD/RUB', bid: '0.215637', ask: '0.215637' },
    { pair: 'VND/RUB', bid: '0.00312014', ask: '0.00312014' },
  ],
  missing: { options: { pairs: [...pairs, 'XAU/RUB'] }, pair: 'XAU/RUB' },
  zero: {
    body: fixtureWith(
      'cbr/XML_daily.asp',
      '<Value>81,5032</Value><VunitRate>81,5032</VunitRate>',
      '<Value>0,0000</Value><VunitRate>0</VunitRate>',
    ),
    pair: 'USD/RUB',
  },
  envelope: { response: { fixture: 'cbr/error-parameters.asp' }, says: /CBR answered "Error in parameters"/ },
});

/** Run the cbr source at a given time. */
async function runAt(url: string, now: string, options: Record<string, unknown> = {}): Promise<SourceResult> {
  const context = { ...contextFor('cbr', { RATEFILE_CBR_URL: url }), now: () => new Date(now) };
  const result = await cbrSource.fetchQuotes(cbrSource.options.parse({ type: 'cbr', ...options }), context);
  return Array.isArray(result) ? { quotes: result, problems: [] } : result;
}

describe('cbr: its own traps', () => {
  let replay: ReplayServer;
  const serve = (body: Buffer | string, extension = 'asp') =>
    replay.setRoutes([{ path, responses: [{ fixture: `cbr/any.${extension}`, body }] }]);
  beforeAll(async () => {
    replay = await startReplay([{ path, responses: [{ fixture: 'cbr/XML_daily.asp' }] }]);
  });
  afterAll(() => replay.close());

  it('the recorded response is raw windows-1251, and is decoded as such', () => {
    const bytes = fixture('cbr/XML_daily.asp');
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    expect(decodeXml(bytes, 'application/xml')).toContain('<Name>Доллар США</Name>');
    // The decoding follows the XML declaration, not the HTTP charset (or the lack of one).
    expect(decodeXml(bytes, 'text/html; charset=utf-8')).toContain('Евро');
  });

  it('asks for the rates in force today in Moscow, not the newest fixing (which may be tomorrow’s)', async () => {
    await runAt(replay.url, '2026-11-21T12:00:00Z');
    expect(replay.requests.at(-1)?.query.get('date_req')).toBe('21/11/2026');
    await runAt(replay.url, '2026-11-21T22:30:00Z');
    expect(replay.requests.at(-1)?.query.get('date_req')).toBe('22/11/2026');
    expect(moscowDate(new Date('2026-12-31T20:59:59Z'))).toBe('31/12/2026');
    expect(moscowDate(new Date('2026-12-31T21:00:00Z'))).toBe('01/01/2027');
    await runAt(replay.url, '2026-11-21T12:00:00Z', { date: 'latest' });
    expect(replay.requests.at(-1)?.query.has('date_req')).toBe(false);
  });

  it('takes every currency when no pairs are given, each per one unit', async () => {
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z');
    expect(result.problems).toEqual([]);
    expect(Object.fromEntries(result.quotes.map((quote) => [quote.pair, quote.bid]))).toEqual({
      'AUD/RUB': '52.8714',
      'AZN/RUB': '47.9431',
      'AMD/RUB': '0.215637',
      'BYN/RUB': '27.0113',
      'HUF/RUB': '0.212021',
      'USD/RUB': '81.5032',
      'EUR/RUB': '87.2491',
      'CNY/RUB': '11.2874',
      'KZT/RUB': '0.159908',
      'TRY/RUB': '1.93015',
      'UZS/RUB': '0.00671103',
      'VND/RUB': '0.00312014',
      'JPY/RUB': '0.527611',
      'GBP/RUB': '107.1129',
      'CHF/RUB': '93.8901',
    });
  });

  it('reads the older format without VunitRate (Value ÷ Nominal)', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'cbr/XML_daily_2023-09-15.asp' }] }]);
    const result = await runAt(replay.url, '2023-09-15T09:00:00Z', { pairs: ['USD/RUB', 'AMD/RUB'] });
    expect(result.quotes.map(({ pair, bid, ask }) => `${pair} ${bid} ${ask}`)).toEqual([
      'USD/RUB 96.16 96.16',
      'AMD/RUB 0.240891 0.240891',
    ]);
  });

  it('drops a currency whose VunitRate disagrees with Value ÷ Nominal, naming it in Russian as decoded', async () => {
    serve(fixtureWith('cbr/XML_daily.asp', '<VunitRate>0,215637</VunitRate>', '<VunitRate>2,15637</VunitRate>'));
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z', { pairs: ['AMD/RUB', 'USD/RUB'] });
    expect(result.problems).toEqual([
      `AMD/RUB (AMD, Армянских драмов) in GET ${path}: VunitRate 2.15637 disagrees with Value ÷ Nominal (21.5637 ÷ 100 = 0.215637)`,
    ]);
  });

  it.each([
    ['<Value>81,5032</Value>', '<Value>81.503,2</Value>', 'Value "81.503,2" is not a decimal'],
    ['<Value>81,5032</Value>', '<Value></Value>', 'Value "" is not a decimal'],
    [
      '<Nominal>1</Nominal><Name>Доллар США',
      '<Nominal>0</Nominal><Name>Доллар США',
      'Nominal "0" is not a positive whole number',
    ],
  ])('drops %s written as %s', async (from, to, problem) => {
    const text = decodeXml(fixture('cbr/XML_daily.asp'), '').replace(from, to);
    serve(encodeCp1251(text));
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z', { pairs: ['USD/RUB', 'EUR/RUB'] });
    expect(result.problems).toEqual([`USD/RUB (USD, Доллар США) in GET ${path}: ${problem}`]);
  });

  it('dates a fixing by the end of its own day in Moscow, a fixing for today or set in advance by the fetch', async () => {
    const timeAt = async (date: string, now: string, options: Record<string, unknown> = {}) => {
      serve(fixtureWith('cbr/XML_daily.asp', 'Date="21.11.2026"', `Date="${date}"`));
      return (await runAt(replay.url, now, { pairs: ['USD/RUB'], ...options })).quotes[0]?.time.toISOString();
    };
    // Saturday's fixing (set on Friday, in force until Tuesday's) read on Monday: midnight after Saturday, UTC+3.
    expect(await timeAt('21.11.2026', '2026-11-23T09:00:00Z')).toBe('2026-11-21T21:00:00.000Z');
    // Today's fixing is as new as the fetch.
    expect(await timeAt('21.11.2026', '2026-11-21T12:00:00Z')).toBe('2026-11-21T12:00:00.000Z');
    // date: latest in the evening gives tomorrow's fixing: as new as the fetch, not from the future.
    expect(await timeAt('22.11.2026', '2026-11-21T16:00:00Z', { date: 'latest' })).toBe('2026-11-21T16:00:00.000Z');
  });

  it('drops a Value with more digits than any price has, naming the pair', async () => {
    const text = decodeXml(fixture('cbr/XML_daily.asp'), '').replace(
      '<Value>81,5032</Value>',
      `<Value>81,${'5'.repeat(50)}</Value>`,
    );
    serve(encodeCp1251(text));
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z', { pairs: ['USD/RUB', 'EUR/RUB'] });
    expect(result.quotes.map((quote) => quote.pair)).toEqual(['EUR/RUB']);
    expect(result.problems).toEqual([
      `USD/RUB (USD, Доллар США) in GET ${path}: Value "81,5555555555555555555555555555555555555…" has 52 digits, more than 40`,
    ]);
  });

  it('reads a mirror that re-encoded the document to UTF-8', async () => {
    const text = decodeXml(fixture('cbr/XML_daily.asp'), '').replace('encoding="windows-1251"', 'encoding="utf-8"');
    serve(Buffer.from(text, 'utf8'), 'xml');
    const result = await runAt(replay.url, '2026-11-21T12:00:00Z', { pairs: ['USD/RUB'] });
    expect(result.quotes).toEqual([expect.objectContaining({ pair: 'USD/RUB', bid: '81.5032' })]);
  });

  it('refuses a fixing that is not a current one', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'cbr/XML_daily.asp' }] }]);
    const error = await sourceError(runAt(replay.url, '2026-12-20T12:00:00Z'), 'cbr', path);
    expect(error.message).toContain('the fixing of 21.11.2026 is not a current one');
  });

  it('refuses XML with a DTD: an external entity never reaches the file system (no XXE)', async () => {
    const xxe =
      '<?xml version="1.0" encoding="windows-1251"?><!DOCTYPE ValCurs [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>' +
      '<ValCurs Date="21.11.2026" name="Foreign Currency Market"><Valute ID="R01235"><NumCode>840</NumCode><CharCode>USD</CharCode>' +
      '<Nominal>1</Nominal><Name>&xxe;</Name><Value>81,5032</Value></Valute></ValCurs>';
    serve(encodeCp1251(xxe));
    const error = await sourceError(runAt(replay.url, '2026-11-21T12:00:00Z'), 'cbr', path);
    expect(error.message).toContain('a DTD (<!DOCTYPE …>) is not accepted');
    expect(error.message).not.toContain('root:');
  });

  it('refuses an entity-expansion bomb at once', async () => {
    const lol = [
      '<!ENTITY a "lollollollollollollollollollol">',
      ...Array.from(
        { length: 9 },
        (_, i) => `<!ENTITY ${String.fromCharCode(98 + i)} "${`&${String.fromCharCode(97 + i)};`.repeat(10)}">`,
      ),
    ].join('');
    serve(
      encodeCp1251(
        `<?xml version="1.0"?><!DOCTYPE ValCurs [${lol}]><ValCurs Date="21.11.2026"><Valute><Name>&j;</Name></Valute></ValCurs>`,
      ),
    );
    const started = performance.now();
    const error = await sourceError(runAt(replay.url, '2026-11-21T12:00:00Z'), 'cbr', path);
    expect(error.message).toContain('DTD');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses a body that is not XML at all', async () => {
    serve('Service temporarily unavailable', 'txt');
    const error = await sourceError(runAt(replay.url, '2026-11-21T12:00:00Z'), 'cbr', path);
    expect(error.message).toBe(`cbr: GET ${path}: not XML: "Service temporarily unavailable"`);
  });

  it('takes only pairs against RUB, at load', () => {
    const parsed = cbrSource.options.safeParse({ type: 'cbr', pairs: ['USD/RUB', 'RUB/USD'] });
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      'expected a pair against RUB like "USD/RUB", got "RUB/USD"',
    ]);
  });

  it('reaches CBR through RATEFILE_CBR_URL', async () => {
    replay.setRoutes([{ path, responses: [{ fixture: 'cbr/XML_daily.asp' }] }]);
    const result = await runSource('cbr', { pairs: ['USD/RUB'] }, replay.url);
    expect(result.quotes).toHaveLength(1);
  });
});
