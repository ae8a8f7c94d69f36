// The `compete:` block of a direction: which BestChange feed to compete in, the place to hold and the bounds
// (floor and ceiling margins) the rate stays inside. Schema, cross-checks on the raw config, normalization.
import { z } from 'zod';
import { quoteValue } from '../../base/errors.js';
import { amountWithUnit, describeValue, duration, percentage } from '../../base/config/fields.js';
import type { CompeteRule, Money } from '../../model/config.js';
import { Decimal, percentToFraction } from '../../base/decimal.js';
import { closest, type Problem } from '../../base/config/problems.js';

const expected = (what: string) => (issue: { input?: unknown }) =>
  `expected ${what}, got ${describeValue(issue.input)}`;
const placeWhat = 'a place like 3 or a range like "1-3" (1 is the best)';
const capWhat = 'a number of typical steps like 2, or "off"';
const warWhat = '"off" or a mapping like { rounds: 3, within: 2m, coolDown: 15m }';

/** 3, "3" or "1-3": a place or a range of places, the better first. */
const place = z
  .union([z.int().min(0).max(9999), z.string().regex(/^\d{1,4}(-\d{1,4})?$/)], { error: expected(placeWhat) })
  .superRefine((value, context) => {
    const match = /^(\d{1,4})(?:-(\d{1,4}))?$/.exec(String(value));
    const [best, worst] = match ? [Number(match[1]), Number(match[2] ?? match[1])] : [0, 0];
    if (!match || best < 1) context.addIssue({ code: 'custom', message: expected(placeWhat)({ input: value }) });
    else if (worst < best)
      context.addIssue({
        code: 'custom',
        message: `expected a range from the better place to the worse like "${worst}-${best}", got ${describeValue(value)}`,
      });
  });

/** Premium Exchanger's "security step" never goes past the best rate by more than two steps: the same here. */
const defaultCap = 2;
/**
 * Three answers in a row: one or two can be the market moving everyone; a third answer landing within two minutes
 * of each of our moves is a bot reacting to us. Two minutes: BestChange reads our file, the rival's bot reads
 * BestChange (30 s at the least) and publishes, BestChange reads theirs, and we fetch the feed again (30 s).
 * Fifteen minutes of holding: long enough for the rival's bot to settle, short enough to lose little place.
 */
const defaultWar = { rounds: 3, within: '2m', coolDown: '15m' } as const;

const nonNegative = (what: string) =>
  percentage.refine((value) => !value.trim().startsWith('-'), { error: expected(`${what} of 0% or more like "0.5%"`) });

export const competeSchema = z
  .strictObject({
    source: z
      .string({ error: expected('the name of a bestchange source') })
      .optional()
      .describe('The bestchange source whose feed is the field; default: the config’s only one.'),
    place: place.describe(
      'The place to hold among the counted competitors: 3, or "1-3" for anywhere in that range (the worst of it is held).',
    ),
    step: nonNegative('a step')
      .default('0%')
      .describe(
        'How much better than the competitor at the place, e.g. "0.01%"; 0% (default): by the smallest step the published rate can take.',
      ),
    floor: nonNegative('a floor').describe('Least margin: never more generous than market × (1 − floor).'),
    ceiling: nonNegative('a ceiling').describe(
      'Most margin: never less generous than market × (1 − ceiling); also the rate when fewer competitors than the place.',
    ),
    deviation: nonNegative('a deviation')
      .default('10%')
      .describe(
        'The field is not trusted (normal margin) when the median of its top five is further than this from the market.',
      ),
    ignore: z
      .array(z.union([z.int().min(0), z.string().min(1).max(100)], { error: expected('an exchanger name or id') }))
      .default([])
      .describe('Exchangers not counted, by name (as BestChange lists it) or id: your own listing, partners.'),
    minReserve: amountWithUnit
      .optional()
      .describe('Competitors with a smaller reserve do not count: "1000 USDT", or a plain amount of the to currency.'),
    cap: z
      .union([z.number().positive().max(1000), z.literal('off', { error: expected(capWhat) })], {
        error: expected(capWhat),
      })
      .default(defaultCap)
      .describe(
        'Never more generous than the best counted competitor behind the place by more than this many typical steps (the median gap between consecutive distinct rates of the top ten counted), so one broken competitor far ahead cannot pull the rate to the floor; "off": no cap.',
      ),
    war: z
      .union(
        [
          z.strictObject({
            rounds: z
              .int({ error: expected('a whole number of rounds from 2 to 100') })
              .min(2, { error: expected('a whole number of rounds from 2 to 100') })
              .max(100, { error: expected('a whole number of rounds from 2 to 100') })
              .default(defaultWar.rounds)
              .describe('Our moves answered in a row by the same competitor that make a price war.'),
            within: duration
              .prefault(defaultWar.within)
              .describe('An answer counts when the feed showing it was fetched at most this long after our move.'),
            coolDown: duration
              .prefault(defaultWar.coolDown)
              .describe('How long the rate is held (never more generous) once a war is seen.'),
          }),
          z.literal('off', { error: expected(warWhat) }),
        ],
        { error: expected(warWhat) },
      )
      .prefault({})
      .describe(
        'Price-war detection (on by default): when the competitor ahead answers each of our moves, hold the rate for a cool-down instead of chasing it to the floor; "off": always chase.',
      ),
  })
  .superRefine((block, context) => {
    if (percentToFraction(block.floor).greaterThan(percentToFraction(block.ceiling))) {
      context.addIssue({
        code: 'custom',
        path: ['floor'],
        message: `expected a floor no higher than the ceiling ${quoteValue(block.ceiling)} (the floor is the least margin), got ${quoteValue(block.floor)}`,
      });
    }
  })
  .describe(
    'Price from BestChange’s field: hold a place between a floor and a ceiling margin; the normal margin when the field is not trusted.',
  );

