// loadConfig: read ratefile.config.yaml and its templates, report every problem at once, return the normalized model.
import { dirname, relative, resolve, sep } from 'node:path';
import cron from 'node-cron';
import { Decimal } from '../decimal.js';
import { knownCities, knownCurrencies } from '../codes.js';
import { parseHours, type HoursWindow } from '../hours.js';
import { loadTemplates, percentToFraction } from '../exports/template.js';
import { normalizePublish } from '../hosting/config.js';
import type { Config, Currency, Direction, Money } from '../model.js';
import { chainAsList, configSchema, type ConfigFile } from './schema.js';
import { bestchangeSources, competeMarginWarning, competeSourceProblem, normalizeCompete } from '../compete/config.js';
import { quoteValue } from '../errors.js';
import { deepFreeze, type Writable } from '../freeze.js';
import { closest, type Problem } from './problems.js';
import { checkTiers, toTiers } from './tiers.js';
import { configError, formatProblem, readYamlFile, validateYaml } from './yaml.js';
import { defaultConfigFile } from './defaults.js';
import { readLiveCodes } from '../live-codes.js';

export { defaultConfigFile };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** Precision when the config gives none: satoshi-like for crypto, cents for everything else. */
function defaultPrecision(code: string): number {
  const kind = knownCurrencies().get(code)?.kind;
  return kind === 'crypto' ? 8 : 2;
}

function assetOf(code: string, entry: unknown): string | undefined {
  if (isRecord(entry) && typeof entry.asset === 'string') return entry.asset;
  return knownCurrencies().get(code)?.asset;
}

/**
 * Checks across fields (references, duplicates, chains, cron) on the raw data, so they are reported
 * together with the schema's problems instead of after the schema problems are fixed.
 */
