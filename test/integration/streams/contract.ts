// The contract every stream mode keeps (`stream:` on binance, bybit, okx, kraken), run by each
// test/integration/streams/<venue>.test.ts over its recorded session (test/fixtures/streams/<venue>/) replayed by a
// loopback WebSocket venue, with the source's REST fixtures on a loopback HTTP server as the fallback: normal ticks,
// heartbeats on a quiet connection, silence, malformed and oversized frames, subscription errors, a close notice,
// server close, a reconnect storm (attempts spaced by the backoff), and a connection replaced before its lifetime ends.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sourceDefinition } from '../../../src/io/sources/index.js';
import { StreamFeed } from '../../../src/io/streams/feed.js';
import { StreamHub } from '../../../src/io/streams/hub.js';
import { streamSettings } from '../../../src/io/streams/settings.js';
import { askSource } from '../../../src/io/quotes/source-ask.js';
import type { SourceConfig } from '../../../src/model/config.js';
import { backoffDelay } from '../../../src/pure/sources/streams/backoff.js';
import type { LiveResult } from '../../../src/io/quotes/quote-cache.js';
import { startReplay, type ReplayServer } from '../../support/replay.js';
import {
  sendAll,
  startWsVenue,
  streamFixture,
  until,
  type VenueConnection,
  type WsVenue,
} from '../../support/ws-venue.js';

type Prices = { pair: string; bid: string; ask: string };

export interface StreamSpec {
  type: string;
  pairs: string[];
  /** The venue's names of the pairs, as its subscription requests must ask for them. */
  symbols: string[];
  /** The symbols a text the client sent subscribes to, or undefined when it is no subscription request. */
  subscribed(text: string): string[] | undefined;
  /** The id of a subscription request, which the venue's answers echo. */
  requestId(text: string): string;
  /** Whether a text the client sent is its heartbeat (absent: the venue's heartbeat is a protocol ping). */
  isPing?(text: string): boolean;
  /** The prices the recorded ticks leave, and the first tick's (BTC's, as the venue writes them). */
  streamed: Prices[];
  firstTick: { bid: string; ask: string };
  /** The REST fallback: the path the source asks, its recorded answer, the prices it gives. */
  rest: { path: string; fixture: string; prices: Prices[] };
  /** The pairs refused.jsonl refuses. */
  refused: string[];
  /** A session file in which the venue warns it will close the connection. */
  closing?: string;
}

/** A session file's frames with its placeholders filled: the request id, the time now in ms and as RFC 3339. */
function frames(spec: StreamSpec, file: string, id = '1'): string[] {
  const now = Date.now();
  return streamFixture(`${spec.type}/${file}`).map((line) =>
    line.replaceAll('{{id}}', id).replaceAll('{{ms}}', String(now)).replaceAll('{{iso}}', new Date(now).toISOString()),
  );
}

/** How the venue behaves: what it answers a subscription request with, whether it answers heartbeats. */
interface Script {
  answer?: (text: string) => string[];
  ticks?: boolean;
  heartbeats?: boolean;
}

function behaviour(spec: StreamSpec, script: Script) {
  return (connection: VenueConnection) => {
    if (spec.type === 'kraken') sendAll(connection, frames(spec, 'greeting.jsonl'));
    if (script.heartbeats !== false) connection.socket.on('ping', (data) => connection.socket.pong(data));
    connection.socket.on('message', (data) => {
      const text = data.toString();
      if (spec.isPing?.(text)) {
        if (script.heartbeats === false) return;
        if (text === 'ping') sendAll(connection, ['pong']);
        else sendAll(connection, frames(spec, 'pong.jsonl', String(JSON.parse(text).req_id)));
        return;
      }
      if (!spec.subscribed(text)) return;
      const id = spec.requestId(text);
      sendAll(connection, script.answer ? script.answer(text) : frames(spec, 'ack.jsonl', id));
      if (script.ticks !== false) sendAll(connection, frames(spec, 'ticks.jsonl'));
    });
  };
}

