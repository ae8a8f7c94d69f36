// What a venue's WebSocket stream sends, read without I/O: each frame becomes ticks (best bid/ask per symbol, prices as
// sent), a sign of life, a refused subscription, a notice that the venue will close, or garbage; and a venue's stream
// protocol as data (src/pure/sources/streams/<venue>.ts). src/io/streams/ connects and keeps the connections. Pure.
import type { RawQuote } from '../../../model/source.js';
import { isRecord, type PairSymbol, parseSourceJson, quoteFrom } from '../values.js';

/** One best bid/ask a venue pushed for one of its symbols, the prices as sent. */
export interface StreamTick {
  symbol: string;
  bid: unknown;
  ask: unknown;
  /** The venue's event time, when the frame carries one. */
  time?: Date;
}

export type StreamFrame =
  | { kind: 'ticks'; ticks: StreamTick[] }
  /** A pong, a heartbeat, a status or a subscription's acknowledgement: the connection is alive, no prices. */
  | { kind: 'alive' }
  /** The venue refused a subscription: of these symbols, or of request `request` (the caller knows its symbols). */
  | { kind: 'refused'; message: string; symbols: readonly string[]; request?: string }
  /** The venue says it will close this connection soon (a shutdown or upgrade notice): replace it now. */
  | { kind: 'closing'; message: string }
  | { kind: 'garbage'; problem: string };

/** What the client sends as its heartbeat: a WebSocket ping frame, or a text message. */
export type StreamPing = { protocol: true } | { text: string };

/** A venue's stream protocol: where to connect, how to subscribe and keep alive, its limits, how to read a frame. */
export interface StreamVenue {
  /** The source type whose stream mode this is. */
  readonly type: string;
  /** The venue's public endpoint. */
  readonly url: string;
  /** Most symbols one connection subscribes to (the venue's limit); more pairs open more connections. */
  readonly perConnection: number;
  /** The venue's stream symbols of the configured pairs (as the frames name them). */
  symbols(pairs: readonly string[] | Readonly<Record<string, string>>): PairSymbol[];
  /** The address one connection opens for these symbols. */
  address(base: string, symbols: readonly string[]): string;
  /** The subscription requests to send once connected, in order, each with its request id. */
  subscribe(symbols: readonly string[], firstId: number): { id: string; text: string; symbols: readonly string[] }[];
  /** Least time between two requests sent on one connection (the venue's message rate). */
  readonly sendGapMs: number;
  ping(id: number): StreamPing;
  /** A heartbeat is sent at least this often even while frames flow (the venue's own rule); absent: only when quiet. */
  readonly keepaliveMs?: number;
  /** A connection is replaced after this long (make before break): the venue's forced disconnect comes later. */
  readonly lifetimeMs: number;
  /** The venue's limit on new connections per address: at most `attempts` per `windowMs`, kept well inside. */
  readonly connects: { attempts: number; windowMs: number };
  parse(text: string): StreamFrame;
}

/** A venue's JSON frame read exactly and within the sources' bounds, or why it cannot be. */
export function frameJson(text: string): { value: unknown } | { problem: string } {
  try {
    return { value: parseSourceJson(text) };
  } catch (error) {
    return { problem: `not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export const garbage = (problem: string): StreamFrame => ({ kind: 'garbage', problem });

/** A venue's millisecond time (text, as parseSourceJson reads numbers), when plausible. */
export function millisecondsTime(value: unknown): Date | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{13}$/.test(text)) return undefined;
  return new Date(Number(text));
}

/** An RFC 3339 time (Kraken's `2023-09-25T09:04:31.742648Z`), when it reads as one. */
export function isoTime(value: unknown): Date | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/** The first level of a side given as [[price, size, …], …] (Bybit, OKX), or undefined. */
export const firstLevelPrice = (side: unknown): unknown =>
  Array.isArray(side) && Array.isArray(side[0]) ? side[0][0] : undefined;

export { isRecord };

/**
 * The quotes of a frame's ticks for the configured pairs (by stream symbol), each checked like a REST answer's
 * (positive decimals, bid not above ask), timed by the venue's event time, never later than `receivedAt` (a venue's
 * clock ahead of ours must not make a quote newer than it is); one problem line per unusable tick.
 */
export function tickQuotes(
  ticks: readonly StreamTick[],
  bySymbol: ReadonlyMap<string, PairSymbol>,
  where: string,
  receivedAt: Date,
): { quotes: { pair: PairSymbol; quote: RawQuote }[]; problems: { pair?: PairSymbol; problem: string }[] } {
  const quotes: { pair: PairSymbol; quote: RawQuote }[] = [];
  const problems: { pair?: PairSymbol; problem: string }[] = [];
  for (const tick of ticks) {
    const pair = bySymbol.get(tick.symbol);
    if (!pair) {
      problems.push({ problem: `${where}: a tick for ${JSON.stringify(tick.symbol)}, which was not subscribed` });
      continue;
    }
    const time = tick.time && tick.time.getTime() <= receivedAt.getTime() ? tick.time : receivedAt;
    const label = `${pair.pair} (${pair.symbol}) in ${where}`;
    const quote = quoteFrom(pair.pair, label, { bid: ['bid', tick.bid], ask: ['ask', tick.ask] }, time);
    if (typeof quote === 'string') problems.push({ pair, problem: quote });
    else quotes.push({ pair, quote });
  }
  return { quotes, problems };
}
