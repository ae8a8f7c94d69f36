// The directions one source alone can set, grouped by the pairs that source sets and their reference: the status's
// `soleSource` (from a build), `ratefile validate`'s list (from the config alone) and their lines for people. Pure.
import { directionNameOfId, plural } from '../../base/words.js';
import type { SoleSource } from '../guards/reference.js';

/** Directions alike: the pairs one source sets in each, and what they are checked against. */
export interface SoleSourceStatus {
  /** The pairs one source alone sets, each with its source: `USDT/RUB (p2p)`. */
  pairs: string[];
  /** Those sources, once each. */
  sources: string[];
  /** What they are checked against (`bybit:BTC/USDT`, `BestChange rivals on bc (median of the best 5)`); absent: nothing. */
  reference?: string;
  /** Pairs among `pairs` the reference does not cover. */
  unchecked?: string[];
  /** Direction ids, in config order. */
  directions: string[];
}

/** Directions as the grouping reads them (a build's `SoleSource`, or validate's one per direction). */
export interface SoleSourceEntry {
  ids: readonly string[];
  pairs: readonly string[];
  sources: readonly string[];
  reference?: string;
  unchecked?: readonly string[];
}

/** A build's groups as the grouping reads them. */
export const builtEntries = (sole: readonly SoleSource[]): SoleSourceEntry[] =>
  sole.map(({ directions, pairs, sources, reference }) => ({
    ids: directions.map((priced) => priced.direction.id),
    pairs,
    sources,
    ...(reference === undefined ? {} : { reference: reference.from }),
    ...(reference?.unchecked === undefined ? {} : { unchecked: reference.unchecked }),
  }));

/** Grouped by pairs and reference, the groups without a reference first, each in the order first met. */
export function soleSourceGroups(entries: readonly SoleSourceEntry[]): SoleSourceStatus[] {
  const groups = new Map<string, SoleSourceStatus>();
  for (const entry of entries) {
    const key = JSON.stringify([entry.pairs, entry.reference ?? null, entry.unchecked ?? []]);
    const known = groups.get(key);
    if (known) {
      known.directions.push(...entry.ids);
      continue;
    }
    groups.set(key, {
      pairs: [...entry.pairs],
      sources: [...entry.sources],
      ...(entry.reference === undefined ? {} : { reference: entry.reference }),
      ...(entry.unchecked && entry.unchecked.length > 0 ? { unchecked: [...entry.unchecked] } : {}),
      directions: [...entry.ids],
    });
  }
  const all = [...groups.values()];
  return [
    ...all.filter((group) => group.reference === undefined),
    ...all.filter((group) => group.reference !== undefined),
  ];
}

/** Directions named per line before "and N more". */
const namedPerLine = 4;
/** Groups listed before "and N more groups". */
const groupsListed = 20;

/**
 * `priced by one source: 3 directions (…)` and a line per group: the pairs, then the reference or none. `possible`:
 * validate's wording (what the config can check them against), else a build's.
 */
export function soleSourceLines(groups: readonly SoleSourceStatus[], possible = false): string[] {
  const count = groups.reduce((sum, group) => sum + group.directions.length, 0);
  if (count === 0) return [];
  const bare = groups.filter((group) => group.reference === undefined).reduce((n, g) => n + g.directions.length, 0);
  const head = `priced by one source: ${plural(count, 'direction')}, ${bare} without ${possible ? 'a possible' : 'a'} reference (one broken source can set their rate: docs/pricing-and-guards.md)`;
  const lines = groups.slice(0, groupsListed).map((group) => {
    const names = group.directions.slice(0, namedPerLine).map(directionNameOfId).join(', ');
    const more = group.directions.length > namedPerLine ? ` and ${group.directions.length - namedPerLine} more` : '';
    const against =
      group.reference === undefined
        ? possible
          ? 'no reference possible'
          : 'NO REFERENCE'
        : `${possible ? 'can be checked against' : 'checked against'} ${group.reference}${group.unchecked ? `; nothing checks ${group.unchecked.join(', ')}` : ''}`;
    return `  ${group.pairs.join(', ')}: ${against} — ${names}${more}`;
  });
  if (groups.length > groupsListed) lines.push(`  and ${plural(groups.length - groupsListed, 'more group')}`);
  return [head, ...lines];
}
