// One streamed source (`stream:` on binance, bybit, okx or kraken) in `ratefile start`: its pairs on as few connections
// as the venue allows, each made again with backoff and jitter when it ends (never more often than the venue's limit
// on new connections), replaced before the venue's forced disconnect (the new one subscribed before the old one goes),
// dropped when silent or sending garbage; ticks checked like any answer into the store, and REST (rest-fallback.ts)
// feeding the pairs the stream does not. A build reads the store (`snapshot`), never waits on the network.
import { quoteValue } from '../../base/errors.js';
import type { Logger } from '../../base/log.js';
import type { SourceConfig } from '../../model/config.js';
import type { Quote } from '../../model/source.js';
import { backoffDelay, connectAllowedAt, defaultBackoff } from '../../pure/sources/streams/backoff.js';
import { chunks } from '../../pure/sources/streams/binance.js';
import { type StreamFrame, type StreamTick, tickQuotes } from '../../pure/sources/streams/frame.js';
import type { PairSymbol } from '../../pure/sources/values.js';
import type { StreamReport } from '../../pure/status/report.js';
import type { LiveResult } from '../quotes/quote-cache.js';
import { checkQuote } from '../quotes/source-ask.js';
import { sourcePriority } from '../quotes/source-options.js';
import { StreamConnection } from './connection.js';
import { QuoteStore } from './quote-store.js';
import { RestFallback, type RestAsk } from './rest-fallback.js';
import type { StreamSettings } from './settings.js';

export interface FeedDeps {
  log: Logger;
  /** The clock quotes are timed by (the service's). */
  now: () => Date;
  random: () => number;
  /** When connections to this venue were attempted (shared by the process's feeds of one venue): its limit holds for all. */
  attempts: number[];
  /** The source's REST answer for some of its pairs. */
  askRest: RestAsk;
  /** How often REST is asked for the pairs the stream does not feed: the source's refresh, else the schedule period. */
  restEveryMs: number;
  /** Told of every quote the store takes, from the stream or REST. */
  onQuote: (source: string, quote: Quote) => void;
}

/** Garbage frames within this long of each other: the connection is dropped. */
const garbageWindowMs = 10_000;
const garbageLimit = 3;

interface Slot {
  symbols: readonly string[];
  connection: StreamConnection | undefined;
  /** The replacement being subscribed before the old connection goes. */
  next: StreamConnection | undefined;
  up: boolean;
  upSince: number;
  failures: number;
  garbage: number[];
  timer: NodeJS.Timeout | undefined;
  rotation: NodeJS.Timeout | undefined;
}

export class StreamFeed {
  source: SourceConfig;
  readonly key: string;
  readonly settings: StreamSettings;
  readonly #deps: FeedDeps;
  readonly #store: QuoteStore;
  readonly #bySymbol: Map<string, PairSymbol>;
  readonly #slots: Slot[];
  readonly #rest: RestFallback;
  #seq = 0;
  /** The decimal text of each streamed quote held (`bid ask`): a tick repeating it is not read again. */
  readonly #texts = new Map<string, string>();
  #requestIds = 0;
  #reconnects = 0;
  #lastFrameAt: number | undefined;
  /** The last thing it got wrong, and when (kept once it is live again: the status says both). */
  #problem: string | undefined;
  #problemAt: number | undefined;
  #stopped = false;

  constructor(source: SourceConfig, key: string, settings: StreamSettings, deps: FeedDeps) {
    this.source = source;
    this.key = key;
    this.settings = settings;
    this.#deps = deps;
    const pairs = settings.venue.symbols(source.options.pairs as readonly string[] | Record<string, string>);
    this.#store = new QuoteStore(pairs);
    this.#bySymbol = new Map(pairs.map((pair) => [pair.symbol, pair]));
    this.#slots = chunks(
      pairs.map((pair) => pair.symbol),
      settings.venue.perConnection,
    ).map((symbols) => ({
      symbols,
      connection: undefined,
      next: undefined,
      up: false,
      upSince: 0,
      failures: 0,
      garbage: [],
      timer: undefined,
      rotation: undefined,
    }));
    this.#rest = new RestFallback({
      store: this.#store,
      ask: deps.askRest,
      everyMs: deps.restEveryMs,
      now: () => deps.now().getTime(),
      streamUp: (pair) => this.#slotOf(pair)?.up === true,
      log: deps.log,
      name: source.name,
      taken: (quote) => deps.onQuote(this.source.name, quote),
    });
  }

  start(): void {
    for (const slot of this.#slots) this.#connectSoon(slot);
    // The store fills from REST at once; the stream takes over pair by pair as it ticks.
    this.#rest.start();
  }

  stop(): void {
    this.#stopped = true;
    this.#rest.stop();
    for (const slot of this.#slots) {
      clearTimeout(slot.timer);
      clearTimeout(slot.rotation);
      slot.connection?.close();
      slot.next?.close();
    }
  }

  /** The quotes a build reads now, with the stream's state. */
  snapshot(): LiveResult {
    const up = this.#slots.filter((slot) => slot.up).length;
    const state: StreamReport['state'] = up === this.#slots.length ? 'live' : up === 0 ? 'down' : 'partial';
    return this.#store.snapshot(
      {
        state,
        connections: this.#slots.length,
        up,
        reconnects: this.#reconnects,
        ...(this.#lastFrameAt === undefined ? {} : { lastFrameAt: new Date(this.#lastFrameAt).toISOString() }),
        ...(this.#problem === undefined ? {} : { problem: this.#problem }),
        ...(this.#problemAt === undefined ? {} : { problemAt: new Date(this.#problemAt).toISOString() }),
      },
      this.#rest.problem,
    );
  }

  /** The quote each pair has now (the trigger checks them against a new build's bands). */
  latestQuotes(): Quote[] {
    return this.#store.pairs.flatMap(({ pair }) => this.#store.latest(pair) ?? []);
  }

  #said(problem: string): void {
    this.#problem = problem;
    this.#problemAt = this.#deps.now().getTime();
  }

  #slotOf(pair: string): Slot | undefined {
    const symbol = this.#store.pairs.find((each) => each.pair === pair)?.symbol;
    return this.#slots.find((slot) => symbol !== undefined && slot.symbols.includes(symbol));
  }

  /** The next attempt after the backoff of the failures in a row, and not before the venue's limit allows one. */
  #connectSoon(slot: Slot, replacing = false): void {
    if (this.#stopped) return;
    const now = Date.now();
    const allowed = connectAllowedAt(this.#deps.attempts, now, this.settings.venue.connects);
    const backoff = slot.failures === 0 ? 0 : backoffDelay(slot.failures - 1, this.#deps.random());
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => this.#open(slot, replacing), Math.max(allowed - now, backoff));
    slot.timer.unref();
  }

  #open(slot: Slot, replacing: boolean): void {
    if (this.#stopped) return;
    const { attempts } = this.#deps;
    attempts.push(Date.now());
    // Only the venue's window is kept.
    while (attempts.length > this.settings.venue.connects.attempts * 2) attempts.shift();
    const firstRequestId = this.#requestIds + 1;
    this.#requestIds += slot.symbols.length;
    const connection: StreamConnection = new StreamConnection(
      { ...this.settings, symbols: slot.symbols, firstRequestId },
      {
        frame: (frame, requests) => this.#frame(slot, connection, frame, requests),
        up: () => this.#up(slot, connection),
        down: (reason) => this.#down(slot, connection, reason),
      },
    );
    if (replacing) slot.next = connection;
    else slot.connection = connection;
  }

  #up(slot: Slot, connection: StreamConnection): void {
    if (connection === slot.next) {
      // The replacement is subscribed and heard from: the old connection goes without a gap.
      slot.connection?.close();
      slot.connection = connection;
      slot.next = undefined;
    }
    if (connection !== slot.connection) return;
    if (!slot.up)
      this.#deps.log.info(`stream: ${this.source.name}: streaming ${slot.symbols.length} pairs`, {
        event: 'stream',
        source: this.source.name,
        ok: true,
      });
    slot.up = true;
    slot.upSince = Date.now();
    // Replaced before the venue's own disconnect, a little early at random so connections do not turn over together.
    clearTimeout(slot.rotation);
    const lifetime = this.settings.venue.lifetimeMs * (0.95 + 0.05 * this.#deps.random());
    slot.rotation = setTimeout(() => this.#rotate(slot), lifetime);
    slot.rotation.unref();
  }

  #rotate(slot: Slot): void {
    if (this.#stopped || slot.next) return;
    this.#connectSoon(slot, true);
  }

  #down(slot: Slot, connection: StreamConnection, reason: string): void {
    if (connection === slot.next) {
      // A replacement that failed: the old connection still streams; tried again after a backoff.
      slot.next = undefined;
      slot.failures++;
      this.#connectSoon(slot, true);
      return;
    }
    if (connection !== slot.connection) return;
    slot.connection = undefined;
    const lasted = slot.up ? Date.now() - slot.upSince : 0;
    slot.up = false;
    slot.failures = lasted >= defaultBackoff.resetAfterMs ? 1 : slot.failures + 1;
    this.#reconnects++;
    this.#said(reason);
    this.#deps.log.warn(`stream: ${this.source.name}: ${reason}; connecting again, REST feeds its pairs meanwhile`, {
      event: 'stream',
      source: this.source.name,
      ok: false,
    });
    this.#rest.soon();
    this.#connectSoon(slot);
  }

  #frame(
    slot: Slot,
    connection: StreamConnection,
    frame: StreamFrame,
    requests: ReadonlyMap<string, readonly string[]>,
  ) {
    const now = this.#deps.now();
    this.#lastFrameAt = now.getTime();
    if (frame.kind === 'ticks') this.#ticks(slot, connection, frame.ticks, now);
    else if (frame.kind === 'garbage') this.#garbage(slot, connection, frame.problem);
    else if (frame.kind === 'refused') this.#refused(slot, connection, frame, requests);
    else if (frame.kind === 'closing' && connection === slot.connection && !slot.next) {
      this.#said(`the venue is closing a connection: ${quoteValue(frame.message)}`);
      this.#connectSoon(slot, true);
    }
  }

  #ticks(slot: Slot, connection: StreamConnection, ticks: readonly StreamTick[], now: Date): void {
    const seq = ++this.#seq;
    const where = `the ${this.source.type} stream`;
    // A venue resends a price with a new size (Binance) or as it stands (Bybit every 3 s): the quote held is
    // confirmed anew, without reading its decimals again.
    const changed = ticks.filter((tick) => !this.#confirmed(tick, now, seq));
    const read = tickQuotes(changed, this.#bySymbol, where, now);
    const priority = sourcePriority(this.source);
    for (const { quote: raw } of read.quotes) {
      const checked = checkQuote(raw, this.source.name);
      if (typeof checked === 'string') {
        this.#garbage(slot, connection, checked);
        continue;
      }
      this.#texts.set(checked.pair, `${raw.bid} ${raw.ask}`);
      this.#take({ ...checked, ...(priority === 0 ? {} : { priority }), streamSeq: seq }, now);
    }
    for (const { pair, problem } of read.problems) {
      if (pair) this.#store.distrust(pair.pair);
      this.#garbage(slot, connection, problem);
    }
  }

  /** The tick repeats the prices of the stream's quote held: taken at its new time, true. */
  #confirmed(tick: StreamTick, now: Date, seq: number): boolean {
    const pair = this.#bySymbol.get(tick.symbol)?.pair;
    const held = pair === undefined ? undefined : this.#store.latest(pair);
    if (
      !held ||
      held.streamSeq === undefined ||
      this.#texts.get(held.pair) !== `${String(tick.bid)} ${String(tick.ask)}`
    )
      return false;
    const time = tick.time && tick.time.getTime() <= now.getTime() ? tick.time : now;
    this.#take({ ...held, time, streamSeq: seq }, now);
    return true;
  }

  #take(quote: Quote, now: Date): void {
    this.#store.streamed(quote, now.getTime());
    this.#deps.onQuote(this.source.name, quote);
  }

  /** A bad frame or tick is counted; garbageLimit of them within garbageWindowMs drop the connection. */
  #garbage(slot: Slot, connection: StreamConnection, problem: string): void {
    const now = Date.now();
    slot.garbage = [...slot.garbage.filter((at) => at > now - garbageWindowMs), now];
    this.#said(`sent garbage: ${problem}`);
    if (slot.garbage.length < garbageLimit) return;
    slot.garbage = [];
    connection.drop(`sent ${garbageLimit} unusable frames within ${garbageWindowMs / 1000} s, the last: ${problem}`);
  }

  #refused(
    slot: Slot,
    connection: StreamConnection,
    frame: Extract<StreamFrame, { kind: 'refused' }>,
    requests: ReadonlyMap<string, readonly string[]>,
  ): void {
    const named = frame.symbols.length > 0 ? frame.symbols : (requests.get(frame.request ?? '') ?? slot.symbols);
    const message = quoteValue(frame.message);
    for (const symbol of named) {
      const pair = this.#bySymbol.get(symbol);
      if (!pair || this.#store.refused(pair.pair) !== undefined) continue;
      this.#store.refuse(pair.pair, message);
      this.#deps.log.warn(`stream: ${this.source.name}: ${pair.pair} (${symbol}) refused: ${message}; REST feeds it`, {
        event: 'stream',
        source: this.source.name,
        ok: false,
      });
    }
    this.#rest.soon();
    if (slot.symbols.every((symbol) => this.#store.refused(this.#bySymbol.get(symbol)?.pair ?? '') !== undefined))
      connection.drop(`every subscription refused, the last: ${message}`);
  }
}
