// The streams of `ratefile start` and the builds they start: the streamed sources' feeds follow each build's config
// (src/io/streams/hub.ts), and a streamed quote that moves outside the bands of the last build's published numbers
// (src/pure/moves/bands.ts) starts a build, at most once per the source's `minInterval` and never beside another
// (the build runner keeps one at a time). A tick that prints nothing new starts nothing; REST sources keep the schedule.
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../../base/log.js';
import type { Config } from '../../model/config.js';
import type { Quote } from '../../model/source.js';
import type { QuoteCache } from '../../io/quotes/quote-cache.js';
import { StreamHub } from '../../io/streams/hub.js';
import { streamSettings } from '../../io/streams/settings.js';
import { bandKey, type MoveBands, moveBands, movesOut } from '../../pure/moves/bands.js';
import type { BuildReport } from '../../pure/status/report.js';

export interface ServiceStreams {
  hub: StreamHub;
  /** Before each build: the config's streamed sources stream (feeds of changed or removed sources close). */
  target(config: Config): void;
  /** After each build: the bands of what it printed; a quote already outside them starts the next build. */
  built(report: BuildReport, config: Config): void;
  stop(): void;
}

export interface StreamsOptions {
  cache: QuoteCache;
  log: Logger;
  now: () => Date;
  fetch: typeof globalThis.fetch;
  env: Readonly<Record<string, string | undefined>>;
  /** Starts a build for moves of these sources (named `<source> (stream)` in the build line). */
  build: (started: string[]) => void;
  /** The service's metrics: the builds moves asked for are counted there. */
  registry: Registry;
}

/** The build's bid and ask of each streamed pair (null: it had none), from its sources' stream reports. */
function builtValues(report: BuildReport): Map<string, { bid: number; ask: number } | null> {
  const values = new Map<string, { bid: number; ask: number } | null>();
  for (const source of report.sources)
    for (const entry of source.stream?.pairs ?? [])
      values.set(
        bandKey(source.name, entry.pair),
        entry.bid === undefined || entry.ask === undefined ? null : { bid: Number(entry.bid), ask: Number(entry.ask) },
      );
  return values;
}

export function openStreams(options: StreamsOptions): ServiceStreams {
  const { log, now, fetch, env } = options;
  const hub = StreamHub.attach(options.cache, { log, now, fetch, env });
  let bands: MoveBands = new Map();
  let values = new Map<string, { bid: number; ask: number } | null>();
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let lastStart = Number.NEGATIVE_INFINITY;
  let stopped = false;
  const asked = new Counter({
    name: 'ratefile_move_builds_total',
    help: 'Builds a streamed quote asked for by moving a published number (one at a time: asked while one runs, it follows it).',
    registers: [options.registry],
  });

  /** Whether a quote may change a published number: outside its band, or new since the build. */
  const moves = (source: string, quote: Quote): boolean => {
    const key = bandKey(source, quote.pair);
    const [bid, ask] = [quote.bid.toNumber(), quote.ask.toNumber()];
    const band = bands.get(key);
    if (band) return movesOut(band, bid, ask);
    // A pair the build had no quote of (or a source it did not stream yet): what it brings is new. Otherwise no
    // published number reads it.
    return !values.get(key);
  };
  const fire = () => {
    timer = undefined;
    if (stopped || pending.size === 0) return;
    lastStart = performance.now();
    const started = [...pending].sort().map((name) => `${name} (stream)`);
    pending.clear();
    asked.inc();
    options.build(started);
  };
  const request = (source: string) => {
    pending.add(source);
    if (timer || stopped) return;
    const interval = Math.min(...[...pending].map((name) => hub.settingsOf(name)?.minIntervalMs ?? 0));
    const wait = lastStart + interval - performance.now();
    if (wait <= 0) fire();
    else timer = setTimeout(fire, wait);
  };
  hub.onQuote((source, quote) => {
    if (moves(source, quote)) request(source);
  });
  return {
    hub,
    target: (config) => hub.target(config),
    built(report, config) {
      const streamed = new Set(config.sources.filter((source) => streamSettings(source, env)).map((s) => s.name));
      if (streamed.size === 0) return;
      bands = report.book
        ? moveBands({
            published: report.directions.published,
            markups: config.exports.map((e) => e.markup),
            derivations: report.rates,
            book: report.book,
            streamed,
          })
        : new Map();
      values = builtValues(report);
      // Ticks that came while it ran were judged by the bands before it: judged again by its own.
      for (const [source, quote] of hub.latest()) if (moves(source, quote)) request(source);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      hub.close();
    },
  };
}