export type CompeteEntry = z.output<typeof competeSchema>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The bestchange sources of a raw config to compete in, by name: not one that only stands in for another (`fallback:`). */
export function bestchangeSources(rawSources: unknown): string[] {
  if (!isRecord(rawSources)) return [];
  const entries = Object.entries(rawSources).filter(([, entry]) => isRecord(entry) && entry.type === 'bestchange');
  const standIns = new Set(entries.map(([, entry]) => (entry as Record<string, unknown>).fallback));
  return entries.filter(([name]) => !standIns.has(name)).map(([name]) => name);
}

/** The feed a compete block competes in: its `source` or the config's only bestchange source; a problem otherwise. */
export function competeSourceProblem(
  block: unknown,
  rawSources: unknown,
  path: (string | number)[],
): Problem | undefined {
  if (!isRecord(block)) return undefined;
  const feeds = bestchangeSources(rawSources);
  const name = block.source;
  if (name === undefined) {
    if (feeds.length === 1) return undefined;
    return feeds.length === 0
      ? { path, message: 'needs a source of type bestchange in sources (the feed to compete in), found none' }
      : {
          path: [...path, 'source'],
          message: `required: the config has several bestchange sources (${feeds.join(', ')}); name the one to compete in`,
        };
  }
  if (typeof name === 'string' && feeds.includes(name)) return undefined;
  const others = isRecord(rawSources) ? Object.keys(rawSources) : [];
  const other = typeof name === 'string' && others.includes(name);
  const hint = typeof name === 'string' ? closest(name, feeds) : undefined;
  return {
    path: [...path, 'source'],
    message: `expected a bestchange source (${feeds.join(', ') || 'none configured'})${hint ? ` (did you mean "${hint}"?)` : ''}, got ${describeValue(name)}${other ? ', a source of another type' : ''}`,
  };
}

/** A margin outside [floor, ceiling] is allowed (it is the fallback), but worth a warning: the fallback then leaves the bounds. */
export function competeMarginWarning(block: unknown, margin: unknown, path: (string | number)[]): Problem | undefined {
  if (
    !isRecord(block) ||
    typeof margin !== 'string' ||
    typeof block.floor !== 'string' ||
    typeof block.ceiling !== 'string'
  )
    return undefined;
  const [m, floor, ceiling] = [margin, block.floor, block.ceiling].map((text) => Number.parseFloat(text));
  if (m === undefined || floor === undefined || ceiling === undefined || [m, floor, ceiling].some(Number.isNaN))
    return undefined;
  if (m < floor)
    return {
      path,
      message: `the margin ${quoteValue(margin)} is below the floor ${quoteValue(block.floor)}: when the field is not trusted, the rate is more generous than the floor`,
    };
  if (m > ceiling)
    return {
      path,
      message: `the margin ${quoteValue(margin)} is above the ceiling ${quoteValue(block.ceiling)}: when the field is not trusted, the rate is less generous than the ceiling`,
    };
  return undefined;
}

/** The `self` ids of a raw config's bestchange source `name`: the exchanger's own listing. */
export function selfIdsOf(rawSources: unknown, name: string): number[] {
  const entry = isRecord(rawSources) ? rawSources[name] : undefined;
  const self = isRecord(entry) ? entry.self : undefined;
  return (Array.isArray(self) ? self : [self]).filter((id): id is number => typeof id === 'number');
}

/** The normalized rule; `parseMoney` reads minReserve like a limit (a plain amount is of the to currency). */
export function normalizeCompete(
  entry: CompeteEntry,
  feeds: readonly string[],
  minReserve: Money | undefined,
  selfIds: readonly number[] = [],
): CompeteRule {
  const [best, worst] = String(entry.place).split('-').map(Number) as [number, number?];
  const ids = entry.ignore.filter((item) => typeof item === 'number' || /^\d+$/.test(item)).map(Number);
  const names = entry.ignore
    .filter((item): item is string => typeof item === 'string' && !/^\d+$/.test(item))
    .map((name) => name.toLowerCase());
  return {
    source: entry.source ?? feeds[0]!,
    target: worst === undefined || worst === best ? String(best) : `${best}-${worst}`,
    best,
    worst: worst ?? best,
    step: percentToFraction(entry.step),
    floor: percentToFraction(entry.floor),
    ceiling: percentToFraction(entry.ceiling),
    deviation: percentToFraction(entry.deviation),
    ignore: entry.ignore.map(String),
    ignoreNames: new Set(names),
    ignoreIds: new Set(ids),
    ...(minReserve ? { minReserve } : {}),
    ...(entry.cap === 'off' ? {} : { cap: new Decimal(entry.cap) }),
    ...(entry.war === 'off'
      ? {}
      : { war: { rounds: entry.war.rounds, withinMs: entry.war.within, coolDownMs: entry.war.coolDown } }),
    ...(selfIds.length > 0 ? { selfIds: new Set(selfIds) } : {}),
  };
}
