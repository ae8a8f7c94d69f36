// Binance's spot stream of best bid/ask, `<symbol>@bookTicker` on the combined-stream endpoint (github.com/binance/
// binance-spot-api-docs, web-socket-streams.md): subscribed with SUBSCRIBE requests, answered `{"result":null,"id":…}`;
// each tick `{"stream":"btcusdt@bookTicker","data":{"u":…,"s":"BTCUSDT","b":"…","B":"…","a":"…","A":"…"}}`, without an
// event time (the time it arrives is the quote's). The server pings every 20 s (ws answers the pong); a connection
// lasts at most 24 h; 5 incoming messages a second, 1,024 streams a connection, 300 connections per 5 minutes. Pure.
import { type PairSymbol, pairSymbols } from '../values.js';
import { frameJson, garbage, isRecord, type StreamFrame, type StreamVenue } from './frame.js';

const streamOf = (symbol: string) => `${symbol.toLowerCase()}@bookTicker`;

function parse(text: string): StreamFrame {
  const read = frameJson(text);
  if ('problem' in read) return garbage(read.problem);
  const body = read.value;
  if (!isRecord(body)) return garbage('expected an object');
  // `{"result":null,"id":1}`; an error as `{"error":{"code":2,"msg":"…"},"id":1}` or `{"code":2,"msg":"…"}`.
  if ('id' in body && 'result' in body && !('error' in body)) return { kind: 'alive' };
  const error = isRecord(body.error) ? body.error : 'code' in body && typeof body.msg === 'string' ? body : undefined;
  if (error) {
    const message = `${typeof error.msg === 'string' ? error.msg : 'refused'} (code ${String(error.code)})`;
    return { kind: 'refused', message, symbols: [], ...('id' in body ? { request: String(body.id) } : {}) };
  }
  const data = isRecord(body.data) ? body.data : body;
  if (data.e === 'serverShutdown') return { kind: 'closing', message: 'the server is shutting down (serverShutdown)' };
  if (typeof data.s !== 'string') return garbage('expected a book ticker with a symbol (s)');
  return { kind: 'ticks', ticks: [{ symbol: data.s.toUpperCase(), bid: data.b, ask: data.a }] };
}

export const binanceStream: StreamVenue = {
  type: 'binance',
  url: 'wss://stream.binance.com:9443',
  perConnection: 1024,
  symbols: (pairs): PairSymbol[] =>
    pairSymbols(pairs, (base, quote) => `${base}${quote}`).map((pair) => ({
      ...pair,
      symbol: pair.symbol.toUpperCase(),
    })),
  address: (base) => `${base.replace(/\/+$/, '')}/stream`,
  // 100 streams a request and 4 requests a second: inside the 5 messages a second a connection may send.
  subscribe: (symbols, firstId) =>
    chunks(symbols, 100).map((part, index) => {
      const id = String(firstId + index);
      return {
        id,
        symbols: part,
        text: JSON.stringify({ method: 'SUBSCRIBE', params: part.map(streamOf), id: Number(id) }),
      };
    }),
  sendGapMs: 250,
  ping: () => ({ protocol: true }),
  lifetimeMs: 23 * 3_600_000,
  connects: { attempts: 30, windowMs: 5 * 60_000 },
  parse,
};

/** `list` in pieces of at most `size`. */
export function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
