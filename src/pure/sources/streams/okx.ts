// OKX's v5 public stream of the best bid/ask tick by tick, channel `bbo-tbt` on wss://ws.okx.com:8443/ws/v5/public
// (www.okx.com/docs-v5/en/#overview-websocket, #order-book-trading-market-data-ws-order-book-channel): subscribed with
// `{"op":"subscribe","args":[{"channel":"bbo-tbt","instId":"BTC-USDT"}]}`, each acknowledged `{"event":"subscribe",
// "arg":…}` or refused `{"event":"error","code":…,"msg":…}`; each tick `{"arg":{…},"data":[{"asks":[["px","sz","0",
// "n"]],"bids":[…],"ts":"…","seqId":…}]}`. The connection breaks after 30 s without data: the client sends the text
// `ping` and gets `pong`; 3 connection requests a second per address; `notice` events warn of a coming close. Pure.
import { type PairSymbol, pairSymbols } from '../values.js';
import { chunks } from './binance.js';
import {
  firstLevelPrice,
  frameJson,
  garbage,
  isRecord,
  millisecondsTime,
  type StreamFrame,
  type StreamTick,
  type StreamVenue,
} from './frame.js';

const channel = 'bbo-tbt';

function event(body: Record<string, unknown>): StreamFrame {
  if (body.event === 'subscribe') return { kind: 'alive' };
  const message = `${typeof body.msg === 'string' ? body.msg : 'refused'} (code ${String(body.code)})`;
  if (body.event === 'notice') return { kind: 'closing', message };
  if (body.event !== 'error') return { kind: 'alive' };
  // "Wrong URL or channel:bbo-tbt,instId:FOO-USDT doesn't exist…": the instrument is named in the message.
  const symbols = [...message.matchAll(/instId:([A-Z0-9]+-[A-Z0-9]+)/g)].map((match) => match[1] ?? '');
  return { kind: 'refused', message, symbols, ...(body.id === undefined ? {} : { request: String(body.id) }) };
}

function parse(text: string): StreamFrame {
  if (text === 'pong') return { kind: 'alive' };
  const read = frameJson(text);
  if ('problem' in read) return garbage(read.problem);
  const body = read.value;
  if (!isRecord(body)) return garbage('expected an object');
  if (typeof body.event === 'string') return event(body);
  const arg = body.arg;
  if (!isRecord(arg) || arg.channel !== channel || typeof arg.instId !== 'string')
    return garbage(`expected a ${channel} push naming its instId`);
  if (!Array.isArray(body.data) || body.data.length === 0) return garbage('expected data, a list');
  const symbol = arg.instId;
  const ticks = body.data.map((entry): StreamTick => {
    const tick = isRecord(entry) ? entry : {};
    const time = millisecondsTime(tick.ts);
    return { symbol, bid: firstLevelPrice(tick.bids), ask: firstLevelPrice(tick.asks), ...(time ? { time } : {}) };
  });
  return { kind: 'ticks', ticks };
}

export const okxStream: StreamVenue = {
  type: 'okx',
  url: 'wss://ws.okx.com:8443/ws/v5/public',
  perConnection: 500,
  symbols: (pairs): PairSymbol[] => pairSymbols(pairs, (base, quote) => `${base}-${quote}`),
  address: (base) => base,
  // 100 channels a request keeps a request far below the 64 KB of arguments OKX accepts.
  subscribe: (symbols, firstId) =>
    chunks(symbols, 100).map((part, index) => {
      const id = String(firstId + index);
      return {
        id,
        symbols: part,
        text: JSON.stringify({ id, op: 'subscribe', args: part.map((instId) => ({ channel, instId })) }),
      };
    }),
  sendGapMs: 100,
  ping: () => ({ text: 'ping' }),
  keepaliveMs: 25_000,
  lifetimeMs: 23 * 3_600_000,
  connects: { attempts: 30, windowMs: 60_000 },
  parse,
};
