// One back-office entry, checked: a reserve that is null, negative, not a decimal or missing is a reason to
// withhold, never something to replace with the YAML number.
import { checkDecimalLength, type Decimal, parseDecimal } from '../../base/decimal.js';
import { isRecord, shown } from '../sources/values.js';

export interface ReserveEntry {
  reserve: Decimal;
  min?: Decimal;
  max?: Decimal;
  /** false: the back office switched the currency off (a blocked bank, a wallet being refilled). */
  enabled: boolean;
}

function decimalOf(field: string, value: unknown): Decimal | string {
  if (value === null) return `${field} is null`;
  if (typeof value !== 'string') return `${field} ${shown(value)} is not a number`;
  const tooLong = checkDecimalLength(value.replace(/^-/, ''));
  if (tooLong) return `${field} ${tooLong}`;
  const parsed = /^-?\d+(\.\d+)?$/.test(value) ? parseDecimal(value) : undefined;
  if (!parsed) return `${field} ${shown(value)} is not a number`;
  if (parsed.isNegative()) return `${field} ${value} is negative`;
  return parsed;
}

/** An entry a source could not make sense of (two rows for one code): checking it gives this reason. */
export class EntryProblem {
  constructor(readonly reason: string) {}
}

/** The entry for `code` in a reading (numbers arrive as decimal text from parseJsonExact), or why it is unusable. */
export function checkEntry(code: string, raw: unknown): ReserveEntry | string {
  if (raw === undefined) return `no entry for ${code}`;
  if (raw instanceof EntryProblem) return `${code}: ${raw.reason}`;
  const fields = isRecord(raw) ? raw : { reserve: raw };
  if (!Object.hasOwn(fields, 'reserve')) return `${code}: no reserve`;
  const reserve = decimalOf(`${code}: reserve`, fields.reserve);
  if (typeof reserve === 'string') return reserve;
  const entry: ReserveEntry = { reserve, enabled: true };
  for (const key of ['min', 'max'] as const) {
    if (fields[key] === undefined || fields[key] === null) continue;
    const value = decimalOf(`${code}: ${key}`, fields[key]);
    if (typeof value === 'string') return value;
    entry[key] = value;
  }
  const enabled = enabledOf(code, fields.enabled);
  if (typeof enabled === 'string') return enabled;
  entry.enabled = enabled;
  return entry;
}

/** An `enabled` field: true, false, "true", "false", "1", "0"; absent or null is on. Otherwise why it is unusable. */
export function enabledOf(key: string, enabled: unknown): boolean | string {
  if (enabled === undefined || enabled === null || enabled === true || enabled === 'true' || enabled === '1')
    return true;
  if (enabled === false || enabled === 'false' || enabled === '0') return false;
  return `${key}: enabled ${shown(enabled)} is not true or false`;
}

/** A document's entries: a mapping of code → entry. */
export function entriesOf(body: unknown): Map<string, unknown> | undefined {
  if (!isRecord(body)) return undefined;
  return new Map(Object.entries(body));
}
