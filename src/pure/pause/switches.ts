// Switches: directions the operator paused (`ratefile pause`) or the back office turned off (`enabled: false`
// in a reserve source). Pure: the pauses and the clock in, the directions still to price and those paused out.
import type { Direction } from '../../model/config.js';
import type { WithheldDirection } from '../../model/priced.js';

export interface Pause {
  /** `FROM>TO`. */
  direction: string;
  /** Only this city of a cash direction; absent: the whole direction. */
  city?: string;
  /** ISO time it was paused. */
  since: string;
  /** ISO time it ends by itself; absent: until resumed. */
  until?: string;
  reason?: string;
}

/** A pause is in force from the moment it is written until its `until` (exclusive). */
export const inForce = (pause: Pause, now: Date): boolean =>
  pause.until === undefined || Date.parse(pause.until) > now.getTime();

function wording(pause: Pause): string {
  const until = pause.until === undefined ? '' : ` until ${pause.until}`;
  return `${pause.reason ?? 'paused'}${until} (since ${pause.since})`;
}

/**
 * Take paused directions out before pricing. A whole-direction pause withholds it (kind `paused`); city
 * pauses drop those cities from a cash direction and withhold it only when no city is left. A direction with
 * some cities paused is published for the others and also listed as paused, naming the cities.
 */
export function applyPauses(
  directions: readonly Direction[],
  pauses: readonly Pause[],
  now: Date,
): { directions: Direction[]; withheld: WithheldDirection[] } {
  const active = pauses.filter((pause) => inForce(pause, now));
  if (active.length === 0) return { directions: [...directions], withheld: [] };
  const byDirection = new Map<string, Pause[]>();
  for (const pause of active)
    (byDirection.get(pause.direction) ?? byDirection.set(pause.direction, []).get(pause.direction)!).push(pause);
  const kept: Direction[] = [];
  const withheld: WithheldDirection[] = [];
  for (const direction of directions) {
    const found = byDirection.get(direction.id);
    if (!found) {
      kept.push(direction);
      continue;
    }
    const whole = found.find((pause) => pause.city === undefined);
    if (whole) {
      withheld.push({ direction, kind: 'paused', reason: `paused: ${wording(whole)}` });
      continue;
    }
    const cityPauses = found.filter((pause) => direction.cities.includes(pause.city!));
    if (cityPauses.length === 0) {
      kept.push(direction);
      continue;
    }
    const paused = new Set(cityPauses.map((pause) => pause.city!));
    const cities = direction.cities.filter((city) => !paused.has(city));
    const reason = `paused in ${cityPauses.map((pause) => `${pause.city}: ${wording(pause)}`).join('; ')}`;
    withheld.push({
      direction,
      kind: 'paused',
      reason: cities.length === 0 ? reason : `${reason}; published for ${cities.join(', ')}`,
    });
    if (cities.length > 0) kept.push({ ...direction, cities });
  }
  return { directions: kept, withheld };
}
