// One WebSocket connection to a venue's stream (the `ws` client): it subscribes to its symbols, keeps the venue's
// heartbeat, and ends, once, with a reason when the venue closes it, an error or an oversized frame breaks it, or it
// goes silent. Whoever opened it (src/io/streams/feed.ts) reads its frames and opens the next one.
import WebSocket from 'ws';
import type { StreamFrame, StreamVenue } from '../../pure/sources/streams/frame.js';

export interface ConnectionSettings {
  venue: StreamVenue;
  /** The address to open (the venue's, or a mirror's). */
  url: string;
  symbols: readonly string[];
  /** No frame, ping or pong for this long: the connection is dropped. A heartbeat goes out after half of it. */
  silenceMs: number;
  /** The largest frame read; a larger one ends the connection (ws's maxPayload). */
  maxFrameBytes: number;
  /** Numbers the subscription requests: unique across the feed's connections, so an answer names its request. */
  firstRequestId: number;
}

export interface ConnectionEvents {
  /** A frame as read, with the requests' symbols by id (for a refusal naming a request). */
  frame(frame: StreamFrame, requests: ReadonlyMap<string, readonly string[]>): void;
  /** Every subscription request is sent and the venue answered something. */
  up(): void;
  /** The connection ended; said once. */
  down(reason: string): void;
}

/** A venue's close code and reason as words: `code 1009 (message too big)`. */
const closeText = (code: number, reason: Buffer) => {
  const said = reason.toString('utf8').slice(0, 120);
  return `code ${code}${said === '' ? '' : ` (${JSON.stringify(said)})`}`;
};

export class StreamConnection {
  readonly #settings: ConnectionSettings;
  readonly #events: ConnectionEvents;
  readonly #socket: WebSocket;
  readonly #requests = new Map<string, readonly string[]>();
  #lastHeardAt = performance.now();
  #lastPingAt = performance.now();
  #lastCheckAt = performance.now();
  readonly #checkEveryMs: number;
  #pings = 0;
  #subscribed = false;
  #announced = false;
  #ended = false;
  #watch: NodeJS.Timeout | undefined;
  readonly #sending: NodeJS.Timeout[] = [];

  constructor(settings: ConnectionSettings, events: ConnectionEvents) {
    this.#settings = settings;
    this.#events = events;
    this.#socket = new WebSocket(settings.url, {
      maxPayload: settings.maxFrameBytes,
      handshakeTimeout: Math.max(2 * settings.silenceMs, 5_000),
      // Frames are small; an inflated one would be checked against maxPayload, but costs CPU for nothing.
      perMessageDeflate: false,
    });
    this.#socket.on('open', () => this.#opened());
    this.#socket.on('message', (data, isBinary) => this.#message(data, isBinary));
    this.#socket.on('ping', () => this.#heard());
    this.#socket.on('pong', () => this.#heard());
    this.#socket.on('error', (error) => this.#end(`error: ${error.message}`));
    this.#socket.on('close', (code, reason) => this.#end(`closed by the venue, ${closeText(code, reason)}`));
    this.#checkEveryMs = Math.max(20, Math.min(settings.silenceMs / 4, 1_000));
    this.#watch = setInterval(() => this.#check(), this.#checkEveryMs);
  }

  /** Closes it (a replaced or stopped stream): no `down` is said for a close asked for. */
  close(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#stopTimers();
    if (this.#socket.readyState === WebSocket.CONNECTING) this.#socket.terminate();
    else this.#socket.close(1000, 'closing');
    // A venue that never answers the close must not hold the socket.
    setTimeout(() => this.#socket.terminate(), 2_000).unref();
  }

  /** Drops it now with `reason` (garbage, a refused subscription of every symbol): `down` is said. */
  drop(reason: string): void {
    if (this.#ended) return;
    this.#end(reason);
    this.#socket.terminate();
  }

  #opened(): void {
    this.#heard();
    const { venue, symbols, firstRequestId } = this.#settings;
    const requests = venue.subscribe(symbols, firstRequestId);
    for (const request of requests) this.#requests.set(request.id, request.symbols);
    requests.forEach((request, index) => {
      const send = () => {
        if (this.#ended) return;
        this.#socket.send(request.text);
        if (index === requests.length - 1) this.#subscribed = true;
      };
      if (index === 0) send();
      else this.#sending.push(setTimeout(send, index * venue.sendGapMs));
    });
  }

  #message(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.#ended) return;
    this.#heard();
    const frame: StreamFrame = isBinary
      ? { kind: 'garbage', problem: 'a binary frame' }
      : this.#settings.venue.parse(
          Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(toBuffers(data)).toString('utf8'),
        );
    if (this.#subscribed && !this.#announced && frame.kind !== 'garbage') {
      this.#announced = true;
      this.#events.up();
    }
    this.#events.frame(frame, this.#requests);
  }

  #heard(): void {
    this.#lastHeardAt = performance.now();
  }

  /** Silent past the limit: dropped; quiet past half of it, or the venue's keepalive due: a heartbeat. */
  #check(): void {
    if (this.#ended || this.#socket.readyState !== WebSocket.OPEN) return;
    const now = performance.now();
    const { silenceMs, venue } = this.#settings;
    const late = now - this.#lastCheckAt > 2 * this.#checkEveryMs;
    this.#lastCheckAt = now;
    // The event loop was held (a long build): frames that came meanwhile are read after this check, and no heartbeat
    // could go out. The time held does not count as silence: judged again from "quiet enough for a heartbeat".
    if (late) this.#lastHeardAt = Math.max(this.#lastHeardAt, now - silenceMs / 2);
    const quiet = now - this.#lastHeardAt;
    if (quiet >= silenceMs) {
      this.drop(
        `silent for ${(quiet / 1000).toFixed(1)} s (no frame, ping or pong; the limit is ${silenceMs / 1000} s)`,
      );
      return;
    }
    const sinceHeartbeat = now - this.#lastPingAt;
    const due = venue.keepaliveMs !== undefined && sinceHeartbeat >= venue.keepaliveMs;
    if ((quiet >= silenceMs / 2 && sinceHeartbeat >= silenceMs / 2) || due) {
      this.#lastPingAt = now;
      const ping = venue.ping(++this.#pings);
      if ('protocol' in ping) this.#socket.ping();
      else this.#socket.send(ping.text);
    }
  }

  /** The end said once; after `close()` (asked for) nothing is said. */
  #end(reason: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#stopTimers();
    this.#events.down(reason);
  }

  #stopTimers(): void {
    clearInterval(this.#watch);
    this.#watch = undefined;
    for (const timer of this.#sending.splice(0)) clearTimeout(timer);
  }
}

function toBuffers(data: WebSocket.RawData): Buffer[] {
  if (Array.isArray(data)) return data;
  return [Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data)];
}
