// guardDirections: hold back what cannot be kept correct (hours, stale quotes, insane values, jumps). Pure.
import { Decimal } from '../../base/decimal.js';
import { isOpen, type HoursWindow } from '../../base/hours.js';
import type { Config } from '../../model/config.js';
import { priceDirection } from '../pricing/price.js';
import type { QuoteBook } from '../../model/source.js';
import type { ChainStep, PricedDirection, WithheldDirection, WithheldKind } from '../../model/priced.js';
import { percent, show } from '../../base/words.js';

/** Kept between builds (and restarts): the last published rate of each direction and jumps being confirmed. */
export interface GuardState {
  published: Record<string, { rate: string; at: string }>;
  pending: Record<string, { rate: string; builds: number }>;
}

export const emptyGuardState = (): GuardState => ({ published: {}, pending: {} });

export interface GuardInput {
  priced: readonly PricedDirection[];
  now: Date;
  state: GuardState;
  /** Directions (`FROM>TO`) the operator accepted with `ratefile accept`: their jump is published at once. */
  accepted: ReadonlySet<string>;
  guards: Config['guards'];
  /** Maximum quote age per source name, in milliseconds; undefined means no limit. */
  maxAgeMs: (source: string) => number | undefined;
}

export interface GuardResult {
  published: PricedDirection[];
  withheld: WithheldDirection[];
  state: GuardState;
  /** Accept requests that were used (a jump published) or no longer needed. */
  acceptedUsed: string[];
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

type Problem = { kind: WithheldKind; reason: string } | undefined;

/** What the guards know of one rate object: its text, whether it is sane, its jumps from last rates, its state entry. */
interface RateCheck {
  text: string;
  problem: Problem;
  jumps?: Map<string, Decimal | undefined>;
  /** Shared by the directions published at this rate (entries are never changed in place). */
  entry?: { rate: string; at: string };
}

/**
 * What the guards work out once per shared object within one call rather than per direction: directions sharing
 * an asset pair and margin share one rate object and one steps array (see priceDirections), and directions
 * sharing defaults share one hours list. Nothing outlives the call, so nothing can go stale.
 */
class SharedChecks {
  private readonly hours = new Map<readonly HoursWindow[], Problem>();
  private readonly quotes = new Map<readonly ChainStep[], Problem>();
  private readonly rates = new Map<Decimal, RateCheck>();

  /** maxJump for exact products (see withinJump). */
  private readonly maxJump: Decimal;

  constructor(private readonly input: GuardInput) {
    this.maxJump = new Exact(input.guards.maxJump);
  }

  /** Why a priced direction must not be published now, not counting its rate (see `rate`) nor jumps; undefined when it may. */
  problemOf(priced: PricedDirection): Problem {
    const { hours } = priced.direction;
    if (hours) {
      const closed = this.hours.has(hours)
        ? this.hours.get(hours)
        : this.remember(this.hours, hours, hoursProblem(hours, this.input.now));
      if (closed) return closed;
    }
    // Limits and reserve were checked by priceDirection, which withholds what fails them.
    return this.quotes.has(priced.steps)
      ? this.quotes.get(priced.steps)
      : this.remember(this.quotes, priced.steps, staleProblem(priced.steps, this.input));
  }

  /** The rate as the state keeps it, and whether it is a positive number. */
  rate(rate: Decimal): RateCheck {
    let known = this.rates.get(rate);
    if (!known) {
      const problem: Problem =
        !rate.isFinite() || rate.lessThanOrEqualTo(0)
          ? { kind: 'sanity', reason: `rate ${rate.toString()} is not a positive number` }
          : undefined;
      this.rates.set(rate, (known = { text: rate.toString(), problem }));
    }
    return known;
  }

  /** How far a rate moved from a last published rate (by its text), when that is more than maxJump. */
  jumpOf(rate: Decimal, known: RateCheck, last: string): Decimal | undefined {
    const jumps = (known.jumps ??= new Map());
    if (jumps.has(last)) return jumps.get(last);
    const previous = new Decimal(last);
    const moved = rate.minus(previous).abs();
    if (withinJump(moved, previous, this.maxJump)) return this.remember(jumps, last, undefined);
    const jump = moved.div(previous);
    return this.remember(jumps, last, jump.greaterThan(this.input.guards.maxJump) ? jump : undefined);
  }

