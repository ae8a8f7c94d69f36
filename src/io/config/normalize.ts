// The schema-checked config file as the model of src/model/config.ts: currencies, directions, the top-level blocks.
import { exportHeaders } from '../../pure/edge/headers.js';
import { dirname, resolve } from 'node:path';
import cron from 'node-cron';
import { knownCurrencies } from '../../base/codes.js';
import type { HoursWindow } from '../../base/hours.js';
import { normalizePublish } from '../hosting/config.js';
import {
  type CompeteRule,
  type Config,
  type Currency,
  type Direction,
  type FeedPair,
  referenceDefaults,
  type ReferenceSettings,
} from '../../model/config.js';
import type { ConfigFile, ConfigTop, DirectionEntry } from './schema.js';
import type { Writable } from '../../base/freeze.js';
import { bestchangeSources, normalizeCompete, selfIdsOf, type CompeteEntry } from '../compete/config.js';
import { asList, assetOf } from './cross-check.js';
import { SharedValues } from './shared-values.js';
import { normalizeMonitors } from '../../model/readers.js';
import { normalizeWatch } from '../../model/watch.js';
import { defaultUserAgent } from '../../base/requests.js';
import { normalizeArchive, normalizeQuote } from '../../model/archive.js';
import type { RateRule } from '../../model/rates.js';
import type { ReserveCap } from '../../model/reserve-shape.js';
import { Decimal, percentToFraction } from '../../base/decimal.js';
import { ruleOrder, rulesOf } from '../../pure/rates/rules.js';
import { marketOf } from '../../pure/rates/book.js';

/** Precision when the config gives none: satoshi-like for crypto, cents for everything else. */
function defaultPrecision(code: string): number {
  const kind = knownCurrencies().get(code)?.kind;
  return kind === 'crypto' ? 8 : 2;
}

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

/** The checked file as the model (without its templates and warnings). */
export function normalize(data: ConfigFile, file: string): Omit<Config, 'exports' | 'warnings'> {
  const model = new ModelBuilder(data, file);
  data.directions.forEach((entry, index) => model.add(entry, index));
  return model.finish();
}

/** The model made from the checked file: the shared parts from the top-level fields first, then each entry (`add`). */
class ModelBuilder {
  readonly directions: Direction[] = [];
  private readonly currencies: Map<string, Currency>;
  private readonly manualHours: readonly HoursWindow[] | undefined;
  private readonly feeds: string[];
  private readonly shared = new SharedValues();
  /** One rule per distinct compete block (and to asset, which an amount without a unit is in). */
  private readonly competeRules = new Map<string, CompeteRule>();

  constructor(
    private readonly data: ConfigTop,
    private readonly file: string,
  ) {
    const shared = this.shared;
    this.manualHours =
      data.manualHours === undefined ? undefined : shared.hoursList(asList(data.manualHours) as string[]);
    this.currencies = new Map<string, Currency>(
      Object.entries(data.currencies).map(([code, entry]) => {
        const currency: Writable<Currency> = {
          code,
          asset: shared.text(assetOf(code, entry)!),
          precision: entry.precision ?? defaultPrecision(code),
          ratePrecision: entry.ratePrecision ?? entry.precision ?? defaultPrecision(code),
          reserve: shared.decimal(entry.reserve ?? 0),
        };
        if (entry.reserveFrom !== undefined) currency.reserveSource = shared.text(entry.reserveFrom);
        if (entry.reserveFormula !== undefined) currency.reserveFormula = entry.reserveFormula;
        if (entry.reserveCap !== undefined) currency.reserveCap = capOf(entry.reserveCap);
        return [code, currency];
      }),
    );
    this.feeds = bestchangeSources(data.sources);
  }

