// guardDirections: hold back what cannot be kept correct (hours, stale quotes, insane values, jumps). Pure.
import { Decimal } from '../../base/decimal.js';
import { isOpen, type HoursWindow } from '../../base/hours.js';
import type { Config } from '../../model/config.js';
import { priceDirection } from '../pricing/price.js';
import type { QuoteBook } from '../../model/source.js';
import type { ChainStep, PricedDirection, WithheldDirection, WithheldKind } from '../../model/priced.js';
import { answersBehind } from '../rates/answers.js';
import { decideJump, type LastRate, type Move, type PendingJump } from './jump.js';

export type { LastRate, PendingJump } from './jump.js';

/** Kept between builds (and restarts): the last published rate of each direction and jumps being confirmed. */
export interface GuardState {
  /** `file`: read from the export files on disk (no build of this state published it), see `lastExports`. */
  published: Record<string, LastRate>;
  pending: Record<string, PendingJump>;
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
  /**
   * The rates the export files on disk (or their S3 copies) publish, by direction id: the last published rate of a
   * direction guard.json does not know and no independent reference checks, so a first rate is bounded too.
   */
  lastExports?: ReadonlyMap<string, LastRate>;
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
  jumps?: Map<string, Move | undefined>;
  /** Shared by the directions published at this rate (entries are never changed in place). */
  entry?: LastRate;
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
  private readonly answers = new Map<readonly ChainStep[], string[]>();

  /** maxJump for exact products (see withinJump), and 1 + hardJump. */
  private readonly maxJump: Decimal;
  private readonly hardRatio: Decimal;

  /** Whether a move within maxJump can be past the hard bound (a drop, when hardJump < maxJump ÷ (1 − maxJump)). */
  private readonly hardWithin: boolean;

  constructor(private readonly input: GuardInput) {
    const { maxJump, hardJump } = input.guards;
    this.maxJump = new Exact(maxJump);
    this.hardRatio = new Exact(hardJump).plus(1);
    this.hardWithin = maxJump.greaterThanOrEqualTo(1) || hardJump.lessThan(maxJump.div(new Decimal(1).minus(maxJump)));
  }

  /** The answers behind a chain's quotes, sorted. */
  answersOf(steps: readonly ChainStep[]): string[] {
    let known = this.answers.get(steps);
    if (!known) this.answers.set(steps, (known = answersBehind(steps.map((step) => step.quote))));
    return known;
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

  /** How far a rate moved from a last published rate (by its text), when more than maxJump or past the hard bound. */
  jumpOf(rate: Decimal, known: RateCheck, last: string): Move | undefined {
    const jumps = (known.jumps ??= new Map());
    if (jumps.has(last)) return jumps.get(last);
    const previous = new Decimal(last);
    const moved = rate.minus(previous).abs();
    // Most moves are small: within maxJump, which (with the default bounds) is within the hard bound too.
    if (!this.hardWithin && withinJump(moved, previous, this.maxJump)) return this.remember(jumps, last, undefined);
    // Past the ratio either way, told without dividing: rate > last × (1 + hardJump), or rate × (1 + hardJump) < last.
    const hard =
      previous.greaterThan(0) &&
      (rate.greaterThan(this.hardRatio.times(previous)) || this.hardRatio.times(rate).lessThan(previous));
    if (!hard && withinJump(moved, previous, this.maxJump)) return this.remember(jumps, last, undefined);
    const move = moved.div(previous);
    const jump = hard || move.greaterThan(this.input.guards.maxJump);
    return this.remember(jumps, last, jump ? { move, ratio: rate.div(previous), hard } : undefined);
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
    const last = lastRateOf(input, priced);
    // An unchanged rate needs no arithmetic; a changed one is held back when it moved by more than maxJump.
    const moved = last && last.rate !== rateText ? checks.jumpOf(priced.rate, check, last.rate) : undefined;
    const accepted = input.accepted.has(id);
    if (accepted) acceptedUsed.add(id);
    if (last && moved) {
      const pending = input.state.pending[id];
      const answers = checks.answersOf(priced.steps);
      const outcome = decideJump({ priced, rateText, last, moved, answers, pending, accepted, guards: input.guards });
      if (!outcome.publish) {
        state.pending[id] = outcome.pending;
        withheld.push(outcome.withheld);
        continue;
      }
    }
    state.published[id] = check.entry ??= { rate: rateText, at };
    published.push(priced);
  }
  // Directions not published now keep their last published rate (a jump is measured from it when they return), and
  // those the export files on disk publish are kept with it: the next build's files will not have them.
  for (const last of [input.state.published, Object.fromEntries(input.lastExports ?? [])]) {
    for (const id in last) {
      // A hand-edited file's "__proto__" key is no direction's, and assigning it would replace the prototype.
      if (id !== '__proto__' && !Object.hasOwn(state.published, id)) state.published[id] = last[id]!;
    }
  }
  return { published, withheld, state, acceptedUsed: [...acceptedUsed] };
}

/**
 * The rate a jump is measured from: guard.json's; for a direction it does not know, the one the export files on
 * disk publish, unless an independent reference checks the direction (it then decides a first rate).
 */
function lastRateOf(input: GuardInput, priced: PricedDirection): LastRate | undefined {
  const { id } = priced.direction;
  const last = input.state.published[id] ?? input.lastExports?.get(id);
  return last?.file !== undefined && priced.reference !== undefined ? undefined : last;
}
