// Bybit's v5 spot stream of the order book's first level, `orderbook.1.<SYMBOL>` on wss://stream.bybit.com/v5/public/spot
// (bybit-exchange.github.io/docs/v5/websocket/public/orderbook, /docs/v5/ws/connect, /docs/v5/rate-limit): level 1 is
// pushed as snapshots only, again every 3 s without a change; each `{"topic":…,"ts":…,"type":"snapshot","data":{"s":
// "BTCUSDT","b":[["price","size"]],"a":[[…]],"u":…,"seq":…},"cts":…}`. Subscriptions take at most 10 topics a request
// for spot, answered `{"success":…,"ret_msg":…,"req_id":…,"op":"subscribe"}`; the client pings `{"op":"ping"}` every
// 20 s; at most 500 connections per 5 minutes. Pure.
import { type PairSymbol, pairSymbols } from '../values.js';
import { chunks } from './binance.js';
import {
  firstLevelPrice,
  frameJson,
  garbage,
  isRecord,
  millisecondsTime,
  type StreamFrame,
  type StreamVenue,
} from './frame.js';

const topicPrefix = 'orderbook.1.';

function parse(text: string): StreamFrame {
  const read = frameJson(text);
  if ('problem' in read) return garbage(read.problem);
  const body = read.value;
  if (!isRecord(body)) return garbage('expected an object');
  if (typeof body.op === 'string') {
    if (body.success === true || body.success === 'true') return { kind: 'alive' };
    const message = typeof body.ret_msg === 'string' && body.ret_msg !== '' ? body.ret_msg : 'refused';
    const symbols = [...message.matchAll(/orderbook\.1\.([A-Z0-9]+)/g)].map((match) => match[1] ?? '');
    return { kind: 'refused', message, symbols, request: String(body.req_id) };
  }
  if (typeof body.topic !== 'string' || !body.topic.startsWith(topicPrefix))
    return garbage('expected an orderbook.1 topic');
  const data = body.data;
  if (!isRecord(data) || typeof data.s !== 'string') return garbage('expected data with a symbol (s)');
  const time = millisecondsTime(body.ts);
  return {
    kind: 'ticks',
    ticks: [{ symbol: data.s, bid: firstLevelPrice(data.b), ask: firstLevelPrice(data.a), ...(time ? { time } : {}) }],
  };
}

export const bybitStream: StreamVenue = {
  type: 'bybit',
  url: 'wss://stream.bybit.com/v5/public/spot',
  perConnection: 500,
  symbols: (pairs): PairSymbol[] => pairSymbols(pairs, (base, quote) => `${base}${quote}`),
  address: (base) => base,
  subscribe: (symbols, firstId) =>
    chunks(symbols, 10).map((part, index) => {
      const id = String(firstId + index);
      return {
        id,
        symbols: part,
        text: JSON.stringify({ op: 'subscribe', args: part.map((symbol) => `${topicPrefix}${symbol}`), req_id: id }),
      };
    }),
  sendGapMs: 100,
  ping: (id) => ({ text: JSON.stringify({ op: 'ping', req_id: `ping-${id}` }) }),
  keepaliveMs: 20_000,
  lifetimeMs: 23 * 3_600_000,
  connects: { attempts: 50, windowMs: 5 * 60_000 },
  parse,
};
