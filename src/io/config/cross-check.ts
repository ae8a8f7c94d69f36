// crossCheck: checks across the raw config's fields (references, duplicates, chains, units, cron), reported with the schema's problems.
import cron from 'node-cron';
import { knownCities, knownCurrencies } from '../../base/codes.js';
import { competeMarginWarning, competeSourceProblem } from '../compete/config.js';
import { quoteValue } from '../../base/errors.js';
import { directionName } from '../../base/words.js';
import { closest, type Problem } from '../../base/config/problems.js';
import { chainAsList } from './schema.js';
import { checkTiers } from './tiers.js';
import { checkRates, reserveFormulaProblems } from './rates-check.js';

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

export function assetOf(code: string, entry: unknown): string | undefined {
  if (isRecord(entry) && typeof entry.asset === 'string') return entry.asset;
  return knownCurrencies().get(code)?.asset;
}

/** The raw config as the checks read it, and the lists they add to (in the order the checks run). */
interface Checking {
  readonly raw: Record<string, unknown>;
  readonly currencies: Record<string, unknown>;
  readonly codes: readonly string[];
  readonly defaults: Record<string, unknown>;
  /** Units a limit may be given in: configured codes, their assets, and every asset the monitors know. */
  readonly units: ReadonlySet<string>;
  /** Each direction id seen so far, with the index of the entry that first listed it. */
  readonly seen: Map<string, number>;
  readonly problems: Problem[];
  // Warnings are problems that do not stop the load; formatted like them, with their line.
  readonly warnings: Problem[];
}

type Path = (string | number)[];

/** One entry of `directions:` and its ends as lists. */
interface Entry {
  readonly fields: Record<string, unknown>;
  readonly index: number;
  readonly path: Path;
  readonly ends: { readonly from: unknown[]; readonly to: unknown[] };
}

/**
 * Checks across fields (references, duplicates, chains, cron) on the raw data, so they are reported
 * together with the schema's problems instead of after the schema problems are fixed.
 */
export function crossCheck(raw: unknown, liveCodes: ReadonlySet<string>): { problems: Problem[]; warnings: Problem[] } {
  if (!isRecord(raw)) return { problems: [], warnings: [] };
  const checking = readChecking(raw);
  checkTopLevel(checking);
  checkCurrencyCodes(checking, liveCodes);
  checkReserves(checking);
  checking.problems.push(...checkRates(raw));
  checkUnits(checking, checking.defaults, ['defaults']);
  const directions = Array.isArray(raw.directions) ? raw.directions : [];
  directions.forEach((fields, index) => {
    if (!isRecord(fields)) return;
    const ends = { from: asList(fields.from), to: asList(fields.to) };
    checkDirection(checking, { fields, index, path: ['directions', index], ends });
  });
  return { problems: checking.problems, warnings: checking.warnings };
}

function readChecking(raw: Record<string, unknown>): Checking {
  const currencies = isRecord(raw.currencies) ? raw.currencies : {};
  const codes = Object.keys(currencies);
  const defaults = isRecord(raw.defaults) ? raw.defaults : {};
  const units = new Set<string>([...codes, ...[...knownCurrencies().values()].map((c) => c.asset)]);
  for (const code of codes) units.add(assetOf(code, currencies[code]) ?? code);
  return { raw, currencies, codes, defaults, units, seen: new Map(), problems: [], warnings: [] };
}

/** Folder paths, the schedule's cron expression and the bestchange sources' fallbacks. */
function checkTopLevel({ raw, problems }: Checking): void {
  for (const key of ['output', 'state'] as const) {
    // Node refuses such a path only when a build first touches it, after other files were written.
    if (typeof raw[key] === 'string' && raw[key].includes('\0'))
      problems.push({ path: [key], message: 'expected a folder path, got one with a NUL character' });
  }
  if (typeof raw.schedule === 'string' && !cron.validate(raw.schedule)) {
    problems.push({
      path: ['schedule'],
      message: `expected a cron expression like "*/30 * * * * *", got ${quoteValue(raw.schedule)}`,
    });
  }
  problems.push(...fallbackProblems(raw.sources));
  problems.push(...archiveStoreProblems(raw));
}

