// Kraken's v2 stream of level 1, channel `ticker` with `event_trigger: "bbo"` on wss://ws.kraken.com/v2
// (docs.kraken.com/api/docs/websocket-v2/ticker, /heartbeat, /ping): a ticker on every change of the best bid/offer,
// `{"channel":"ticker","type":"snapshot"|"update","data":[{"symbol":"BTC/USD","bid":…,"ask":…,…,"timestamp":"…Z"}]}`
// with prices as JSON numbers (read as their literal text); a subscription is answered per symbol, `success` false
// with `error` when the pair is unknown; heartbeats every second without other updates; the client may ping
// `{"method":"ping"}`. v2 names assets as written (BTC/USD, not XBT/USD). Pure.
import { type PairSymbol, pairSymbols } from '../values.js';
import { chunks } from './binance.js';
import { frameJson, garbage, isoTime, isRecord, type StreamFrame, type StreamTick, type StreamVenue } from './frame.js';

function answer(body: Record<string, unknown>): StreamFrame {
  if (body.success !== false) return { kind: 'alive' };
  const message = typeof body.error === 'string' ? body.error : 'refused';
  const result = isRecord(body.result) ? body.result : {};
  const symbol = typeof body.symbol === 'string' ? body.symbol : result.symbol;
  return {
    kind: 'refused',
    message,
    symbols: typeof symbol === 'string' ? [symbol] : [],
    ...(body.req_id === undefined ? {} : { request: String(body.req_id) }),
  };
}

function parse(text: string): StreamFrame {
  const read = frameJson(text);
  if ('problem' in read) return garbage(read.problem);
  const body = read.value;
  if (!isRecord(body)) return garbage('expected an object');
  if (typeof body.method === 'string') return answer(body);
  if (body.channel === 'heartbeat' || body.channel === 'status') return { kind: 'alive' };
  if (body.channel !== 'ticker') return garbage('expected a ticker, a heartbeat or an answer');
  if (!Array.isArray(body.data) || body.data.length === 0) return garbage('expected data, a list');
  const ticks: StreamTick[] = [];
  for (const entry of body.data) {
    if (!isRecord(entry) || typeof entry.symbol !== 'string') return garbage('expected tickers with a symbol');
    const time = isoTime(entry.timestamp);
    ticks.push({ symbol: entry.symbol, bid: entry.bid, ask: entry.ask, ...(time ? { time } : {}) });
  }
  return { kind: 'ticks', ticks };
}

export const krakenStream: StreamVenue = {
  type: 'kraken',
  url: 'wss://ws.kraken.com/v2',
  perConnection: 500,
  // The pair as configured, whatever REST name a mapping gives it: v2 knows BTC/USD, not XBTUSD.
  symbols: (pairs): PairSymbol[] =>
    pairSymbols(pairs, () => '').map((pair) => ({ ...pair, symbol: `${pair.base}/${pair.quote}` })),
  address: (base) => base,
  subscribe: (symbols, firstId) =>
    chunks(symbols, 50).map((part, index) => {
      const id = String(firstId + index);
      return {
        id,
        symbols: part,
        text: JSON.stringify({
          method: 'subscribe',
          params: { channel: 'ticker', symbol: part, event_trigger: 'bbo', snapshot: true },
          req_id: Number(id),
        }),
      };
    }),
  sendGapMs: 200,
  ping: (id) => ({ text: JSON.stringify({ method: 'ping', req_id: id }) }),
  lifetimeMs: 23 * 3_600_000,
  connects: { attempts: 20, windowMs: 60_000 },
  parse,
};