function crossCheck(raw: unknown, liveCodes: ReadonlySet<string>): { problems: Problem[]; warnings: Problem[] } {
  const problems: Problem[] = [];
  // Warnings are problems that do not stop the load; formatted like them, with their line.
  const warnings: Problem[] = [];
  if (!isRecord(raw)) return { problems, warnings };
  const currencies = isRecord(raw.currencies) ? raw.currencies : {};
  const codes = Object.keys(currencies);

  for (const key of ['output', 'state'] as const) {
    // Node refuses such a path only when a build first touches it, after other files were written.
    if (typeof raw[key] === 'string' && raw[key].includes('\0')) problems.push({ path: [key], message: 'expected a folder path, got one with a NUL character' });
  }
  if (typeof raw.schedule === 'string' && !cron.validate(raw.schedule)) {
    problems.push({ path: ['schedule'], message: `expected a cron expression like "*/30 * * * * *", got ${quoteValue(raw.schedule)}` });
  }
  for (const code of codes) {
    if (!knownCurrencies().has(code)) {
      if (assetOf(code, currencies[code]) === undefined) {
        problems.push({ path: ['currencies', code, 'asset'], message: `required: ${quoteValue(code)} is not in the monitors' code list, so say what it is priced as (e.g. RUB)` });
      }
      const hint = closest(code, knownCurrencies().keys());
      // A code BestChange's live list has (src/codes.ts) is known, though ratefile's shipped list is older.
      if (!liveCodes.has(code)) warnings.push({ path: ['currencies', code], message: `not in the monitors' code list${hint ? ` (closest: ${hint})` : ''}` });
    }
  }

  // Reserves: a currency has a number or a source, never both; a source named must exist.
  const reserveNames = isRecord(raw.reserves) ? Object.keys(raw.reserves) : [];
  const checkReserveFrom = (entry: Record<string, unknown>, path: (string | number)[]) => {
    const name = entry.reserveFrom;
    if (name === undefined) return;
    if (entry.reserve !== undefined) problems.push({ path: [...path, 'reserveFrom'], message: 'set reserve or reserveFrom, not both' });
    if (typeof name !== 'string' || !reserveNames.includes(name)) {
      const hint = typeof name === 'string' ? closest(name, reserveNames) : undefined;
      problems.push({ path: [...path, 'reserveFrom'], message: `expected a key of reserves${hint ? ` (did you mean "${hint}"?)` : ''}, got ${typeof name === 'string' ? quoteValue(name) : String(name)}` });
    }
  };
  for (const code of codes) {
    const entry = currencies[code];
    if (!isRecord(entry)) continue;
    if (entry.reserve === undefined && entry.reserveFrom === undefined) problems.push({ path: ['currencies', code, 'reserve'], message: 'required: expected a reserve like "5000", or reserveFrom naming a reserve source' });
    checkReserveFrom(entry, ['currencies', code]);
  }
  if (Array.isArray(raw.directions)) raw.directions.forEach((entry, index) => isRecord(entry) && checkReserveFrom(entry, ['directions', index]));

  const defaults = isRecord(raw.defaults) ? raw.defaults : {};
  // Units a limit may be given in: configured codes, their assets, and every asset the monitors know.
  const units = new Set<string>([...codes, ...[...knownCurrencies().values()].map((c) => c.asset)]);
  for (const code of codes) units.add(assetOf(code, currencies[code]) ?? code);
  const checkUnits = (entry: Record<string, unknown>, path: (string | number)[], keys: readonly string[] = ['min', 'max']) => {
    for (const key of keys) {
      const unit = typeof entry[key] === 'string' ? entry[key].split(' ')[1] : undefined;
      if (unit === undefined || units.has(unit)) continue;
      const hint = closest(unit, units);
      problems.push({ path: [...path, key], message: `unknown unit ${quoteValue(unit)}${hint ? ` (did you mean "${hint}"?)` : ''}; expected a currency code or an asset like RUB` });
    }
  };
  checkUnits(defaults, ['defaults']);
  const seen = new Map<string, number>();
  const directions = Array.isArray(raw.directions) ? raw.directions : [];
  directions.forEach((entry, index) => {
    if (!isRecord(entry)) return;
    const path = ['directions', index];
    const ends = { from: asList(entry.from), to: asList(entry.to) };
    for (const side of ['from', 'to'] as const) {
      ends[side].forEach((code, position) => {
        if (typeof code !== 'string' || code in currencies) return;
        const hint = closest(code, codes);
        const at = Array.isArray(entry[side]) ? [...path, side, position] : [...path, side];
        problems.push({ path: at, message: `unknown currency ${quoteValue(code)}${hint ? ` (did you mean "${hint}"?)` : ''}; expected a key of currencies` });
      });
    }
    for (const from of ends.from) {
      for (const to of ends.to) {
        if (typeof from !== 'string' || typeof to !== 'string') continue;
        if (from === to) problems.push({ path, message: `from and to are the same currency (${from})` });
        const id = `${from}>${to}`;
        const first = seen.get(id);
        if (first === index) problems.push({ path, message: `direction ${id} is listed twice here` });
        else if (first !== undefined) problems.push({ path, message: `duplicate direction ${id}, already at directions[${first}]` });
        else seen.set(id, index);
      }
    }
    checkUnits(entry, path);
    if (isRecord(entry.compete)) {
      checkUnits(entry.compete, [...path, 'compete'], ['minReserve']);
      const problem = competeSourceProblem(entry.compete, raw.sources, [...path, 'compete']);
      if (problem) problems.push(problem);
      const warning = competeMarginWarning(entry.compete, entry.margin ?? defaults.margin, [...path, 'compete']);
      if (warning) warnings.push(warning);
    }
    const tiers = checkTiers(entry.tiers, path, ends.from.map((code) => (typeof code === 'string' ? assetOf(code, currencies[code]) : undefined)), entry.margin ?? defaults.margin, (unit) => assetOf(unit, currencies[unit]) ?? unit);
    problems.push(...tiers.problems);
    warnings.push(...tiers.warnings);
    // Tiers are margins off the market; a competing direction's rate comes from the field, so a tier would
    // publish a rate no place or floor bounds. Until tiers can follow the compete rate, the two do not mix.
    if (entry.tiers !== undefined && entry.compete !== undefined) {
      problems.push({ path: [...path, 'tiers'], message: 'not with compete: a competing direction publishes one rate for every amount (remove tiers or compete)' });
    }
    if (entry.margin === undefined && defaults.margin === undefined) {
      problems.push({ path: [...path, 'margin'], message: 'required (here or in defaults.margin): expected a percentage like "1.5%"' });
    }
    const pairPattern = /^[A-Z][A-Z0-9]{1,9}\/[A-Z][A-Z0-9]{1,9}$/;
    const chain = chainAsList(entry.chain);
    if (Array.isArray(chain) && chain.length > 0 && chain.every((pair) => typeof pair === 'string' && pairPattern.test(pair))) {
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
    if (Array.isArray(entry.cities)) {
      for (const city of entry.cities) {
        if (typeof city === 'string' && !knownCities().has(city)) {
          const hint = closest(city, knownCities().keys());
          warnings.push({ path: ['directions', index, 'cities'], message: `${quoteValue(city)} is not in the monitors' city list${hint ? ` (closest: ${hint})` : ''}` });
        }
      }
    }
  });
  return { problems, warnings };
}

/** Why a chain does not lead from `start` to `end`, step by step, or undefined when it does. */
function chainProblem(chain: string[], start: string, end: string): string | undefined {
  let asset = start;
  for (const pair of chain) {
    const [base, quote] = pair.split('/') as [string, string];
    if (base === asset) asset = quote;
    else if (quote === asset) asset = base;
    else return `pair ${pair} does not continue from ${asset} (chain ${chain.join(' * ')} must lead from ${start} to ${end})`;
  }
  return asset === end ? undefined : `chain ${chain.join(' * ')} ends at ${asset}, expected ${end}`;
}

/** "5000 RUB" or "0.01"; a unit that is a currency code means that currency's asset. */
function parseMoney(text: string, fallbackAsset: string, currencies: ReadonlyMap<string, Currency>, shared = new SharedValues()): Money {
  const [value = '0', unit] = text.split(' ');
  const asset = unit === undefined ? fallbackAsset : (currencies.get(unit)?.asset ?? unit);
  return shared.money(shared.decimal(value), asset);
}

/**
 * One object per distinct value among the loaded directions: a config of 50,000 directions repeats a few margins,
 * reserves, limits and tag lists, and one object each (instead of one per direction) keeps the model a third of
 * the size. Safe to share because nothing changes them in place: Decimals are immutable, and the lists and money
 * objects are frozen, so a write would throw rather than reach every direction.
 */
class SharedValues {
  private readonly decimals = new Map<string, Decimal>();
  private readonly fractions = new Map<string, Decimal>();
  private readonly monies = new Map<string, Money>();
  private readonly lists = new Map<string, readonly string[]>();

  decimal(text: string | number): Decimal {
    const key = String(text);
    return this.decimals.get(key) ?? this.decimals.set(key, new Decimal(key)).get(key)!;
  }

  /** "1.5%" → 0.015, one object per text. */
  fraction(text: string): Decimal {
    return this.fractions.get(text) ?? this.fractions.set(text, percentToFraction(text)).get(text)!;
  }

  money(value: Decimal, asset: string): Money {
    const key = `${value.toString()} ${asset}`;
    return this.monies.get(key) ?? this.monies.set(key, Object.freeze({ value, asset })).get(key)!;
  }

  /** The list without repeats, in order; one frozen array per distinct list. */
  list<T extends string>(values: readonly T[] | undefined): T[] {
    const unique = [...new Set(values ?? [])];
    // NUL never occurs in a YAML-read label, city or tag: the joined key names one list.
    const key = unique.join('\0');
    return (this.lists.get(key) ?? this.lists.set(key, Object.freeze(unique)).get(key)!) as T[];
  }
}

const toWindows = (value: string | string[] | undefined): HoursWindow[] | undefined =>
  value === undefined ? undefined : asList(value).map((text) => parseHours(text as string) as HoursWindow);

/** The longest gap between the next few runs of a cron schedule. */
export function schedulePeriodMs(schedule: string): number {
  const task = cron.createTask(schedule, () => undefined);
  try {
    const runs = task.getNextRuns(6).map((run) => run.getTime());
    return Math.max(...runs.slice(1).map((run, index) => run - runs[index]!));
  } finally {
    void task.destroy();
  }
}

function normalize(data: ConfigFile, file: string): Omit<Config, 'exports' | 'warnings'> {
  const dir = dirname(file);
  const manualHours = toWindows(data.manualHours);
  const currencies = new Map<string, Currency>(
    Object.entries(data.currencies).map(([code, entry]) => [
      code,
      {
        code,
        asset: assetOf(code, entry)!,
        precision: entry.precision ?? defaultPrecision(code),
        ratePrecision: entry.ratePrecision ?? entry.precision ?? defaultPrecision(code),
        reserve: new Decimal(entry.reserve ?? 0),
        ...(entry.reserveFrom === undefined ? {} : { reserveSource: entry.reserveFrom }),
      },
    ]),
  );
  const hoursOf = (own: string | string[] | undefined, params: string[] | undefined) => {
    const hours = toWindows(own) ?? (params?.includes('manual') ? manualHours : undefined);
    return hours ? { hours } : undefined;
  };
  const directions: Direction[] = [];
  const feeds = bestchangeSources(data.sources);
  const shared = new SharedValues();
  data.directions.forEach((entry, index) => {
    const merged = { ...data.defaults, ...entry };
    for (const fromCode of asList(entry.from) as string[]) {
      for (const toCode of asList(entry.to) as string[]) {
        const from = currencies.get(fromCode)!;
        const to = currencies.get(toCode)!;
        // The keys every direction has first, then the optional ones by assignment: a literal with a dozen
        // conditional spreads makes an object of slow (dictionary) properties, twice the size at 50,000 directions.
        const direction: Writable<Direction> = {
          id: `${fromCode}>${toCode}`,
          index,
          from,
          to,
          margin: shared.fraction(merged.margin!),
          reserve: entry.reserve === undefined ? (entry.reserveFrom === undefined ? to.reserve : shared.decimal(0)) : shared.decimal(entry.reserve),
          params: shared.list(merged.params),
          cities: shared.list(entry.cities),
          tags: shared.list(merged.tags),
        };
        if (entry.chain) direction.chain = entry.chain;
        // The direction's own reserve or source beats its to currency's.
        const reserveSource = entry.reserveFrom ?? (entry.reserve === undefined ? to.reserveSource : undefined);
        if (reserveSource !== undefined) direction.reserveSource = reserveSource;
        if (merged.min !== undefined) direction.min = parseMoney(merged.min, from.asset, currencies, shared);
        if (merged.max !== undefined) direction.max = parseMoney(merged.max, from.asset, currencies, shared);
        if (entry.tiers !== undefined) direction.tiers = toTiers(entry.tiers);
        if (merged.fromfee !== undefined) direction.fromfee = merged.fromfee;
        if (merged.tofee !== undefined) direction.tofee = merged.tofee;
        if (merged.minfee !== undefined) direction.minfee = merged.minfee;
        if (merged.floating !== undefined) direction.floating = merged.floating;
        if (merged.delay !== undefined) direction.delay = merged.delay;
        const hours = hoursOf(merged.hours, merged.params);
        if (hours) direction.hours = hours.hours;
        if (entry.compete) {
          const minReserve = entry.compete.minReserve === undefined ? undefined : parseMoney(entry.compete.minReserve, to.asset, currencies, shared);
          direction.compete = normalizeCompete(entry.compete, feeds, minReserve);
        }
        directions.push(direction);
      }
    }
  });
  return {
    file,
    dir,
    schedule: data.schedule,
    server: data.server,
    output: resolve(dir, data.output),
    stateDir: resolve(dir, data.state),
    maintenance: data.maintenance,
    guards: { maxJump: percentToFraction(data.guards.maxJump), confirmBuilds: data.guards.confirmBuilds },
    ...(data.alerts ? { alerts: data.alerts } : {}),
    health: { failAfterPeriods: data.health.failAfterPeriods, maxWithheldShare: percentToFraction(data.health.maxWithheld).toNumber() },
    schedulePeriodMs: schedulePeriodMs(data.schedule),
    publish: normalizePublish(data.publish),
    templatesDir: resolve(dir, data.templates),
    sources: Object.entries(data.sources).map(([name, entry]) => {
      const options = entry as Config['sources'][number]['options'];
      return { name, type: options.type, options };
    }),
    reserveSources: Object.entries(data.reserves).map(([name, entry]) => {
      const options = entry as Config['reserveSources'][number]['options'];
      return { name, type: options.type, options };
    }),
    currencies,
    directions,
  };
}

/** Read and validate the config file and its templates; throws E_CONFIG listing every problem found. */
export async function loadConfig(path: string = defaultConfigFile, cwd: string = process.cwd()): Promise<Config> {
  const file = resolve(cwd, path);
  const label = relative(cwd, file) || file;
  const yaml = await readYamlFile(file, label);
  const { data, problems } = validateYaml(yaml, configSchema);
  const stateText = isRecord(yaml.data) && typeof yaml.data.state === 'string' ? yaml.data.state : '.ratefile';
  const checked = crossCheck(yaml.data, await readLiveCodes(resolve(dirname(file), stateText)));
  if (data) {
    // The state folder holds the jump guard's memory and the status: never served to the public.
    const [state, output] = [resolve(dirname(file), data.state), resolve(dirname(file), data.output)];
    if (state === output || state.startsWith(`${output}${sep}`)) {
      checked.problems.push({ path: ['state'], message: `expected a folder outside the output folder ${data.output}, got ${quoteValue(data.state)}` });
    }
  }
  const lines = [...problems, ...checked.problems].map((problem) => formatProblem(yaml, problem));

  // Templates are checked even when the config has problems, so one run shows everything to fix.
  const codes = new Set(isRecord(yaml.data) && isRecord(yaml.data.currencies) ? Object.keys(yaml.data.currencies) : []);
  const dir = dirname(file);
  const templatesDir = resolve(dir, data?.templates ?? (isRecord(yaml.data) && typeof yaml.data.templates === 'string' ? yaml.data.templates : 'templates'));
  const { templates, problems: templateProblems } = await loadTemplates(templatesDir, codes, cwd);

  if (lines.length > 0 || templateProblems.length > 0 || !data) {
    throw configError(label, [...lines, ...templateProblems]);
  }
  // Frozen deeply (src/freeze.ts): a step that writes into the loaded config throws instead of staling the caches.
  return deepFreeze({ ...normalize(data, file), exports: templates, warnings: checked.warnings.map((warning) => formatProblem(yaml, warning)) });
}
