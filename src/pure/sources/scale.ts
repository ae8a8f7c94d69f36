// Units and scale mistakes where they enter: an answer whose every quote is about a power of ten (|exponent| ≥ 2:
// kopecks, cents, satoshi, "per 1000" quotes) off the same pairs of the source's last accepted answer is refused as a
// whole, before it reaches the quote book. The last accepted answer of each source is its yardstick. Pure.
import { Decimal, formatDecimal } from '../../base/decimal.js';
import type { Quote } from '../../model/source.js';

/** A source's last accepted answer: when, and each pair's mid price ((bid + ask) ÷ 2) as text. */
export interface Yardstick {
  at: string;
  mids: Record<string, string>;
}

/** Pairs kept of one answer: enough for any venue's quotes a config asks for, bounded for a feed of thousands. */
export const YARDSTICK_PAIRS = 2000;

/**
 * A yardstick older than this measures nothing: a source that keeps its new scale for a day (a redenomination) is
 * taken again, and the jump guard then holds each rate it moved past the hard bound until `ratefile accept`.
 */
export const YARDSTICK_LIFETIME_MS = 24 * 3_600_000;

/** How far "about" a power of ten reaches: every ratio within ±25% of the same 10^k. */
export const SCALE_TOLERANCE = new Decimal('0.25');

const LOW = new Decimal(1).minus(SCALE_TOLERANCE);
const HIGH = new Decimal(1).plus(SCALE_TOLERANCE);

const midOf = (quote: Pick<Quote, 'bid' | 'ask'>) => quote.bid.plus(quote.ask).div(2);

/** The yardstick an accepted answer leaves: its first YARDSTICK_PAIRS pairs' mids. */
export function yardstickOf(quotes: readonly Quote[], now: Date): Yardstick {
  const mids: Record<string, string> = {};
  let count = 0;
  for (const quote of quotes) {
    if (count >= YARDSTICK_PAIRS) break;
    if (Object.hasOwn(mids, quote.pair)) continue;
    mids[quote.pair] = formatDecimal(midOf(quote).toSignificantDigits(12));
    count++;
  }
  return { at: now.toISOString(), mids };
}

/**
 * The power of ten k that `ratio` is about (ratio ÷ 10^k within [0.75, 1.25]), or undefined when it is about none.
 * Told from the decimal exponent, without logarithms: ratio = c × 10^e, 1 ≤ c < 10, so k is e (c ≤ 1.25) or e + 1 (c ≥ 7.5).
 */
export function powerOfTen(ratio: Decimal): number | undefined {
  if (!ratio.isFinite() || !ratio.greaterThan(0)) return undefined;
  const e = ratio.e;
  const c = ratio.div(new Decimal(10).pow(e));
  if (c.lessThanOrEqualTo(HIGH)) return e;
  if (c.greaterThanOrEqualTo(LOW.times(10))) return e + 1;
  return undefined;
}

/** `×100`, `÷1000`: the factor 10^k in words. */
const factorText = (k: number) => `${k > 0 ? '×' : '÷'}${formatDecimal(new Decimal(10).pow(Math.abs(k)))}`;

/**
 * Why this answer of `source` is refused, or undefined: every pair it shares with the yardstick moved by about the
 * same 10^k, |k| ≥ 2. An answer sharing no pair with it, or a yardstick past its lifetime, refuses nothing.
 */
export function scaleRefusal(
  source: string,
  yardstick: Yardstick | undefined,
  quotes: readonly Quote[],
  now: Date,
): string | undefined {
  if (!yardstick || now.getTime() - Date.parse(yardstick.at) > YARDSTICK_LIFETIME_MS) return undefined;
  let power: number | undefined;
  let first: { pair: string; now: Decimal; was: string } | undefined;
  let shared = 0;
  for (const quote of quotes) {
    const was = Object.hasOwn(yardstick.mids, quote.pair) ? yardstick.mids[quote.pair] : undefined;
    if (was === undefined) continue;
    const mid = midOf(quote);
    const k = powerOfTen(mid.div(was));
    if (k === undefined || Math.abs(k) < 2 || (power !== undefined && k !== power)) return undefined;
    power = k;
    first ??= { pair: quote.pair, now: mid, was };
    shared++;
  }
  if (power === undefined || !first) return undefined;
  const more = shared > 1 ? `, and ${shared - 1} more ${shared === 2 ? 'pair' : 'pairs'} alike` : '';
  return `${source}: every quote is about ${factorText(power)} its last accepted answer (${first.pair} ${formatDecimal(first.now.toSignificantDigits(12))} against ${first.was} at ${yardstick.at}${more}): a unit or scale mistake (kopecks, cents, satoshi, "per 1000" quotes?), the answer is refused as a whole`;
}