/** `archive.store: postgres` needs a database: its own `env`, or the `ha:` lock's. */
function archiveStoreProblems(raw: Record<string, unknown>): Problem[] {
  const archive = isRecord(raw.archive) ? raw.archive : undefined;
  if (archive?.store !== 'postgres' || archive.env !== undefined) return [];
  const lock = isRecord(raw.ha) && isRecord(raw.ha.lock) ? raw.ha.lock : undefined;
  if (typeof lock?.env === 'string') return [];
  return [
    {
      path: ['archive', 'env'],
      message: 'expected the variable holding the PostgreSQL URL (store: postgres), got none (no ha.lock.env either)',
    },
  ];
}

/** A code the monitors do not list needs an asset, and is a warning unless BestChange's live list has it. */
function checkCurrencyCodes({ currencies, codes, problems, warnings }: Checking, liveCodes: ReadonlySet<string>): void {
  for (const code of codes) {
    if (knownCurrencies().has(code)) continue;
    if (assetOf(code, currencies[code]) === undefined) {
      problems.push({
        path: ['currencies', code, 'asset'],
        message: `required: ${quoteValue(code)} is not in the monitors' code list, so say what it is priced as (e.g. RUB)`,
      });
    }
    const hint = closest(code, knownCurrencies().keys());
    // A code BestChange's live list has (src/base/codes.ts) is known, though ratefile's shipped list is older.
    if (!liveCodes.has(code))
      warnings.push({
        path: ['currencies', code],
        message: `not in the monitors' code list${hint ? ` (closest: ${hint})` : ''}`,
      });
  }
}

/** Reserves: a currency has a number or a source, never both; a source named must exist. */
function checkReserves({ raw, currencies, codes, problems }: Checking): void {
  const reserveNames = isRecord(raw.reserves) ? Object.keys(raw.reserves) : [];
  const checkReserveFrom = (entry: Record<string, unknown>, path: Path) => {
    const name = entry.reserveFrom;
    if (name === undefined) return;
    if (entry.reserve !== undefined)
      problems.push({ path: [...path, 'reserveFrom'], message: 'set reserve or reserveFrom, not both' });
    if (typeof name !== 'string' || !reserveNames.includes(name)) {
      const hint = typeof name === 'string' ? closest(name, reserveNames) : undefined;
      problems.push({
        path: [...path, 'reserveFrom'],
        message: `expected a key of reserves${hint ? ` (did you mean "${hint}"?)` : ''}, got ${typeof name === 'string' ? quoteValue(name) : String(name)}`,
      });
    }
  };
  for (const code of codes) {
    const entry = currencies[code];
    if (!isRecord(entry)) continue;
    if (entry.reserve === undefined && entry.reserveFrom === undefined && entry.reserveFormula === undefined)
      problems.push({
        path: ['currencies', code, 'reserve'],
        message: 'required: expected a reserve like "5000", reserveFrom naming a reserve source, or a reserveFormula',
      });
    checkReserveFrom(entry, ['currencies', code]);
    problems.push(...reserveFormulaProblems(entry, ['currencies', code], reserveNames));
  }
  // `switchesFrom:` names a reserve source too (its entries keyed by direction id).
  const checkSwitchesFrom = (entry: Record<string, unknown>, path: Path) => {
    const name = entry.switchesFrom;
    if (name === undefined || (typeof name === 'string' && reserveNames.includes(name))) return;
    const hint = typeof name === 'string' ? closest(name, reserveNames) : undefined;
    problems.push({
      path: [...path, 'switchesFrom'],
      message: `expected a key of reserves${hint ? ` (did you mean "${hint}"?)` : ''}, got ${typeof name === 'string' ? quoteValue(name) : String(name)}`,
    });
  };
  if (isRecord(raw.defaults)) checkSwitchesFrom(raw.defaults, ['defaults']);
  if (Array.isArray(raw.directions))
    raw.directions.forEach((entry, index) => {
      if (!isRecord(entry)) return;
      checkReserveFrom(entry, ['directions', index]);
      checkSwitchesFrom(entry, ['directions', index]);
      problems.push(...reserveFormulaProblems(entry, ['directions', index], reserveNames));
    });
}

