// normalize: the schema-checked config file as the model of src/model.ts (currencies, directions, shared values).
import { dirname, resolve } from 'node:path';
import cron from 'node-cron';
import { Decimal } from '../decimal.js';
import { knownCurrencies } from '../codes.js';
import { parseHours, type HoursWindow } from '../hours.js';
import { percentToFraction } from '../exports/template.js';
import { normalizePublish } from '../hosting/config.js';
import type { Config, Currency, Direction, FeedPair, Money } from '../model.js';
import type { ConfigFile } from './schema.js';
import type { Writable } from '../freeze.js';
import { bestchangeSources, normalizeCompete, selfIdsOf } from '../compete/config.js';
import { asList, assetOf } from './cross-check.js';
import { toTiers } from './tiers.js';
import { normalizeMonitors } from '../readers/config.js';

/** Precision when the config gives none: satoshi-like for crypto, cents for everything else. */
function defaultPrecision(code: string): number {
  const kind = knownCurrencies().get(code)?.kind;
  return kind === 'crypto' ? 8 : 2;
}
/** "5000 RUB" or "0.01"; a unit that is a currency code means that currency's asset. */
function parseMoney(
  text: string,
  fallbackAsset: string,
  currencies: ReadonlyMap<string, Currency>,
  shared = new SharedValues(),
): Money {
  const [value = '0', unit] = text.split(' ');
  const asset = unit === undefined ? fallbackAsset : (currencies.get(unit)?.asset ?? unit);
  return shared.money(shared.decimal(value), asset);
}

/**
 * One object per distinct value among the loaded directions: a large config repeats a few margins, reserves,
 * limits and tag lists across its directions, so one object each (instead of one per direction) makes the model
 * grow with the distinct values, not with the directions. Safe to share because nothing changes them in place: Decimals are immutable, and the lists and money
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

export function normalize(data: ConfigFile, file: string): Omit<Config, 'exports' | 'warnings'> {
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
        // conditional spreads makes an object of dictionary properties, larger and slower to read than a fixed shape.
        const direction: Writable<Direction> = {
          id: `${fromCode}>${toCode}`,
          index,
          from,
          to,
          margin: shared.fraction(merged.margin!),
          reserve:
            entry.reserve === undefined
              ? entry.reserveFrom === undefined
                ? to.reserve
                : shared.decimal(0)
              : shared.decimal(entry.reserve),
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
          const minReserve =
            entry.compete.minReserve === undefined
              ? undefined
              : parseMoney(entry.compete.minReserve, to.asset, currencies, shared);
          direction.compete = normalizeCompete(
            entry.compete,
            feeds,
            minReserve,
            selfIdsOf(data.sources, entry.compete.source ?? feeds[0]!),
          );
        }
        directions.push(direction);
      }
    }
  });
  return {
    file,
    dir,
    schedule: data.schedule,
    log: { heartbeatMs: data.log.heartbeat },
    server: data.server,
    output: resolve(dir, data.output),
    stateDir: resolve(dir, data.state),
    maintenance: data.maintenance,
    guards: { maxJump: percentToFraction(data.guards.maxJump), confirmBuilds: data.guards.confirmBuilds },
    ...(data.alerts ? { alerts: data.alerts } : {}),
    ...(data.ha ? { ha: data.ha } : {}),
    monitors: normalizeMonitors(data.monitors),
    ...(data.accessLog === undefined ? {} : { accessLog: resolve(dir, data.accessLog) }),
    health: {
      failAfterPeriods: data.health.failAfterPeriods,
      maxWithheldShare: percentToFraction(data.health.maxWithheld).toNumber(),
    },
    schedulePeriodMs: schedulePeriodMs(data.schedule),
    publish: normalizePublish(data.publish),
    templatesDir: resolve(dir, data.templates),
    sources: Object.entries(data.sources).map(([name, entry]) => {
      const options = entry as Config['sources'][number]['options'];
      const competes = feedPairs(directions, name);
      return competes.length === 0
        ? { name, type: options.type, options }
        : { name, type: options.type, options, competes };
    }),
    reserveSources: Object.entries(data.reserves).map(([name, entry]) => {
      const options = entry as Config['reserveSources'][number]['options'];
      return { name, type: options.type, options };
    }),
    currencies,
    directions,
  };
}

/** The pairs the directions compete in on one feed source, each once (for BestChange's API v2). */
function feedPairs(directions: readonly Direction[], source: string): FeedPair[] {
  const pairs = new Map<string, FeedPair>();
  for (const { compete, from, to, cities } of directions)
    if (compete?.source === source)
      pairs.set(`${from.code}>${to.code}@${cities.join(',')}`, { from: from.code, to: to.code, cities });
  return [...pairs.values()];
}