  /** The directions of one entry of `directions:` (one per from and to code), added in order. */
  add(entry: DirectionEntry, index: number): void {
    const { currencies, shared } = this;
    // Each field is the entry's or else the defaults': no merged copy per entry, which at 100,000 entries made
    // five times the model's size in garbage that lived long enough to be promoted out of the young generation.
    const defaults = this.data.defaults;
    const margin = entry.margin ?? defaults.margin;
    const params = entry.params ?? defaults.params;
    const min = entry.min ?? defaults.min;
    const max = entry.max ?? defaults.max;
    const hoursText = entry.hours ?? defaults.hours;
    const switchesFrom = entry.switchesFrom ?? defaults.switchesFrom;
    const hours =
      hoursText === undefined
        ? params?.includes('manual')
          ? this.manualHours
          : undefined
        : shared.hoursList(asList(hoursText) as string[]);
    const chain = entry.chain === undefined ? undefined : shared.chain(entry.chain);
    const tiers = entry.tiers === undefined ? undefined : shared.tierList(entry.tiers);
    const fromfee = entry.fromfee ?? defaults.fromfee;
    const tofee = entry.tofee ?? defaults.tofee;
    const minfee = entry.minfee ?? defaults.minfee;
    const floating = entry.floating ?? defaults.floating;
    const delay = entry.delay ?? defaults.delay;
    const referenceBand = entry.referenceBand ?? defaults.referenceBand;
    const reserveMargins = entry.reserveMargins
      ?.map((step) => ({ from: shared.decimal(step.from), margin: shared.fraction(step.margin) }))
      .sort((a, b) => a.from.comparedTo(b.from));
    const fromCodes = typeof entry.from === 'string' ? [entry.from] : entry.from;
    const toCodes = typeof entry.to === 'string' ? [entry.to] : entry.to;
    for (const fromCode of fromCodes) {
      for (const toCode of toCodes) {
        const from = currencies.get(fromCode)!;
        const to = currencies.get(toCode)!;
        // The keys every direction has first, then the optional ones by assignment: a literal with a dozen
        // conditional spreads makes an object of dictionary properties, larger and slower to read than a fixed shape.
        const direction: Writable<Direction> = {
          // One flat string: a template literal makes a string of two parts that keeps the first part beside it.
          id: [from.code, to.code].join('>'),
          index,
          from,
          to,
          margin: shared.fraction(margin!),
          reserve:
            entry.reserve === undefined
              ? entry.reserveFrom === undefined && entry.reserveFormula === undefined
                ? to.reserve
                : shared.decimal(0)
              : shared.decimal(entry.reserve),
          params: shared.list(params),
          cities: shared.list(entry.cities),
          tags: shared.list(entry.tags ?? defaults.tags),
        };
        if (chain) direction.chain = chain;
        this.addReserve(direction, entry, reserveMargins);
        if (min !== undefined) direction.min = shared.parseMoney(min, from.asset, currencies);
        if (max !== undefined) direction.max = shared.parseMoney(max, from.asset, currencies);
        if (tiers !== undefined) direction.tiers = tiers;
        if (fromfee !== undefined) direction.fromfee = shared.text(fromfee);
        if (tofee !== undefined) direction.tofee = shared.text(tofee);
        if (minfee !== undefined) direction.minfee = shared.text(minfee);
        if (floating !== undefined) direction.floating = shared.text(floating);
        if (delay !== undefined) direction.delay = delay;
        if (hours) direction.hours = hours;
        if (switchesFrom !== undefined) {
          direction.switchesFrom = shared.text(switchesFrom);
          // The back office's `manual` label brings the config's manualHours, as a configured one does.
          if (hoursText === undefined && this.manualHours) direction.manualHours = this.manualHours;
        }
        if (entry.compete) direction.compete = this.competeRule(entry.compete, to);
        if (referenceBand !== undefined) direction.referenceBand = shared.fraction(referenceBand);
        this.directions.push(direction);
      }
    }
  }

  /** Where the reserve comes from and how it is shaped: the direction's own reserve, source or formula beats its to currency's. */
  private addReserve(
    direction: Writable<Direction>,
    entry: DirectionEntry,
    margins: Direction['reserveMargins'],
  ): void {
    const { to } = direction;
    const own = entry.reserve !== undefined || entry.reserveFrom !== undefined || entry.reserveFormula !== undefined;
    const reserveSource = entry.reserveFrom ?? (own ? undefined : to.reserveSource);
    if (reserveSource !== undefined) direction.reserveSource = this.shared.text(reserveSource);
    const reserveFormula = entry.reserveFormula ?? (own ? undefined : to.reserveFormula);
    if (reserveFormula !== undefined) direction.reserveFormula = reserveFormula;
    const reserveCap = entry.reserveCap === undefined ? to.reserveCap : capOf(entry.reserveCap);
    if (reserveCap !== undefined) direction.reserveCap = reserveCap;
    if (margins !== undefined) direction.reserveMargins = margins;
  }

