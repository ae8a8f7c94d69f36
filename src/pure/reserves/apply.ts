// Reserves read from the back office put into the directions that take them, before pricing. Pure: the readings and
// the directions in; each direction with its reserve (and limits) from the source, or withheld with the reason.
import { roundDown, roundUp } from '../../base/decimal.js';
import type { Direction } from '../../model/config.js';
import { checkEntry, type ReserveEntry } from './entry.js';
import type { ReserveBook } from '../../model/reserve-source.js';
import type { WithheldDirection } from '../../model/priced.js';

/**
 * The last copy of each direction with a reading put in, and the reading's values as text. The same values give
 * the same object build after build, so what pricing remembers per direction object (its plan: keys, group) is
 * not worked out again for every direction on a reserve source at every build. Keyed by the loaded config's
 * direction, which is never changed in place; a reloaded config's directions are new keys, the old ones freed.
 */
const withReadings = new WeakMap<Direction, { values: string; direction: Direction }>();

function withReading(direction: Direction, entry: ReserveEntry): Direction {
  const values = `${entry.reserve.toString()}|${entry.min?.toString() ?? ''}|${entry.max?.toString() ?? ''}`;
  const known = withReadings.get(direction);
  if (known?.values === values) return known.direction;
  const { to } = direction;
  const made: Direction = {
    ...direction,
    reserve: roundDown(entry.reserve, to.precision),
    ...(entry.min === undefined ? {} : { min: { value: roundUp(entry.min, to.precision), asset: to.asset } }),
    ...(entry.max === undefined ? {} : { max: { value: roundDown(entry.max, to.precision), asset: to.asset } }),
  };
  withReadings.set(direction, { values, direction: made });
  return made;
}

/**
 * A direction whose reserve comes from a source gets the entry of its to currency: the reserve (rounded down to
 * the currency's places, like a configured one), and the source's min/max (in the to currency, min rounded up and
 * max down) in place of the configured ones. Unreadable, invalid or missing: withheld, kind `reserve`; switched off
 * (`enabled: false`): withheld, kind `paused`.
 */
export function applyReserves(
  directions: readonly Direction[],
  book: ReserveBook,
): { directions: Direction[]; withheld: WithheldDirection[] } {
  const kept: Direction[] = [];
  const withheld: WithheldDirection[] = [];
  for (const direction of directions) {
    const name = direction.reserveSource;
    if (name === undefined) {
      kept.push(direction);
      continue;
    }
    const { to } = direction;
    const reading = book.get(name);
    const withhold = (kind: 'reserve' | 'paused', reason: string) => withheld.push({ direction, kind, reason });
    if (!reading) withhold('reserve', `reserve of ${to.code} from ${name}: not read`);
    else if ('error' in reading) withhold('reserve', `reserve of ${to.code} from ${name}: ${reading.error}`);
    else {
      const entry = checkEntry(to.code, reading.entries.get(to.code));
      if (typeof entry === 'string') withhold('reserve', `reserve of ${to.code} from ${name}: ${entry}`);
      else if (!entry.enabled) withhold('paused', `switched off by ${name} (${to.code} enabled: false)`);
      else kept.push(withReading(direction, entry));
    }
  }
  return { directions: kept, withheld };
}