  private remember<K, V>(map: Map<K, V>, key: K, value: V): V {
    map.set(key, value);
    return value;
  }
}

/** Products of two numbers of the working precision, never rounded. */
const Exact = Decimal.clone({ precision: 2 * Decimal.precision });

/**
 * Whether `moved ÷ previous`, as the guard divides it, is at most `maxJump`, told without the division (most rates
 * move a little): when `moved` ≤ `maxJump × previous` exactly, the quotient is at most maxJump, and so is its
 * rounding to the working precision, since maxJump is a number of that precision. False means: divide.
 */
export function withinJump(moved: Decimal, previous: Decimal, maxJump: Decimal): boolean {
  if (
    !previous.isFinite() ||
    !previous.greaterThan(0) ||
    previous.sd() > Decimal.precision ||
    maxJump.sd() > Decimal.precision
  )
    return false;
  // Every decimal.js clone answers instanceof for any Decimal: the constructor tells which precision multiplies.
  return moved.lessThanOrEqualTo((maxJump.constructor === Exact ? maxJump : new Exact(maxJump)).times(previous));
}

function hoursProblem(hours: readonly HoursWindow[], now: Date): Problem {
  return isOpen(hours, now)
    ? undefined
    : { kind: 'hours', reason: `outside working hours (${hours.map((h) => h.text).join('; ')})` };
}

function staleProblem(steps: readonly ChainStep[], { now, maxAgeMs }: Pick<GuardInput, 'now' | 'maxAgeMs'>): Problem {
  for (const step of steps) {
    const limit = maxAgeMs(step.quote.source);
    const age = now.getTime() - step.quote.time.getTime();
    if (limit !== undefined && age > limit)
      return {
        kind: 'stale',
        reason: `quote ${step.pair} from ${step.quote.source} is ${seconds(age)} old (limit ${seconds(limit)})`,
      };
  }
  return undefined;
}

/**
 * Stale quotes are out of the book a build prices on (fetchQuotes), so a direction only a stale quote would price
 * comes back unpriced, kind `quote`. Priced again on the book with them (`withStale`), never to be published:
 * when a chain step is stale it is held back in the guards' words, out of hours first, then the stale quote.
 */
export function staleHold(
  unpriced: WithheldDirection,
  withStale: QuoteBook,
  now: Date,
  maxAgeMs: GuardInput['maxAgeMs'],
): WithheldDirection | undefined {
  if (unpriced.kind !== 'quote') return undefined;
  const again = priceDirection(unpriced.direction, withStale);
  if ('reason' in again) return undefined;
  const stale = staleProblem(again.steps, { now, maxAgeMs });
  if (!stale) return undefined;
  const { hours } = unpriced.direction;
  return { direction: unpriced.direction, ...((hours && hoursProblem(hours, now)) ?? stale) };
}

export function guardDirections(input: GuardInput): GuardResult {
  // Filled as directions are published, then the rest copied: spreading the last state first would write every
  // published direction's key twice.
  const state: GuardState = { published: {}, pending: {} };
  const published: PricedDirection[] = [];
  const withheld: WithheldDirection[] = [];
  const acceptedUsed = new Set<string>();
  const at = input.now.toISOString();
  const checks = new SharedChecks(input);

  for (const priced of input.priced) {
    const { id } = priced.direction;
    const check = checks.rate(priced.rate);
    const problem = checks.problemOf(priced) ?? check.problem;
    if (problem) {
      withheld.push({ direction: priced.direction, ...problem });
      // A pending confirmation survives a direction being off for a while, but does not advance.
      if (input.state.pending[id]) state.pending[id] = input.state.pending[id];
      continue;
    }
    const rateText = check.text;
    const last = input.state.published[id];
    // An unchanged rate needs no arithmetic; a changed one is held back when it moved by more than maxJump.
    const jump = last && last.rate !== rateText ? checks.jumpOf(priced.rate, check, last.rate) : undefined;
    if (last && jump) {
      // The new rate must be seen again: a rate still moving by more than maxJump starts the count over.
      const pending = input.state.pending[id];
      const steady =
        pending !== undefined &&
        priced.rate.minus(pending.rate).abs().lessThanOrEqualTo(input.guards.maxJump.times(pending.rate));
      const builds = steady ? pending.builds + 1 : 1;
      if (input.accepted.has(id)) {
        acceptedUsed.add(id);
      } else if (builds < input.guards.confirmBuilds) {
        state.pending[id] = { rate: rateText, builds };
        withheld.push({
          direction: priced.direction,
          kind: 'jump',
          reason: `rate moved ${percent(jump.toDecimalPlaces(4))} from the last published ${show(new Decimal(last.rate))}; seen on ${builds} of ${input.guards.confirmBuilds} builds (ratefile accept ${priced.direction.from.code} ${priced.direction.to.code} to publish now)`,
        });
        continue;
      }
    }
    if (input.accepted.has(id)) acceptedUsed.add(id);
    state.published[id] = check.entry ??= { rate: rateText, at };
    published.push(priced);
  }
  // Directions not published now keep their last published rate (a jump is measured from it when they return).
  for (const id in input.state.published) {
    // A hand-edited file's "__proto__" key is no direction's, and assigning it would replace the prototype.
    if (id !== '__proto__' && !Object.hasOwn(state.published, id)) state.published[id] = input.state.published[id]!;
  }
  return { published, withheld, state, acceptedUsed: [...acceptedUsed] };
}
