// Each venue's frames as recorded (test/fixtures/streams/<venue>/) read into ticks, signs of life, refusals, close
// notices or garbage; its subscription requests for exactly the pairs given, in pieces the venue accepts.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { binanceStream } from '../../../../../src/pure/sources/streams/binance.js';
import { bybitStream } from '../../../../../src/pure/sources/streams/bybit.js';
import { type StreamVenue, tickQuotes } from '../../../../../src/pure/sources/streams/frame.js';
import { krakenStream } from '../../../../../src/pure/sources/streams/kraken.js';
import { okxStream } from '../../../../../src/pure/sources/streams/okx.js';

const dir = fileURLToPath(new URL('../../../../fixtures/streams/', import.meta.url));
const at = new Date('2026-11-21T12:00:00Z');
const lines = (venue: string, file: string) =>
  readFileSync(`${dir}${venue}/${file}`, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) =>
      line.replaceAll('{{id}}', '7').replaceAll('{{ms}}', String(at.getTime())).replaceAll('{{iso}}', at.toISOString()),
    );

const venues: [string, StreamVenue, string[]][] = [
  ['binance', binanceStream, ['BTC/USDT', 'ETH/USDT']],
  ['bybit', bybitStream, ['BTC/USDT', 'ETH/USDT']],
  ['okx', okxStream, ['BTC/USDT', 'ETH/USDT']],
  ['kraken', krakenStream, ['BTC/USD', 'ETH/USD']],
];

describe.each(venues)('%s stream frames', (_name, venue, pairs) => {
  const symbols = venue.symbols(pairs);
  const bySymbol = new Map(symbols.map((pair) => [pair.symbol, pair]));

  it('reads the recorded ticks into checked quotes of the configured pairs, prices as sent', () => {
    const quotes = lines(venue.type, 'ticks.jsonl').flatMap((line) => {
      const frame = venue.parse(line);
      if (frame.kind !== 'ticks') return [];
      const read = tickQuotes(frame.ticks, bySymbol, 'the stream', new Date(at.getTime() + 1_000));
      expect(read.problems).toEqual([]);
      return read.quotes.map(({ quote }) => quote);
    });
    expect(quotes.map((quote) => quote.pair)).toEqual([pairs[0], pairs[1], pairs[0]]);
    expect(quotes[0]!.bid).toMatch(/^97020\.10*$/);
    // A venue's event time is the quote's (Binance sends none: the time it arrived).
    const time = venue.type === 'binance' ? at.getTime() + 1_000 : at.getTime();
    expect(quotes[0]!.time.getTime()).toBe(time);
  });

  it('takes acknowledgements and heartbeats as signs of life', () => {
    for (const line of lines(venue.type, 'ack.jsonl')) expect(venue.parse(line)).toEqual({ kind: 'alive' });
  });

  it('reads a refusal, naming the symbol or the request', () => {
    const refusals = lines(venue.type, 'refused.jsonl')
      .map((line) => venue.parse(line))
      .filter((frame) => frame.kind === 'refused');
    expect(refusals).toHaveLength(1);
    const [refusal] = refusals;
    if (refusal?.kind !== 'refused') throw new Error('no refusal');
    expect(refusal.message).not.toBe('');
    if (venue.type === 'binance') expect(refusal.request).toBe('7');
    else expect(refusal.symbols.map((symbol) => bySymbol.get(symbol)?.pair)).toEqual([pairs[1]]);
  });

  it('calls anything else garbage, never a tick', () => {
    for (const text of ['', '{"unterminated', '[1,2]', '"text"', 'null', '{"a":1}'])
      expect(venue.parse(text).kind).toBe('garbage');
  });

  it('subscribes to exactly the given symbols, in requests the venue accepts', () => {
    const many = Array.from({ length: 250 }, (_, i) => `S${i}`);
    const requests = venue.subscribe(many, 1);
    const ids = requests.map((request) => request.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(requests.flatMap((request) => request.symbols)).toEqual(many);
    const most = { binance: 100, bybit: 10, okx: 100, kraken: 50 }[venue.type]!;
    for (const request of requests) {
      expect(request.symbols.length).toBeLessThanOrEqual(most);
      // Binance names its streams in lower case.
      for (const symbol of request.symbols) expect(request.text.toLowerCase()).toContain(symbol.toLowerCase());
    }
  });
});

describe('close notices', () => {
  it('Binance serverShutdown and OKX notice say the connection will close', () => {
    expect(binanceStream.parse(lines('binance', 'shutdown.jsonl')[0]!).kind).toBe('closing');
    expect(okxStream.parse(lines('okx', 'notice.jsonl')[0]!).kind).toBe('closing');
  });
});

describe('symbols', () => {
  it("are the venue's own names: Binance and Bybit BTCUSDT, OKX BTC-USDT, Kraken v2 BTC/USD whatever REST calls it", () => {
    expect(binanceStream.symbols(['BTC/USDT']).map((p) => p.symbol)).toEqual(['BTCUSDT']);
    expect(bybitStream.symbols(['BTC/USDT']).map((p) => p.symbol)).toEqual(['BTCUSDT']);
    expect(okxStream.symbols(['BTC/USDT']).map((p) => p.symbol)).toEqual(['BTC-USDT']);
    expect(krakenStream.symbols({ 'BTC/USD': 'XXBTZUSD' }).map((p) => p.symbol)).toEqual(['BTC/USD']);
  });
});

describe('tickQuotes', () => {
  it('refuses a tick whose bid is above its ask, one for no subscribed symbol, and keeps the others', () => {
    const [btc] = binanceStream.symbols(['BTC/USDT']);
    const read = tickQuotes(
      [
        { symbol: 'BTCUSDT', bid: '2', ask: '1' },
        { symbol: 'XRPUSDT', bid: '1', ask: '2' },
        { symbol: 'BTCUSDT', bid: '1', ask: '2', time: new Date(at.getTime() + 60_000) },
      ],
      new Map([['BTCUSDT', btc!]]),
      'the stream',
      at,
    );
    expect(read.problems.map((p) => p.problem)).toEqual([
      expect.stringContaining('bid 2 is above ask 1'),
      expect.stringContaining('not subscribed'),
    ]);
    // A venue clock ahead of ours does not make a quote newer than its arrival.
    expect(read.quotes.map(({ quote }) => quote.time)).toEqual([at]);
  });
});
