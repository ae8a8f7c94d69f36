// The control bot's rate limit: a token bucket per person (and one shared by everyone not on the list, so strangers
// cannot use up an operator's), `commands` per `per`, refilled steadily. Over the limit a command is refused and
// only the first refusal of a run is said, so a flood gets one answer, not one per message. Pure: the caller gives
// the time.

interface Bucket {
  tokens: number;
  at: number;
  /** Whether this run of refusals has been said. */
  told: boolean;
}

export type Taken = 'ok' | 'over, say so' | 'over';

export class RateLimit {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    readonly commands: number,
    readonly perMs: number,
  ) {}

  /** One command by `key` at `at` (ms): allowed, or over the limit (said the first time of a run). */
  take(key: string, at: number): Taken {
    const known = this.#buckets.get(key);
    const refilled = known
      ? Math.min(this.commands, known.tokens + (Math.max(0, at - known.at) * this.commands) / this.perMs)
      : this.commands;
    const bucket: Bucket = { tokens: refilled, at, told: known?.told ?? false };
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      bucket.told = false;
      return 'ok';
    }
    if (bucket.told) return 'over';
    bucket.told = true;
    return 'over, say so';
  }

  /** How long until `key` may command again (ms), for the refusal. */
  waitMs(key: string): number {
    const bucket = this.#buckets.get(key);
    return bucket ? Math.ceil(((1 - bucket.tokens) * this.perMs) / this.commands) : 0;
  }
}