/** Limits (`min`, `max`, …) given with a unit name one of `units`. */
function checkUnits(
  { units, problems }: Checking,
  fields: Record<string, unknown>,
  path: Path,
  keys: readonly string[] = ['min', 'max'],
): void {
  for (const key of keys) {
    const unit = typeof fields[key] === 'string' ? fields[key].split(' ')[1] : undefined;
    if (unit === undefined || units.has(unit)) continue;
    const hint = closest(unit, units);
    problems.push({
      path: [...path, key],
      message: `unknown unit ${quoteValue(unit)}${hint ? ` (did you mean "${hint}"?)` : ''}; expected a currency code or an asset like RUB`,
    });
  }
}

/** One direction's checks, in the order its problems are listed. */
function checkDirection(checking: Checking, entry: Entry): void {
  const { fields, path } = entry;
  checkEndCurrencies(checking, entry);
  checkDirectionIds(checking, entry);
  checkUnits(checking, fields, path);
  if (isRecord(fields.compete)) checkCompete(checking, entry, fields.compete);
  checkDirectionTiers(checking, entry);
  if (fields.margin === undefined && checking.defaults.margin === undefined) {
    checking.problems.push({
      path: [...path, 'margin'],
      message: 'required (here or in defaults.margin): expected a percentage like "1.5%"',
    });
  }
  checkChain(checking, entry);
  checkCities(checking, entry);
}

/** Each from and to code must be a key of currencies. */
function checkEndCurrencies({ currencies, codes, problems }: Checking, { fields, path, ends }: Entry): void {
  for (const side of ['from', 'to'] as const) {
    ends[side].forEach((code, position) => {
      if (typeof code !== 'string' || code in currencies) return;
      const hint = closest(code, codes);
      const at = Array.isArray(fields[side]) ? [...path, side, position] : [...path, side];
      problems.push({
        path: at,
        message: `unknown currency ${quoteValue(code)}${hint ? ` (did you mean "${hint}"?)` : ''}; expected a key of currencies`,
      });
    });
  }
}

/** Each from × to pair is a direction id: not from a currency to itself, and listed once across the config. */
function checkDirectionIds({ seen, problems }: Checking, { index, path, ends }: Entry): void {
  for (const from of ends.from) {
    for (const to of ends.to) {
      if (typeof from !== 'string' || typeof to !== 'string') continue;
      if (from === to) problems.push({ path, message: `from and to are the same currency (${from})` });
      const id = `${from}>${to}`;
      const first = seen.get(id);
      const name = directionName(from, to);
      if (first === index) problems.push({ path, message: `direction ${name} is listed twice here` });
      else if (first !== undefined)
        problems.push({ path, message: `duplicate direction ${name}, already at directions[${first}]` });
      else seen.set(id, index);
    }
  }
}

/** The compete block: its limit's unit, its source must exist, and margins that clash with the direction's warn. */
function checkCompete(checking: Checking, { fields, path }: Entry, compete: Record<string, unknown>): void {
  const at = [...path, 'compete'];
  checkUnits(checking, compete, at, ['minReserve']);
  const problem = competeSourceProblem(compete, checking.raw.sources, at);
  if (problem) checking.problems.push(problem);
  const warning = competeMarginWarning(compete, fields.margin ?? checking.defaults.margin, at);
  if (warning) checking.warnings.push(warning);
}

