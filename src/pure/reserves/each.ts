// One back-office step over the directions: each one kept as it is, replaced by a copy with what the back office
// says, or withheld with a kind and a reason. Shared by the switches (switches.ts) and the reserves (apply.ts).
import type { Direction } from '../../model/config.js';
import type { WithheldDirection, WithheldKind } from '../../model/priced.js';

/** What a step makes of one direction: the direction to go on with, or why it is held back. */
export type StepOutcome = Direction | { kind: WithheldKind; reason: string };

export function eachDirection(
  directions: readonly Direction[],
  step: (direction: Direction) => StepOutcome,
): { directions: Direction[]; withheld: WithheldDirection[] } {
  const kept: Direction[] = [];
  const withheld: WithheldDirection[] = [];
  for (const direction of directions) {
    const outcome = step(direction);
    if ('reason' in outcome) withheld.push({ direction, kind: outcome.kind, reason: outcome.reason });
    else kept.push(outcome);
  }
  return { directions: kept, withheld };
}
