// `ratefile start` with a streamed source (binance, `stream:`) on a loopback venue: a tick that moves a published
// number builds and the new rate is served; a tick that moves none builds nothing; the status, the dashboard and
// /metrics say which quotes the stream fed and how old the quotes behind each published direction are.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Status } from '../../../src/pure/status/report.js';
import { projectsPerTest, sampleConfig } from '../../support/project.js';
import { startReplay, type ReplayServer } from '../../support/replay.js';
import { servicesPerTest } from '../../support/service.js';
import { sendAll, startWsVenue, until, type WsVenue } from '../../support/ws-venue.js';

const project = projectsPerTest();
const start = servicesPerTest();

const tick = (bid: string, ask: string, qty = '0.51200000') =>
  JSON.stringify({ stream: 'btcusdt@bookTicker', data: { u: 1, s: 'BTCUSDT', b: bid, B: qty, a: ask, A: '1.2' } });

describe('start with a streamed source', () => {
  let venue: WsVenue;
  let rest: ReplayServer;
  beforeEach(async () => {
    venue = await startWsVenue();
    rest = await startReplay([
      { path: '/api/v3/ticker/bookTicker', responses: [{ fixture: 'binance/bookTicker.json' }] },
    ]);
    venue.behave((connection) => {
      connection.socket.on('ping', (data) => connection.socket.pong(data));
      connection.socket.on('message', (data) => {
        const request = JSON.parse(data.toString()) as { id: number };
        sendAll(connection, [JSON.stringify({ result: null, id: request.id }), tick('97020.10', '97020.11')]);
      });
    });
  });
  afterEach(async () => {
    await venue.close();
    await rest.close();
  });

  const run = async () => {
    const config = sampleConfig
      .replace(
        'sources:\n  backoffice: { type: file, path: quotes.json }\n',
        `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  binance: { type: binance, pairs: [BTC/USDT], retries: 0, stream: { url: "${venue.url}", minInterval: 0s } }
`,
      )
      .concat('schedule: "0 0 * * * *"\n');
    const made = await project({
      'ratefile.config.yaml': config,
      'quotes.json': JSON.stringify({ quotes: [{ pair: 'USDT/RUB', bid: '92.10', ask: '92.35' }] }),
    });
    return start(made, { env: { RATEFILE_BINANCE_URL: rest.url } });
  };
  const served = async (base: string) => (await fetch(new URL('parserfile.xml', base))).text();
  const moveBuilds = async (base: string) => {
    const text = await (await fetch(new URL('metrics', base))).text();
    return Number(/^ratefile_move_builds_total (\d+)/m.exec(text)?.[1]);
  };
  /** Sends `frames`, then a ping: once its pong is back, the service has read the frames before it. */
  const sendRead = async (frames: string[]) => {
    const connection = venue.connections.at(-1)!;
    const pong = new Promise<void>((resolve) => connection.socket.once('pong', () => resolve()));
    sendAll(connection, frames);
    connection.socket.ping();
    await pong;
  };
  const streamedBid = (status: Status | undefined) =>
    status?.sources.find((source) => source.name === 'binance')?.stream?.pairs[0];

  it('builds on a tick that moves a published rate and serves it; a tick that moves none builds nothing', async () => {
    const service = await run();
    await until(() => streamedBid(service.status())?.fed === 'stream', 'a build from the stream');
    expect(streamedBid(service.status())?.bid).toBe('97020.1');
    const before = await served(service.base);
    const asked = await moveBuilds(service.base);
    // Only a quantity changes: nothing printed moves, no build is asked for.
    await sendRead([tick('97020.10', '97020.11', '0.90000000')]);
    expect(await moveBuilds(service.base)).toBe(asked);
    // The bid and ask move: one build, and the new rate is served.
    await sendRead([tick('97031.55', '97031.56')]);
    expect(await moveBuilds(service.base)).toBe(asked + 1);
    await until(() => streamedBid(service.status())?.bid === '97031.55', 'the moved tick built');
    expect(await served(service.base)).not.toBe(before);
  });

  it('says in the status, the dashboard and /metrics what the stream fed and how old the quotes are', async () => {
    const service = await run();
    await until(() => streamedBid(service.status())?.fed === 'stream', 'a build from the stream');
    const status = service.status()!;
    const binance = status.sources.find((source) => source.name === 'binance')!;
    expect(binance.stream).toMatchObject({ state: 'live', connections: 1, up: 1, reconnects: 0 });
    expect(status.publishedQuoteAges).toHaveLength(status.published.length);
    for (const age of status.publishedQuoteAges ?? []) expect(age).toBeGreaterThanOrEqual(0);
    const metrics = await (await fetch(new URL('metrics', service.base))).text();
    expect(metrics).toMatch(/^ratefile_stream_live\{source="binance"\} 1$/m);
    expect(metrics).toMatch(/^ratefile_stream_quotes\{source="binance",fed="stream"\} 1$/m);
    expect(metrics).toMatch(/^ratefile_direction_quote_age_seconds\{percentile="99"\} [\d.e-]+$/m);
    const board = (await (await fetch(new URL('dashboard.json', service.base))).json()) as {
      sources: { name: string; stream?: string }[];
      directions: { id: string; quotes: { source: string; fed?: string }[] }[];
    };
    expect(board.sources.find((source) => source.name === 'binance')?.stream).toMatch(/^live, 1 by stream, 0 by REST/);
    const btc = board.directions.find((direction) => direction.id === 'BTC>SBERRUB');
    expect(btc?.quotes.find((quote) => quote.source === 'binance')?.fed).toBe('stream');
  });
});