const prices = (result: LiveResult | undefined) =>
  (result?.quotes ?? []).map((quote) => ({ pair: quote.pair, bid: quote.bid.toFixed(), ask: quote.ask.toFixed() }));
const sorted = (list: Prices[]) => [...list].sort((a, b) => a.pair.localeCompare(b.pair));
/** Prices as the quote book holds them (Decimal: trailing zeros are not kept). */
const exact = (list: Prices[]) =>
  sorted(list.map(({ pair, bid, ask }) => ({ pair, bid: String(Number(bid)), ask: String(Number(ask)) })));
const fedBy = (result: LiveResult | undefined, pair: string) => result?.stream.pairs.find((p) => p.pair === pair)?.fed;

export function testStream(spec: StreamSpec): void {
  describe(`${spec.type}: the stream contract`, () => {
    let venue: WsVenue;
    let rest: ReplayServer;
    let hub: StreamHub | undefined;
    const feeds: StreamFeed[] = [];
    beforeEach(async () => {
      venue = await startWsVenue();
      rest = await startReplay([{ path: spec.rest.path, responses: [{ fixture: spec.rest.fixture }] }]);
    });
    afterEach(async () => {
      hub?.close();
      hub = undefined;
      for (const feed of feeds.splice(0)) feed.stop();
      await venue.close();
      await rest.close();
    });

    const source = (stream: Record<string, unknown> = {}): SourceConfig => {
      const definition = sourceDefinition(spec.type)!;
      const options = definition.options.parse({
        type: spec.type,
        pairs: spec.pairs,
        retries: 0,
        stream: { url: venue.url, silence: '2s', ...stream },
      });
      return { name: 'live', type: spec.type, options } as SourceConfig;
    };
    const env = () => ({ [`RATEFILE_${spec.type.toUpperCase()}_URL`]: rest.url });
    /** A hub streaming the source; REST is asked at start and when a connection goes down, not on a schedule. */
    const open = (stream: Record<string, unknown> = {}, random = () => 0.5) => {
      const live = source(stream);
      hub = new StreamHub({ log: quietLog, now: () => new Date(), fetch: globalThis.fetch, env: env(), random });
      hub.target({ dir: '/nonexistent', sources: [live], schedulePeriodMs: 3_600_000 });
      return { live, read: () => hub!.quotesFor(live) };
    };

    it('subscribes to exactly the configured pairs and takes the ticks, each quote fed by the stream', async () => {
      venue.behave(behaviour(spec, {}));
      const { read } = open();
      await until(() => spec.pairs.every((pair) => fedBy(read(), pair) === 'stream'), 'every pair streamed');
      await until(
        () => JSON.stringify(sorted(prices(read()))) === JSON.stringify(exact(spec.streamed)),
        'the last ticks',
      );
      const asked = venue.connections[0]!.received.flatMap((text) => spec.subscribed(text) ?? []);
      expect(asked.sort()).toEqual([...spec.symbols].sort());
      const result = read()!;
      expect(result.stream.state).toBe('live');
      expect(result.rejected).toEqual([]);
      for (const quote of result.quotes) {
        expect(quote.source).toBe('live');
        expect(quote.streamSeq).toBeGreaterThan(0);
        expect(quote.time.getTime()).toBeLessThanOrEqual(Date.now());
      }
    });

    it('keeps a quiet connection alive with its heartbeats, the one connection up', async () => {
      venue.behave(behaviour(spec, {}));
      const { read } = open({ silence: '1s' });
      await until(() => read()?.stream.state === 'live', 'the stream up');
      const first = venue.connections[0]!;
      const heartbeats = () => (spec.isPing ? first.received.filter((text) => spec.isPing!(text)).length : first.pings);
      await until(() => heartbeats() >= 3, 'three heartbeats');
      expect(venue.connections).toHaveLength(1);
      expect(first.isClosed).toBe(false);
    });

    it('drops a connection gone silent (heartbeats unanswered), REST feeding the pairs until one streams again', async () => {
      venue.behave(behaviour(spec, { heartbeats: false }));
      const { read } = open({ silence: '500ms' });
      await until(() => venue.connections.length >= 2, 'a second connection');
      expect(await venue.connections[0]!.closed).toBeGreaterThan(0);
      await until(() => read()?.stream.problem?.includes('silent') === true, 'the silence said');
      await until(() => spec.pairs.every((pair) => fedBy(read(), pair) === 'rest'), 'REST feeding every pair');
      expect(sorted(prices(read()))).toEqual(exact(spec.rest.prices));
      expect(rest.requests.length).toBeGreaterThan(0);
    });

    it('drops a connection sending garbage, and takes nothing from it', async () => {
      venue.behave((connection) => {
        behaviour(spec, { ticks: false })(connection);
        connection.socket.on('message', (data) => {
          if (spec.subscribed(data.toString())) sendAll(connection, ['{"unterminated', '[1,2,3]', '"a string"']);
        });
      });
      const { read } = open();
      await until(() => venue.connections.length >= 2, 'a connection after the garbage');
      expect(read()?.stream.problem ?? '').toMatch(/unusable frames|sent garbage/);
      expect((read()?.quotes ?? []).every((quote) => quote.streamSeq === undefined)).toBe(true);
    });

    it('refuses a tick whose bid is above its ask and lets REST feed that pair', async () => {
      const [tick] = frames(spec, 'ticks.jsonl');
      const swapped = swapSides(spec, tick!);
      venue.behave((connection) => {
        behaviour(spec, { ticks: false })(connection);
        connection.socket.on('message', (data) => {
          if (spec.subscribed(data.toString())) sendAll(connection, [swapped]);
        });
      });
      const { read } = open();
      await until(() => read()?.stream.problem?.includes('is above ask') === true, 'the crossed tick refused');
      expect((read()?.quotes ?? []).every((quote) => quote.streamSeq === undefined)).toBe(true);
    });

    it('drops a connection on a frame past the size cap', async () => {
      venue.behave((connection) => {
        behaviour(spec, {})(connection);
        connection.socket.on('message', (data) => {
          if (spec.subscribed(data.toString())) sendAll(connection, [`{"pad":"${'x'.repeat(300 * 1024)}"}`]);
        });
      });
      const { read } = open();
      await until(() => venue.connections.length >= 2, 'a connection after the oversized frame');
      expect(await venue.connections[0]!.closed).toBe(1009);
      expect(read()?.stream.problem ?? '').toMatch(/Max payload size exceeded|1009/);
    });

    it('feeds the pairs the venue refuses to stream from REST, the others from the stream', async () => {
      const refusedSymbols = spec.refused.map((pair) => spec.symbols[spec.pairs.indexOf(pair)]!);
      venue.behave((connection) => {
        behaviour(spec, { ticks: false, answer: (text) => frames(spec, 'refused.jsonl', spec.requestId(text)) })(
          connection,
        );
        connection.socket.on('message', (data) => {
          if (!spec.subscribed(data.toString())) return;
          // The venue streams only what it accepted.
          const ticks = frames(spec, 'ticks.jsonl').filter(
            (line) => !refusedSymbols.some((symbol) => line.includes(symbol)),
          );
          sendAll(connection, ticks);
        });
      });
      const { read } = open();
      await until(
        () => spec.refused.every((pair) => read()?.stream.pairs.find((p) => p.pair === pair)?.refused !== undefined),
        'the refusals kept',
      );
      await until(() => spec.refused.every((pair) => fedBy(read(), pair) === 'rest'), 'REST feeding the refused pairs');
      for (const pair of spec.pairs.filter((p) => !spec.refused.includes(p)))
        await until(() => fedBy(read(), pair) === 'stream', `${pair} streamed`);
    });

    it('connects again when the venue closes the connection, and subscribes anew', async () => {
      let count = 0;
      venue.behave((connection) => {
        behaviour(spec, {})(connection);
        if (++count === 1)
          connection.socket.on('message', (data) => {
            if (spec.subscribed(data.toString())) setImmediate(() => connection.socket.close(1001, 'going away'));
          });
      });
      const { read } = open();
      await until(() => venue.connections.length >= 2, 'a second connection');
      await until(() => (read()?.stream.reconnects ?? 0) >= 1 && read()?.stream.state === 'live', 'live again');
      // The venue may record the subscriptions after the feed is live again (a loaded machine): wait for them.
      const again = () => venue.connections[1]!.received.flatMap((text) => spec.subscribed(text) ?? []).sort();
      await until(() => again().length >= spec.symbols.length, 'subscribed anew');
      expect(again()).toEqual([...spec.symbols].sort());
    });

    it('spaces the attempts of a reconnect storm by backoff with jitter', async () => {
      venue.behave((connection) => connection.socket.close(1011, 'overloaded'));
      open({}, () => 0.5);
      await until(() => venue.connections.length >= 6, 'six attempts', 40_000);
      const opened = venue.connections.map((connection) => connection.openedAt);
      // Attempt n + 1 waits at least the backoff after failure n (random 0.5: half of base × 2^(n−1)).
      for (let n = 0; n < 5; n++) expect(opened[n + 1]! - opened[n]!).toBeGreaterThanOrEqual(backoffDelay(n, 0.5) - 5);
    }, 60_000);

    if (spec.closing)
      it('replaces a connection the venue says it will close, before it closes', async () => {
        let count = 0;
        venue.behave((connection) => {
          behaviour(spec, {})(connection);
          if (++count === 1)
            connection.socket.on('message', (data) => {
              if (spec.subscribed(data.toString()))
                setImmediate(() => sendAll(connection, frames(spec, spec.closing!)));
            });
        });
        const { read } = open();
        await until(() => venue.connections.length >= 2 && venue.connections[0]!.isClosed, 'the old one closed');
        expect(read()?.stream.reconnects).toBe(0);
        expect(read()?.stream.state).toBe('live');
      });

    it('replaces a connection before its lifetime ends: the new one subscribed before the old one goes', async () => {
      venue.behave(behaviour(spec, {}));
      const live = source();
      const settings = streamSettings(live, {})!;
      const states: string[] = [];
      const feed = new StreamFeed(
        live,
        'key',
        { ...settings, venue: { ...settings.venue, lifetimeMs: 600 } },
        {
          log: quietLog,
          now: () => new Date(),
          random: () => 0.5,
          attempts: [],
          restEveryMs: 3_600_000,
          askRest: async (pairs) =>
            askSource(
              { ...live, options: { ...live.options, pairs } },
              sourceDefinition(spec.type)!,
              {
                configDir: '/nonexistent',
                fetch: globalThis.fetch,
                now: () => new Date(),
                env: env(),
              },
              undefined,
            ),
          onQuote: () => states.push(feed.snapshot().stream.state),
        },
      );
      feeds.push(feed);
      feed.start();
      await until(() => venue.connections.length >= 2 && venue.connections[0]!.isClosed, 'the first replaced');
      const [first, second] = venue.connections;
      expect(second!.openedAt).toBeGreaterThan(first!.openedAt);
      expect(feed.snapshot().stream.reconnects).toBe(0);
      expect(feed.snapshot().stream.state).toBe('live');
      // Once live, never down while the connection turned over.
      expect(states.slice(states.indexOf('live'))).not.toContain('down');
    });
  });
}

/** A recorded tick with its bid and ask swapped (bid above ask), in the venue's own fields. */
function swapSides(spec: StreamSpec, tick: string): string {
  const { bid, ask } = spec.firstTick;
  const marker = '\u0000';
  const swapped = tick.replace(bid, marker).replace(ask, bid).replace(marker, ask);
  if (swapped === tick) throw new Error(`${spec.type}: the first tick does not carry ${bid} and ${ask}`);
  return swapped;
}

const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };
