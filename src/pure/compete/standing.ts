// What a competing direction's rate depends on besides the build's quotes: its fields in the feed (one per city),
// the step that holds the place in every city, and the rate for that step. The feed changes once per refresh
// (30 s) while builds run every few seconds, so this is made once per feed and direction, and each build only
// prices the market-dependent part (floor, ceiling, deviation, place) against it.
import type { BestChangeFeed } from '../bestchange/feed.js';
import type { Decimal } from '../../base/decimal.js';
import type { CompeteRule, Currency } from '../../model/config.js';
import { approxOf, fieldCore, type FieldCore } from './field.js';
import { show } from '../../base/words.js';
import { compareForms, rateFor } from './grid.js';
import { keyedGet, keyedSet, type Keyed } from './keyed.js';
import type { PublishedRate } from '../../model/priced.js';

/** The step that holds the place in every city: the most generous of the cities' needs. */
export interface Need {
  form: PublishedRate;
  /** A rate whose published form is `form`, and `form` as a double. */
  rate: Decimal;
  approx: number;
}

export interface Standing {
  /** One per city; an 8-field feed has no cities, so its one field serves every city. */
  cores: FieldCore[];
  /** Absent when a city has fewer counted competitors than the place, or when `unbeatable`. */
  need?: Need;
  /** Why no published step beats the competitor at the place in some city: the direction falls back to its margin. */
  unbeatable?: string;
}

interface Made {
  /** minReserve (in the to currency) the standing was made with, as text: it may come through this build's quotes. */
  reserve: string | undefined;
  standing: Standing;
}

/**
 * Per feed object (WeakMap: a new fetch is a new object, and the old one is freed with its entries), per rule
 * (the direction's compete config object, immutable once loaded: a reloaded config brings new ones), per
 * everything else the standing reads: codes, cities and rate precisions. minReserve converted through the quotes
 * changes with them, so it is compared by value and only the last one is kept. Nothing here is ever changed in
 * place; a build's place is kept in its own objects (`cityField`).
 */
const made = new WeakMap<BestChangeFeed, WeakMap<CompeteRule, Keyed<Made>>>();

export function standingOf(
  feed: BestChangeFeed,
  from: Currency,
  to: Currency,
  cities: readonly string[],
  rule: CompeteRule,
  minReserve: Decimal | undefined,
): Standing {
  let byRule = made.get(feed);
  if (!byRule) made.set(feed, (byRule = new WeakMap()));
  const slot = byRule.get(rule);
  const key = `${from.code}>${to.code}@${cities.join(',')}/${from.ratePrecision}/${to.ratePrecision}`;
  const reserve = minReserve?.toString();
  const known = keyedGet(slot, key);
  if (known && known.reserve === reserve) return known.standing;
  const standing = makeStanding(feed, from, to, cities, rule, minReserve);
  byRule.set(rule, keyedSet(slot, key, { reserve, standing }));
  return standing;
}

function makeStanding(
  feed: BestChangeFeed,
  from: Currency,
  to: Currency,
  cities: readonly string[],
  rule: CompeteRule,
  minReserve: Decimal | undefined,
): Standing {
  const fieldCities = cities.length > 0 && feed.layout === 11 ? cities : [undefined];
  const cores = fieldCities.map((city) => fieldCore(feed, from, to, rule, minReserve, city));
  const stuck = cores.find((core) => core.unbeatable !== undefined);
  if (stuck?.rival) {
    const where = stuck.city === undefined ? '' : ` in ${stuck.city}`;
    return {
      cores,
      unbeatable: `no published rate beats the competitor at place ${rule.worst}${where}, ${show(stuck.rival.rate)}: ${stuck.unbeatable ?? ''}`,
    };
  }
  const needed = cores.reduce<PublishedRate | undefined>(
    (most, core) => (core.needed && (!most || compareForms(core.needed, most) > 0) ? core.needed : most),
    undefined,
  );
  return needed
    ? { cores, need: { form: needed, rate: rateFor(needed, from, to), approx: approxOf(needed) } }
    : { cores };
}