  /** Compete rules hold no direction of their own (caches key them with the direction's codes), so equal ones are one. */
  private competeRule(block: CompeteEntry, to: Currency): CompeteRule {
    const key = `${to.asset}\0${JSON.stringify(block)}`;
    let rule = this.competeRules.get(key);
    if (!rule) {
      const minReserve =
        block.minReserve === undefined
          ? undefined
          : this.shared.parseMoney(block.minReserve, to.asset, this.currencies);
      const selfIds = selfIdsOf(this.data.sources, block.source ?? this.feeds[0]!);
      this.competeRules.set(key, (rule = normalizeCompete(block, this.feeds, minReserve, selfIds)));
    }
    return rule;
  }

  /** The model, once every entry is added. */
  finish(): Omit<Config, 'exports' | 'warnings'> {
    const { data, file, directions } = this;
    const dir = dirname(file);
    const userAgent = data.userAgent ?? defaultUserAgent();
    return {
      file,
      dir,
      schedule: data.schedule,
      log: { heartbeatMs: data.log.heartbeat },
      server: {
        port: data.server.port,
        host: data.server.host,
        ...(data.server.private ? { private: data.server.private } : {}),
        headers: exportHeaders(
          {
            cacheControl: data.server.headers?.['Cache-Control'],
            cdnCacheControl: data.server.headers?.['CDN-Cache-Control'],
          },
          schedulePeriodMs(data.schedule),
        ),
      },
      output: resolve(dir, data.output),
      stateDir: resolve(dir, data.state),
      maintenance: data.maintenance,
      guards: guardsOf(data.guards),
      reference: referenceSettings(data.guards.reference),
      ...(data.alerts ? { alerts: data.alerts } : {}),
      ...(data.ha ? { ha: data.ha } : {}),
      ...(data.control ? { control: data.control } : {}),
      archive: normalizeArchive(data.archive, data.ha?.lock.env),
      quote: normalizeQuote(data.quote),
      monitors: normalizeMonitors(data.monitors),
      ...(data.accessLog === undefined ? {} : { accessLog: resolve(dir, data.accessLog) }),
      ...(data.watch ? { watch: normalizeWatch(data.watch, userAgent)! } : {}),
      userAgent,
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
      rates: ratesInOrder(data.rates),
      currencies: this.currencies,
      directions,
    };
  }
}

/** `guards.reference` with its defaults, the pairs' bands by market. */
function referenceSettings(block: ConfigFile['guards']['reference']): ReferenceSettings {
  return {
    band: percentToFraction(block?.band ?? referenceDefaults.band),
    rivalsBand: percentToFraction(block?.rivalsBand ?? referenceDefaults.rivalsBand),
    rivals: block?.rivals ?? referenceDefaults.rivals,
    pairs: new Map(
      Object.entries(block?.pairs ?? {}).map(([pair, band]) => {
        const [base, quote] = pair.split('/') as [string, string];
        return [marketOf({ base, quote }), percentToFraction(band)];
      }),
    ),
  };
}

/** `"80%"` as a share, `"50000"` as an amount. */
function capOf(text: string): ReserveCap {
  return text.endsWith('%') ? { share: percentToFraction(text) } : { amount: new Decimal(text) };
}

/** The rules of `rates:` in the order they are made (a loop is a problem crossCheck reported, so none is left here). */
function ratesInOrder(rates: ConfigFile['rates']): RateRule[] {
  const ordered = ruleOrder(rulesOf(rates));
  return 'order' in ordered ? ordered.order : [];
}

/** The pairs the directions compete in on one feed source, each once (for BestChange's API v2). */
function feedPairs(directions: readonly Direction[], source: string): FeedPair[] {
  const pairs = new Map<string, FeedPair>();
  for (const { compete, from, to, cities } of directions)
    if (compete?.source === source)
      pairs.set(`${from.code}>${to.code}@${cities.join(',')}`, { from: from.code, to: to.code, cities });
  return [...pairs.values()];
}

/** The jump guard's bounds: hardJump three times maxJump unless set; `confirmBuilds` is confirmAnswers's older name. */
function guardsOf(guards: ConfigTop['guards']): Config['guards'] {
  const maxJump = percentToFraction(guards.maxJump);
  return {
    maxJump,
    hardJump: guards.hardJump === undefined ? maxJump.times(3) : percentToFraction(guards.hardJump),
    confirmAnswers: guards.confirmAnswers ?? guards.confirmBuilds ?? 3,
  };
}
