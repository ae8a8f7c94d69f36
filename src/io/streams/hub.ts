// The streams of `ratefile start`: one feed per source in stream mode, made, kept or closed as each build's config
// says (a reload that changes a source's options or address makes its feed anew), read by the builds through the
// quote cache (`QuoteCache.live`), and every quote they take told to the listeners (the build trigger on moves).
import type { Logger } from '../../base/log.js';
import type { Config, SourceConfig } from '../../model/config.js';
import type { Quote } from '../../model/source.js';
import type { LiveQuotes, LiveResult, QuoteCache } from '../quotes/quote-cache.js';
import { askSource, type FetchDeps } from '../quotes/source-ask.js';
import { sourceRefreshMs } from '../quotes/source-options.js';
import { baseUrlVariable } from '../sources/http.js';
import { sourceDefinition } from '../sources/index.js';
import { StreamFeed } from './feed.js';
import { type StreamSettings, streamSettings, streamUrlVariable } from './settings.js';

export interface HubDeps {
  log: Logger;
  now: () => Date;
  fetch: typeof globalThis.fetch;
  env: Readonly<Record<string, string | undefined>>;
  random?: () => number;
}

export type QuoteListener = (source: string, quote: Quote) => void;

/** The configured pairs among `wanted`, in the option's own form (a list or a mapping to the venue's symbols). */
function pairsOption(pairs: unknown, wanted: ReadonlySet<string>): unknown {
  if (Array.isArray(pairs)) return pairs.filter((pair) => wanted.has(String(pair)));
  return Object.fromEntries(Object.entries(pairs as Record<string, string>).filter(([pair]) => wanted.has(pair)));
}

export class StreamHub implements LiveQuotes {
  readonly #deps: HubDeps;
  readonly #feeds = new Map<string, StreamFeed>();
  /** Connection attempts by venue type, shared by every feed of that venue: the venue counts per address. */
  readonly #attempts = new Map<string, number[]>();
  readonly #listeners: QuoteListener[] = [];

  constructor(deps: HubDeps) {
    this.#deps = deps;
  }

  /** Made here, read by the service: the hub behind a quote cache (its builds read the streamed sources' quotes). */
  static attach(cache: QuoteCache, deps: HubDeps): StreamHub {
    const hub = new StreamHub(deps);
    cache.live = hub;
    return hub;
  }

  /** The streamed sources of `config` streaming from now on; feeds of sources gone or changed closed. */
  target(config: Pick<Config, 'dir' | 'sources' | 'schedulePeriodMs'>): void {
    const wanted = new Set<string>();
    for (const source of config.sources) {
      const settings = streamSettings(source, this.#deps.env);
      if (!settings || !sourceDefinition(source.type)) continue;
      wanted.add(source.name);
      const key = this.#key(source);
      const feed = this.#feeds.get(source.name);
      if (feed?.key === key) {
        // The same stream; a new config object (its priority is read from it).
        feed.source = source;
        continue;
      }
      feed?.stop();
      this.#open(source, key, settings, config);
    }
    for (const [name, feed] of this.#feeds)
      if (!wanted.has(name)) {
        feed.stop();
        this.#feeds.delete(name);
      }
  }

  quotesFor(source: SourceConfig): LiveResult | undefined {
    const feed = this.#feeds.get(source.name);
    return feed && feed.key === this.#key(source) ? feed.snapshot() : undefined;
  }

  /** Told of every quote a feed takes. */
  onQuote(listener: QuoteListener): void {
    this.#listeners.push(listener);
  }

  /** Every streamed source's quotes as they stand, by source name. */
  latest(): [string, Quote][] {
    return [...this.#feeds].flatMap(([name, feed]) =>
      feed.latestQuotes().map((quote): [string, Quote] => [name, quote]),
    );
  }

  /** The stream settings of a source streamed now (the trigger reads its minimum interval). */
  settingsOf(name: string): StreamSettings | undefined {
    return this.#feeds.get(name)?.settings;
  }

  close(): void {
    for (const feed of this.#feeds.values()) feed.stop();
    this.#feeds.clear();
  }

  #key(source: SourceConfig): string {
    const { env } = this.#deps;
    return JSON.stringify([
      source.type,
      source.options,
      env[baseUrlVariable(source.type)] ?? null,
      env[streamUrlVariable(source.type)] ?? null,
    ]);
  }

  #open(
    source: SourceConfig,
    key: string,
    settings: StreamSettings,
    config: Pick<Config, 'dir' | 'schedulePeriodMs'>,
  ): void {
    const { log, now, fetch, env } = this.#deps;
    const definition = sourceDefinition(source.type)!;
    const fetchDeps: FetchDeps = { configDir: config.dir, fetch, now, env, schedulePeriodMs: config.schedulePeriodMs };
    const attempts = this.#attempts.get(source.type) ?? this.#attempts.set(source.type, []).get(source.type)!;
    const feed = new StreamFeed(source, key, settings, {
      log,
      now,
      random: this.#deps.random ?? Math.random,
      attempts,
      restEveryMs: sourceRefreshMs(source) || config.schedulePeriodMs,
      askRest: async (pairs) => {
        const current = this.#feeds.get(source.name)?.source ?? source;
        const options = { ...current.options, pairs: pairsOption(current.options.pairs, new Set(pairs)) };
        return askSource({ ...current, options }, definition, fetchDeps, undefined);
      },
      onQuote: (name, quote) => {
        for (const listener of this.#listeners) listener(name, quote);
      },
    });
    this.#feeds.set(source.name, feed);
    feed.start();
  }
}