/** The tiers' own checks (`./tiers.ts`), and tiers never beside compete. */
function checkDirectionTiers({ currencies, defaults, problems, warnings }: Checking, entry: Entry): void {
  const { fields, path, ends } = entry;
  const tiers = checkTiers(
    fields.tiers,
    path,
    ends.from.map((code) => (typeof code === 'string' ? assetOf(code, currencies[code]) : undefined)),
    fields.margin ?? defaults.margin,
    (unit) => assetOf(unit, currencies[unit]) ?? unit,
  );
  problems.push(...tiers.problems);
  warnings.push(...tiers.warnings);
  // Tiers are margins off the market; a competing direction's rate comes from the field, so a tier would
  // publish a rate no place or floor bounds. Until tiers can follow the compete rate, the two do not mix.
  if (fields.tiers !== undefined && fields.compete !== undefined) {
    problems.push({
      path: [...path, 'tiers'],
      message: 'not with compete: a competing direction publishes one rate for every amount (remove tiers or compete)',
    });
  }
}

const pairPattern = /^[A-Z][A-Z0-9]{1,9}\/[A-Z][A-Z0-9]{1,9}$/;

/** A chain of well-formed pairs fits one from and one to, and leads from the one's asset to the other's. */
function checkChain({ currencies, problems }: Checking, { fields, path, ends }: Entry): void {
  const chain = chainAsList(fields.chain);
  if (!Array.isArray(chain) || chain.length === 0) return;
  if (!chain.every((pair) => typeof pair === 'string' && pairPattern.test(pair))) return;
  if (ends.from.length > 1 || ends.to.length > 1) {
    problems.push({ path: [...path, 'chain'], message: 'a chain fits one from and one to currency, not a list' });
  } else if (typeof ends.from[0] === 'string' && typeof ends.to[0] === 'string') {
    const start = assetOf(ends.from[0], currencies[ends.from[0]]);
    const end = assetOf(ends.to[0], currencies[ends.to[0]]);
    if (start !== undefined && end !== undefined) {
      const message = chainProblem(chain as string[], start, end);
      if (message) problems.push({ path: [...path, 'chain'], message });
    }
  }
}

/** A city the monitors do not list is a warning, with the closest one they do. */
function checkCities({ warnings }: Checking, { fields, index }: Entry): void {
  if (!Array.isArray(fields.cities)) return;
  for (const city of fields.cities) {
    if (typeof city === 'string' && !knownCities().has(city)) {
      const hint = closest(city, knownCities().keys());
      warnings.push({
        path: ['directions', index, 'cities'],
        message: `${quoteValue(city)} is not in the monitors' city list${hint ? ` (closest: ${hint})` : ''}`,
      });
    }
  }
}

/** A bestchange source's `fallback` names another bestchange source that reads info.zip (no `api`). */
function fallbackProblems(sources: unknown): Problem[] {
  if (!isRecord(sources)) return [];
  const problems: Problem[] = [];
  for (const [name, entry] of Object.entries(sources)) {
    if (!isRecord(entry) || entry.type !== 'bestchange' || entry.fallback === undefined) continue;
    const other = typeof entry.fallback === 'string' ? sources[entry.fallback] : undefined;
    if (!isRecord(other) || other.type !== 'bestchange' || other.api !== undefined || entry.fallback === name)
      problems.push({
        path: ['sources', name, 'fallback'],
        message: `expected the name of another bestchange source reading info.zip (no api:), got ${quoteValue(String(entry.fallback))}`,
      });
  }
  return problems;
}

/** Why a chain does not lead from `start` to `end`, step by step, or undefined when it does. */
function chainProblem(chain: string[], start: string, end: string): string | undefined {
  let asset = start;
  for (const pair of chain) {
    const [base, quote] = pair.split('/') as [string, string];
    if (base === asset) asset = quote;
    else if (quote === asset) asset = base;
    else
      return `pair ${pair} does not continue from ${asset} (chain ${chain.join(' * ')} must lead from ${start} to ${end})`;
  }
  return asset === end ? undefined : `chain ${chain.join(' * ')} ends at ${asset}, expected ${end}`;
}
