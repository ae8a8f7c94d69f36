// guardDirections: hold back what cannot be kept correct (hours, stale quotes, insane values, jumps). Pure.
import { Decimal } from './decimal.js';
import { isOpen } from './hours.js';
import type { Config } from './model.js';
import type { PricedDirection, WithheldDirection, WithheldKind } from './pricing.js';

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

/** Why a priced direction must not be published now, not counting jumps; undefined when it may. */
function sanityProblem(priced: PricedDirection, now: Date, maxAgeMs: GuardInput['maxAgeMs']): { kind: WithheldKind; reason: string } | undefined {
  const { direction } = priced;
  if (direction.hours && !isOpen(direction.hours, now)) return { kind: 'hours', reason: `outside working hours (${direction.hours.map((h) => h.text).join('; ')})` };
  for (const step of priced.steps) {
    const limit = maxAgeMs(step.quote.source);
    const age = now.getTime() - step.quote.time.getTime();
    if (limit !== undefined && age > limit) return { kind: 'stale', reason: `quote ${step.pair} from ${step.quote.source} is ${seconds(age)} old (limit ${seconds(limit)})` };
  }
  // Limits and reserve were checked by priceDirection, which withholds what fails them.
  if (!priced.rate.isFinite() || priced.rate.lessThanOrEqualTo(0)) return { kind: 'sanity', reason: `rate ${priced.rate.toString()} is not a positive number` };
  return undefined;
}

export function guardDirections(input: GuardInput): GuardResult {
  const state: GuardState = { published: { ...input.state.published }, pending: {} };
  const published: PricedDirection[] = [];
  const withheld: WithheldDirection[] = [];
  const acceptedUsed = new Set<string>();
  const at = input.now.toISOString();
  // Directions sharing an asset pair and margin share one rate object: its text and its jump from a
  // given last rate are worked out once.
  const rateTexts = new Map<Decimal, string>();
  const textOf = (rate: Decimal) => rateTexts.get(rate) ?? rateTexts.set(rate, rate.toString()).get(rate)!;
  const jumps = new Map<string, Decimal | undefined>();
  const jumpOf = (rate: Decimal, text: string, last: string): Decimal | undefined => {
    const key = `${text}|${last}`;
    if (!jumps.has(key)) {
      const previous = new Decimal(last);
      const jump = rate.minus(previous).abs().div(previous);
      jumps.set(key, jump.greaterThan(input.guards.maxJump) ? jump : undefined);
    }
    return jumps.get(key);
  };

  for (const priced of input.priced) {
    const { id } = priced.direction;
    const problem = sanityProblem(priced, input.now, input.maxAgeMs);
    if (problem) {
      withheld.push({ direction: priced.direction, ...problem });
      // A pending confirmation survives a direction being off for a while, but does not advance.
      if (input.state.pending[id]) state.pending[id] = input.state.pending[id];
      continue;
    }
    const rateText = textOf(priced.rate);
    const last = input.state.published[id];
    // An unchanged rate needs no arithmetic; a changed one is held back when it moved by more than maxJump.
    const jump = last && last.rate !== rateText ? jumpOf(priced.rate, rateText, last.rate) : undefined;
    if (last && jump) {
      // The new rate must be seen again: a rate still moving by more than maxJump starts the count over.
      const pending = input.state.pending[id];
      const steady = pending !== undefined && priced.rate.minus(pending.rate).abs().lessThanOrEqualTo(input.guards.maxJump.times(pending.rate));
      const builds = steady ? pending.builds + 1 : 1;
      if (input.accepted.has(id)) {
        acceptedUsed.add(id);
      } else if (builds < input.guards.confirmBuilds) {
        state.pending[id] = { rate: rateText, builds };
        const percent = jump.times(100).toDecimalPlaces(2).toFixed();
        const previous = new Decimal(last.rate);
        withheld.push({
          direction: priced.direction,
          kind: 'jump',
          reason: `rate moved ${percent}% from the last published ${previous.toSignificantDigits(10).toFixed()}; seen on ${builds} of ${input.guards.confirmBuilds} builds (ratefile accept ${priced.direction.from.code} ${priced.direction.to.code} to publish now)`,
        });
        continue;
      }
    }
    if (input.accepted.has(id)) acceptedUsed.add(id);
    state.published[id] = { rate: rateText, at };
    published.push(priced);
  }
  return { published, withheld, state, acceptedUsed: [...acceptedUsed] };
}
