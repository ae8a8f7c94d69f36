// Reserves read from the back office put into the directions that take them, before pricing. Pure: the readings and
// the directions in; each direction with its reserve (and limits) from the source, or withheld with the reason.
import { type Decimal, roundDown, roundUp } from '../../base/decimal.js';
import { formulaReserve, shapeReserve } from './shape.js';
import { eachDirection } from './each.js';
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

/** What a build puts into a direction: the reserve (and limits) read or made, and the margin and words of its shape. */
interface Reading {
  entry: ReserveEntry;
  margin?: Decimal;
  words?: readonly string[];
}

function withReading(direction: Direction, { entry, margin, words }: Reading): Direction {
  const values = [entry.reserve, entry.min ?? '', entry.max ?? '', margin ?? '', ...(words ?? [])].join('|');
  const known = withReadings.get(direction);
  if (known?.values === values) return known.direction;
  const { to } = direction;
  const made: Direction = {
    ...direction,
    reserve: roundDown(entry.reserve, to.precision),
    ...(entry.min === undefined ? {} : { min: { value: roundUp(entry.min, to.precision), asset: to.asset } }),
    ...(entry.max === undefined ? {} : { max: { value: roundDown(entry.max, to.precision), asset: to.asset } }),
    ...(margin === undefined ? {} : { margin }),
    ...(words === undefined || words.length === 0 ? {} : { reserveMade: words }),
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
  return eachDirection(directions, (direction) => {
    const shaped =
      direction.reserveFormula !== undefined ||
      direction.reserveCap !== undefined ||
      direction.reserveMargins !== undefined;
    if (direction.reserveSource === undefined && !shaped) return direction;
    const read = readingOf(direction, book);
    return 'reason' in read ? read : withReading(direction, read);
  });
}

/** The to currency's entry of the direction's reserve source, or the reserve its formula makes, or the configured one; then shaped. */
function readingOf(direction: Direction, book: ReserveBook): Reading | { kind: 'reserve' | 'paused'; reason: string } {
  const { to } = direction;
  const name = direction.reserveSource;
  let entry: ReserveEntry = { reserve: direction.reserve, enabled: true };
  let words: string[] = [];
  if (direction.reserveFormula !== undefined) {
    const made = formulaReserve(direction, book);
    if ('reason' in made) return made;
    entry = { reserve: made.reserve, enabled: true };
    words = made.words;
  } else if (name !== undefined) {
    const reading = book.get(name);
    if (!reading) return { kind: 'reserve', reason: `reserve of ${to.code} from ${name}: not read` };
    if ('error' in reading) return { kind: 'reserve', reason: `reserve of ${to.code} from ${name}: ${reading.error}` };
    const checked = checkEntry(to.code, reading.entries.get(to.code));
    if (typeof checked === 'string')
      return { kind: 'reserve', reason: `reserve of ${to.code} from ${name}: ${checked}` };
    if (!checked.enabled) return { kind: 'paused', reason: `switched off by ${name} (${to.code} enabled: false)` };
    entry = checked;
  }
  if (direction.reserveCap === undefined && direction.reserveMargins === undefined)
    return { entry, ...(words.length > 0 ? { words } : {}) };
  const shaped = shapeReserve(direction, entry.reserve, words);
  if ('reason' in shaped) return shaped;
  return { entry: { ...entry, reserve: shaped.reserve }, margin: shaped.margin, words: shaped.words };
}
