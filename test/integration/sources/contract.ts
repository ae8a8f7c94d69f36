// The contract every HTTP source keeps, run by each test/integration/sources/<name>.test.ts against its recorded responses
// on a loopback replay server: normal response, HTML page, error envelope, missing symbol, zero price, a body
// that cannot be read, timeout, 429 then success, a long Retry-After (capped at 10 minutes, or an HTTP date), 5xx
// then success, a server that is down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RatefileError } from '../../../src/base/errors.js';
import { fetchQuotes, QuoteCache } from '../../../src/io/quotes/quotes.js';
import { maxRetryAfterMs, type SourceError } from '../../../src/io/sources/http.js';
import { sourceDefinition } from '../../../src/io/sources/index.js';
import { defaultUserAgent } from '../../../src/base/requests.js';
import type { RawQuote, SourceContext, SourceResult } from '../../../src/model/source.js';
import { fixture, startReplay, type ReplayResponse, type ReplayServer } from '../../support/replay.js';

/** The clock of every contract test: the fixtures are from 2026-11-20/21. */
export const testNow = new Date('2026-11-21T12:00:00Z');

export type Options = Record<string, unknown>;

export interface ContractSpec {
  type: string;
  /** The source's options as in a config, without `type` (pairs…). */
  options: Options;
  /** Path of the endpoint the source asks. */
  path: string;
  /** The recorded normal response. */
  normal: ReplayResponse;
  /** Quotes the normal response gives, prices exactly as the source sent them (as decimal text). */
  expected: Pick<RawQuote, 'pair' | 'bid' | 'ask'>[];
  /** Options that also ask for a pair the normal response lacks, and that pair. */
  missing: { options: Options; pair: string };
  /** The normal response with one pair's price zero, and that pair. */
  zero: { body: Buffer; pair: string };
  /** The API's error envelope, and what the error must say. */
  envelope: { response: ReplayResponse; says: RegExp };
  /** How the API says "too many requests" (the body of its 429). */
  rateLimited?: ReplayResponse;
  /** How many requests one fetch of `options` makes (default 1; a P2P source searches twice per pair). */
  requests?: number;
  /** Options with the configured base URL set to `base` (default: `baseUrl`). */
  withBase?: (options: Options, base: string) => Options;
}

export function contextFor(name: string, env: Record<string, string | undefined>, waits: number[] = []): SourceContext {
  return {
    name,
    configDir: '/nonexistent',
    fetch: globalThis.fetch,
    userAgent: defaultUserAgent(),
    signal: new AbortController().signal,
    now: () => testNow,
    env,
    // Waits are recorded, not spent, so retry tests stay fast and can check what was waited.
    sleep: async (ms) => {
      waits.push(ms);
    },
  };
}

/** Run one source once against `url` (through its RATEFILE_<TYPE>_URL), its options checked by its schema first. */
export async function runSource(
  type: string,
  options: Options,
  url: string,
  waits: number[] = [],
  env: Record<string, string> = {},
): Promise<SourceResult> {
  const definition = sourceDefinition(type);
  if (!definition) throw new Error(`no source type ${type}`);
  const parsed = definition.options.parse({ type, ...options });
  const result = await definition.fetchQuotes(
    parsed,
    contextFor(type, { [`RATEFILE_${type.toUpperCase()}_URL`]: url, ...env }, waits),
  );
  return Array.isArray(result) ? { quotes: result, problems: [] } : result;
}

/** The source error a promise rejects with, checked to be an E_SOURCE naming the source and the path. */
export async function sourceError(promise: Promise<unknown>, name: string, path: string): Promise<SourceError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, 'expected the source to fail').toBeInstanceOf(RatefileError);
  const failure = error as SourceError;
  expect(failure.code).toBe('E_SOURCE');
  expect(failure.message).toContain(`${name}: `);
  expect(failure.message).toContain(path);
  return failure;
}

const plain = (quotes: RawQuote[]) => quotes.map(({ pair, bid, ask }) => ({ pair, bid, ask }));

