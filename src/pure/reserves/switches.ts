// Labels and the on/off switch from the back office (`switchesFrom:`), put into the directions that take them before
// reserves and pricing. Pure: the readings and the directions in; each direction with the labels its entry gives
// (in place of the config's `params`), or withheld: switched off (kind `paused`), or no usable entry (kind `reserve`).
import { type Label, labels as knownLabels } from '../../base/config/fields.js';
import type { Direction } from '../../model/config.js';
import type { WithheldDirection } from '../../model/priced.js';
import type { ReserveBook } from '../../model/reserve-source.js';
import { isRecord, shown } from '../sources/values.js';
import { EntryProblem, enabledOf } from './entry.js';
import { eachDirection, type StepOutcome } from './each.js';

/**
 * The last copy of each direction with its back-office labels, and those labels: the same labels give the same
 * object build after build, so what later steps remember per direction object (the reserve's copy, pricing's plan)
 * is not made again. Keyed by the loaded config's direction, never changed in place.
 */
const switchedCopies = new WeakMap<Direction, { labels: string; direction: Direction }>();

/**
 * A `labels` field: "manual,verifying" (commas or spaces), a list, or a PostgreSQL array as the sql source reads it
 * (its text, `{manual,verifying}`); absent or null: the config's `params`.
 */
export function labelsOf(key: string, value: unknown): readonly Label[] | undefined | string {
  if (value === undefined || value === null) return undefined;
  const words =
    typeof value === 'string'
      ? value.replace(/^\{(.*)\}$/s, '$1').split(/[\s,;]+/)
      : Array.isArray(value) && value.every((item) => typeof item === 'string')
        ? (value as string[])
        : undefined;
  if (words === undefined) return `${key}: labels ${shown(value)} is not a text like "manual,verifying" or a list`;
  const given = new Set(words.map((word) => word.trim().toLowerCase()).filter((word) => word !== ''));
  const unknown = [...given].filter((word) => !(knownLabels as readonly string[]).includes(word));
  if (unknown.length > 0)
    return `${key}: label ${shown(unknown[0])} is not one of ${knownLabels.join(', ')} (labels ${shown(value)})`;
  // In BestChange's order, whatever order the back office keeps them in: the same labels publish the same bytes.
  return knownLabels.filter((label) => given.has(label));
}

/** The entry of one direction, checked: on or off, and its labels when the entry gives them. */
export function checkSwitch(key: string, raw: unknown): { enabled: boolean; labels?: readonly Label[] } | string {
  if (raw === undefined) return `no entry for ${key}`;
  if (raw instanceof EntryProblem) return `${key}: ${raw.reason}`;
  if (!isRecord(raw)) return `${key}: ${shown(raw)} is not a mapping with enabled and/or labels`;
  if (raw.enabled === undefined && raw.labels === undefined) return `${key}: neither enabled nor labels`;
  const enabled = enabledOf(key, raw.enabled);
  if (typeof enabled === 'string') return enabled;
  const labels = labelsOf(key, raw.labels);
  if (typeof labels === 'string') return labels;
  return labels === undefined ? { enabled } : { enabled, labels };
}

const listed = (labels: readonly string[]) => (labels.length === 0 ? 'none' : labels.join(', '));

/** The direction with the back office's labels (and the manual hours they bring or drop), the same copy for the same labels. */
function withLabels(direction: Direction, source: string, labels: readonly Label[] | undefined): Direction {
  const params = labels ?? direction.params;
  const key = labels === undefined ? '(config)' : params.join(',');
  const known = switchedCopies.get(direction);
  if (known?.labels === key) return known.direction;
  const words = [
    labels === undefined
      ? `Switch and labels from ${source}: ${direction.id} on, no labels given (the config's stand: ${listed(params)})`
      : `Switch and labels from ${source}: ${direction.id} on, labels ${listed(labels)} (in place of the config's: ${listed(direction.params)})`,
  ];
  const { hours, ...rest } = direction;
  const made: Direction = { ...rest, params, switched: words };
  // Hours of its own stand; the config's manualHours follow the `manual` label, as for a direction configured so.
  if (direction.manualHours === undefined) {
    if (hours !== undefined) (made as { hours?: Direction['hours'] }).hours = hours;
  } else if (params.includes('manual')) {
    (made as { hours?: Direction['hours'] }).hours = direction.manualHours;
    words.push("Working hours: the config's manualHours, as a manual direction");
  }
  switchedCopies.set(direction, { labels: key, direction: made });
  return made;
}

/**
 * A direction with `switchesFrom` gets its source's entry under its id (`BTC>SBERRUB`): `enabled: false` withholds
 * it (kind `paused`, like the reserves' switch); its `labels`, when given, replace the config's `params` for this
 * build. An unreadable source (past its `maxAge`: fetch.ts keeps the last good reading until then), a missing or
 * invalid entry: withheld, kind `reserve`, the reason naming the source.
 */
export function applySwitches(
  directions: readonly Direction[],
  book: ReserveBook,
): { directions: Direction[]; withheld: WithheldDirection[] } {
  return eachDirection(directions, (direction) => {
    const source = direction.switchesFrom;
    if (source === undefined) return direction;
    const why = (text: string): StepOutcome => ({
      kind: 'reserve',
      reason: `labels and switch of ${direction.id} from ${source}: ${text}`,
    });
    const reading = book.get(source);
    if (!reading) return why('not read');
    if ('error' in reading) return why(reading.error);
    const checked = checkSwitch(direction.id, reading.entries.get(direction.id));
    if (typeof checked === 'string') return why(checked);
    if (!checked.enabled)
      return { kind: 'paused', reason: `switched off by ${source} (${direction.id} enabled: false)` };
    return withLabels(direction, source, checked.labels);
  });
}
