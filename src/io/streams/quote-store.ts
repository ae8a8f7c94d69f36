// The quotes a streamed source holds between builds: per configured pair the latest, fed by the stream or by REST,
// and the pairs the venue refused to stream; what a build reads of them (src/io/streams/feed.ts keeps it).
import { formatDecimal } from '../../base/decimal.js';
import type { Quote } from '../../model/source.js';
import type { PairSymbol } from '../../pure/sources/values.js';
import type { StreamReport } from '../../pure/status/report.js';
import type { LiveResult } from '../quotes/quote-cache.js';

interface Latest {
  quote: Quote;
  /** When it arrived (the clock's ms). */
  receivedAt: number;
}

const fedBy = (quote: Quote): 'stream' | 'rest' => (quote.streamSeq === undefined ? 'rest' : 'stream');

export class QuoteStore {
  readonly pairs: readonly PairSymbol[];
  readonly #latest = new Map<string, Latest>();
  readonly #refused = new Map<string, string>();

  constructor(pairs: readonly PairSymbol[]) {
    this.pairs = pairs;
  }

  get size(): number {
    return this.#latest.size;
  }

  latest(pair: string): Quote | undefined {
    return this.#latest.get(pair)?.quote;
  }

  /** A quote the stream sent: it is the pair's now, and the pair is streamed after all if it was refused. */
  streamed(quote: Quote, receivedAt: number): void {
    this.#latest.set(quote.pair, { quote, receivedAt });
    this.#refused.delete(quote.pair);
  }

  /**
   * A quote a REST answer gave: the pair's now unless the stream's is newer and its connection is up (`streamUp`).
   * Returns whether it was taken.
   */
  answered(quote: Quote, receivedAt: number, streamUp: boolean): boolean {
    const held = this.#latest.get(quote.pair)?.quote;
    const streamNewer = held?.streamSeq !== undefined && held.time.getTime() > quote.time.getTime();
    if (held && streamUp && streamNewer) return false;
    this.#latest.set(quote.pair, { quote, receivedAt });
    return true;
  }

  /** The stream's quote of a pair can no longer be trusted (it sent garbage for it): REST feeds it until it ticks. */
  distrust(pair: string): void {
    if (this.#latest.get(pair)?.quote.streamSeq !== undefined) this.#latest.delete(pair);
  }

  refuse(pair: string, message: string): void {
    this.#refused.set(pair, message);
  }

  refused(pair: string): string | undefined {
    return this.#refused.get(pair);
  }

  /** What a build reads: every pair's quote in use, one line per pair without one, and each pair's state. */
  snapshot(stream: Omit<StreamReport, 'pairs'>, restProblem: string | undefined): LiveResult {
    const quotes: Quote[] = [];
    const rejected: string[] = [];
    let fetchedAt = 0;
    const pairs: StreamReport['pairs'] = this.pairs.map(({ pair }) => {
      const latest = this.#latest.get(pair);
      const refused = this.#refused.get(pair);
      const state = refused === undefined ? {} : { refused };
      if (!latest) {
        rejected.push(
          `${pair}: nothing from the stream yet, and REST has not answered for it${restProblem === undefined ? '' : ` (${restProblem})`}`,
        );
        return { pair, ...state };
      }
      quotes.push(latest.quote);
      fetchedAt = Math.max(fetchedAt, latest.receivedAt);
      const { quote } = latest;
      const sides = { bid: formatDecimal(quote.bid), ask: formatDecimal(quote.ask) };
      return { pair, fed: fedBy(quote), ...sides, time: quote.time.toISOString(), ...state };
    });
    return { quotes, rejected, fetchedAt, stream: { ...stream, pairs } };
  }
}
