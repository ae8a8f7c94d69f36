// REST as a streamed source's fallback: asked for exactly the pairs the stream does not feed now (its connection is
// down, the venue refused the pair, or the pair has not ticked within a REST period: a venue pushes a change, not the
// absence of one), at once when a connection goes down and every REST period after; never two asks at once, never
// more often than every `minGapMs` however often the stream fails.
import type { Logger } from '../../base/log.js';
import type { Quote } from '../../model/source.js';
import { errorText } from '../quotes/source-ask.js';
import type { QuoteStore } from './quote-store.js';

/** The source's REST answer for these pairs (configured names): its checked quotes and the lines of those dropped. */
export type RestAsk = (pairs: readonly string[]) => Promise<{ quotes: Quote[]; rejected: string[] }>;

export interface RestFallbackOptions {
  store: QuoteStore;
  ask: RestAsk;
  everyMs: number;
  now: () => number;
  /** Whether the connection streaming this pair is up. */
  streamUp: (pair: string) => boolean;
  log: Logger;
  name: string;
  /** Told of each quote taken. */
  taken: (quote: Quote) => void;
  minGapMs?: number;
}

export class RestFallback {
  /** Why the last ask failed, until one succeeds. */
  problem: string | undefined;
  readonly #options: RestFallbackOptions;
  #running = false;
  #lastAt = Number.NEGATIVE_INFINITY;
  #interval: NodeJS.Timeout | undefined;
  #later: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: RestFallbackOptions) {
    this.#options = options;
  }

  start(): void {
    void this.#poll();
    this.#interval = setInterval(() => void this.#poll(), Math.max(this.#options.everyMs, 1_000));
    this.#interval.unref();
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#interval);
    clearTimeout(this.#later);
  }

  /** Asked as soon as the gap since the last ask allows. */
  soon(): void {
    if (this.#stopped || this.#later) return;
    const wait = this.#lastAt + (this.#options.minGapMs ?? 2_000) - this.#options.now();
    this.#later = setTimeout(
      () => {
        this.#later = undefined;
        void this.#poll();
      },
      Math.max(0, wait),
    );
    this.#later.unref();
  }

  /** The pairs the stream does not feed now. */
  needy(): string[] {
    const { store, streamUp, everyMs } = this.#options;
    const now = this.#options.now();
    return store.pairs
      .map(({ pair }) => pair)
      .filter((pair) => {
        const latest = store.latest(pair);
        if (!latest || !streamUp(pair) || store.refused(pair) !== undefined) return true;
        return now - latest.time.getTime() >= everyMs;
      });
  }

  async #poll(): Promise<void> {
    if (this.#stopped || this.#running) return;
    const pairs = this.needy();
    if (pairs.length === 0) return;
    const { store, ask, streamUp, log, name, taken } = this.#options;
    this.#running = true;
    this.#lastAt = this.#options.now();
    try {
      const { quotes } = await ask(pairs);
      const at = this.#options.now();
      for (const quote of quotes) if (store.answered(quote, at, streamUp(quote.pair))) taken(quote);
      if (this.problem !== undefined)
        log.info(`stream: ${name}: REST answers again`, { event: 'stream-rest', source: name, ok: true });
      this.problem = undefined;
    } catch (error) {
      const problem = errorText(error);
      if (problem !== this.problem)
        log.warn(`stream: ${name}: REST fallback failed: ${problem}`, {
          event: 'stream-rest',
          source: name,
          ok: false,
        });
      this.problem = problem;
    } finally {
      this.#running = false;
    }
  }
}