export function testSource(spec: ContractSpec): void {
  const { type, path } = spec;
  const options = { retries: 0, ...spec.options };
  const withBase = spec.withBase ?? ((given: Options, base: string) => ({ ...given, baseUrl: base }));
  let replay: ReplayServer;
  const serve = (...responses: ReplayResponse[]) => replay.setRoutes([{ path, responses }]);
  const run = (given: Options = options, waits: number[] = []) => runSource(type, given, replay.url, waits);
  // Options as the config loader hands them to the quote book: checked and converted.
  const parse = (given: Options) => sourceDefinition(type)!.options.parse({ type, ...given });

  describe(`${type}: the source contract`, () => {
    beforeAll(async () => {
      replay = await startReplay([]);
    });
    afterAll(() => replay.close());

    it('returns the quotes of a normal response, prices exactly as sent', async () => {
      serve(spec.normal);
      const result = await run();
      expect(plain(result.quotes)).toEqual(expect.arrayContaining(spec.expected));
      expect(result.quotes).toHaveLength(spec.expected.length);
      expect(result.problems).toEqual([]);
      for (const quote of result.quotes) expect(quote.time.getTime()).toBeLessThanOrEqual(testNow.getTime());
      expect(replay.requests.at(-1)?.path).toBe(path);
      // Named, never Node's default `node`: a CDN in front of the API may block that one.
      expect(replay.requests.at(-1)?.headers['user-agent']).toMatch(/^ratefile\/\d+\.\d+\.\d+/);
    });

    it('fills the quote book, each quote carrying its source and time', async () => {
      serve(spec.normal);
      const { book, reports } = await fetchQuotes([{ name: 'live', type, options: parse(options) }], {
        configDir: '/nonexistent',
        fetch: globalThis.fetch,
        userAgent: 'Exchanger-bot/2.0 (+https://exchanger.example/)',
        now: () => testNow,
        env: { [`RATEFILE_${type.toUpperCase()}_URL`]: replay.url },
      });
      expect(reports).toEqual([
        expect.objectContaining({ name: 'live', type, ok: true, quotes: spec.expected.length, rejected: [] }),
      ]);
      expect(replay.requests.at(-1)?.headers['user-agent']).toBe('Exchanger-bot/2.0 (+https://exchanger.example/)');
      for (const expected of spec.expected) {
        const quote = book.get(expected.pair);
        expect(quote?.source).toBe('live');
        expect(quote?.bid.equals(expected.bid)).toBe(true);
        expect(quote?.ask.equals(expected.ask)).toBe(true);
      }
    });

    it(`takes the base URL from the config, and RATEFILE_${type.toUpperCase()}_URL over it`, async () => {
      serve(spec.normal);
      const definition = sourceDefinition(type)!;
      const configured = definition.options.parse({ type, ...withBase(options, replay.url) });
      const fromConfig = await definition.fetchQuotes(configured, contextFor(type, {}));
      expect(Array.isArray(fromConfig) ? fromConfig : fromConfig.quotes).toHaveLength(spec.expected.length);
      // A dead base URL in the config does not matter when the environment points elsewhere.
      const dead = definition.options.parse({ type, ...withBase(options, 'http://127.0.0.1:9') });
      const fromEnv = await definition.fetchQuotes(
        dead,
        contextFor(type, { [`RATEFILE_${type.toUpperCase()}_URL`]: replay.url }),
      );
      expect(Array.isArray(fromEnv) ? fromEnv : fromEnv.quotes).toHaveLength(spec.expected.length);
    });

    it.each([
      [200, 'html/ddos-guard.html', 'DDoS-Guard'],
      [403, 'html/ddos-guard.html', 'DDoS-Guard'],
      [429, 'html/cloudflare.html', 'Just a moment...'],
    ])('refuses an HTML page (HTTP %i, %s)', async (status, page, title) => {
      serve({ status, fixture: page });
      const error = await sourceError(run(), type, path);
      expect(error.message).toContain('HTML page');
      expect(error.message).toContain(title);
    });

    it('reports the error envelope', async () => {
      serve(spec.envelope.response);
      const error = await sourceError(run(), type, path);
      expect(error.message).toMatch(spec.envelope.says);
    });

    it('reports a missing symbol, naming it, and keeps the other pairs', async () => {
      serve(spec.normal);
      const result = await run({ ...options, ...spec.missing.options });
      expect(plain(result.quotes)).toEqual(expect.arrayContaining(spec.expected));
      expect(result.quotes.map((quote) => quote.pair)).not.toContain(spec.missing.pair);
      expect(result.problems).toHaveLength(1);
      expect(result.problems[0]).toContain(spec.missing.pair);
      expect(result.problems[0]).toContain(path);
      expect(result.problems[0]).toContain('not in the response');
    });

    it('drops a zero price with a reason, and keeps the other pairs', async () => {
      serve({ ...spec.normal, body: spec.zero.body });
      const result = await run();
      expect(result.quotes.map((quote) => quote.pair)).not.toContain(spec.zero.pair);
      expect(result.quotes).toHaveLength(spec.expected.length - 1);
      expect(result.problems).toEqual([expect.stringContaining(spec.zero.pair)]);
      expect(result.problems[0]).toContain(path);
      expect(result.problems[0]).toMatch(/is zero/);
    });

    it("lists a dropped pair in the source's report, the source still counting", async () => {
      serve({ ...spec.normal, body: spec.zero.body });
      const { reports } = await fetchQuotes([{ name: 'live', type, options: parse(options) }], {
        configDir: '/nonexistent',
        fetch: globalThis.fetch,
        now: () => testNow,
        env: { [`RATEFILE_${type.toUpperCase()}_URL`]: replay.url },
      });
      expect(reports[0]).toMatchObject({ ok: true, quotes: spec.expected.length - 1 });
      expect(reports[0]?.rejected).toEqual([expect.stringContaining(spec.zero.pair)]);
    });

    it('refuses a body cut short', async () => {
      const whole = fixture(spec.normal.fixture!);
      serve({ ...spec.normal, body: whole.subarray(0, Math.floor(whole.length / 2)) });
      const error = await sourceError(run(), type, path);
      expect(error.message).toMatch(/not valid JSON|not well-formed XML/);
    });

    it('times out a slow answer', async () => {
      serve({ ...spec.normal, delayMs: 2_000 });
      const started = performance.now();
      const error = await sourceError(run({ ...options, timeout: '150ms' }), type, path);
      expect(error.message).toContain(`timed out after 150 ms waiting for ${new URL(replay.url).host}`);
      expect(performance.now() - started).toBeLessThan(1_500);
    });

    it('retries a 429, waiting as long as its Retry-After says, then succeeds', async () => {
      serve(
        { status: 429, headers: { 'retry-after': '2' }, ...(spec.rateLimited ?? { body: 'Too Many Requests' }) },
        spec.normal,
      );
      const waits: number[] = [];
      const before = replay.requests.length;
      const result = await run({ ...options, retries: 1 }, waits);
      expect(result.quotes).toHaveLength(spec.expected.length);
      expect(waits).toEqual([2_000]);
      expect(replay.requests.length - before).toBe((spec.requests ?? 1) + 1);
    });

    /** The source run through fetchQuotes with one cache, at a given time: a service's builds, one after another. */
    const askCached = () => {
      const cache = new QuoteCache();
      const source = [{ name: 'live', type, options: parse(options) }];
      return (at: string) =>
        fetchQuotes(source, {
          configDir: '/nonexistent',
          fetch: globalThis.fetch,
          now: () => new Date(at),
          env: { [`RATEFILE_${type.toUpperCase()}_URL`]: replay.url },
          cache,
        });
    };

    it('stops at a long Retry-After and does not ask again before it has passed', async () => {
      serve(
        { status: 429, headers: { 'retry-after': '120' }, ...(spec.rateLimited ?? { body: 'Too Many Requests' }) },
        spec.normal,
      );
      const before = replay.requests.length;
      const error = await sourceError(run({ ...options, retries: 2 }), type, path);
      expect(error.message).toContain('HTTP 429');
      expect(error.retryAfterMs).toBe(120_000);
      expect(replay.requests.length - before).toBe(1);

      serve({ status: 429, headers: { 'retry-after': '120' }, ...(spec.rateLimited ?? { body: 'Too Many Requests' }) });
      const ask = askCached();
      await ask('2026-11-21T12:00:00Z');
      const asked = replay.requests.length;
      const { reports } = await ask('2026-11-21T12:01:00Z');
      expect(replay.requests.length).toBe(asked);
      expect(reports[0]?.error).toMatch(/not asked again before 2026-11-21T12:02:00Z/);
      serve(spec.normal);
      const later = await ask('2026-11-21T12:02:01Z');
      expect(later.reports[0]?.ok).toBe(true);
    });

    it('caps a Retry-After of days (999999 s) at 10 minutes: asked again 10 minutes later, not in 11.6 days', async () => {
      const limited = {
        status: 429,
        headers: { 'retry-after': '999999' },
        ...(spec.rateLimited ?? { body: 'Too Many Requests' }),
      };
      serve(limited);
      const error = await sourceError(run({ ...options, retries: 2 }), type, path);
      expect(error.message).toContain('HTTP 429');
      expect(error.message).toContain('(Retry-After asks for 12 days; a source waits at most 10 min)');
      expect(error.retryAfterMs).toBe(maxRetryAfterMs);

      serve(limited, spec.normal);
      const ask = askCached();
      await ask('2026-11-21T12:00:00Z');
      const asked = replay.requests.length;
      const early = await ask('2026-11-21T12:09:59Z');
      expect(replay.requests.length).toBe(asked);
      expect(early.reports[0]?.error).toMatch(/not asked again before 2026-11-21T12:10:00Z/);
      const later = await ask('2026-11-21T12:10:00Z');
      expect(later.reports[0]?.ok).toBe(true);
    });

    it("reads a Retry-After HTTP date on the source's clock", async () => {
      serve({
        status: 429,
        headers: { 'retry-after': 'Sat, 21 Nov 2026 12:02:00 GMT' },
        ...(spec.rateLimited ?? { body: 'Too Many Requests' }),
      });
      const error = await sourceError(run({ ...options, retries: 2 }), type, path);
      expect(error.retryAfterMs).toBe(120_000);
      expect(replay.requests.at(-1)?.path).toBe(path);
    });

    it('retries a 5xx after a backoff, then succeeds', async () => {
      serve({ status: 502, body: '' }, spec.normal);
      const waits: number[] = [];
      const result = await run({ ...options, retries: 2 }, waits);
      expect(result.quotes).toHaveLength(spec.expected.length);
      expect(waits).toEqual([250]);
    });

    it('fails cleanly when the server is down, after its retries', async () => {
      const down = await startReplay([]);
      await down.close();
      const waits: number[] = [];
      const error = await sourceError(runSource(type, { ...options, retries: 2 }, down.url, waits), type, path);
      // The host and port, not only the path: which address was refused.
      expect(error.message).toContain(`: request to ${new URL(down.url).host} failed: `);
      expect(error.message).toMatch(/ECONNREFUSED.* \(3 attempts\)$/);
      expect(waits).toEqual([250, 500]);
    });
  });
}
