// The cap against outliers: a competing direction never goes past the best counted competitor behind its place by
// more than `cap` typical steps, so one broken competitor far ahead cannot pull the rate to the floor (Premium
// Exchanger's "security step" does the same with two steps). Pure; made once per field core like the rest of it.
import { Decimal, formatDecimal } from '../../base/decimal.js';
import type { RankedCompetitor } from '../bestchange/feed.js';
import type { CompeteRule, Currency } from '../../model/config.js';
import type { PublishedRate } from '../../model/priced.js';
import { keyedCache } from './keyed.js';
import { approxOf, type FieldCore } from './field.js';
import { atOrBelow, compareForms, type RateCodes, rateFor, sayForm, sayRate } from './grid.js';
import { show } from '../../base/words.js';
import { rateForRankrate, type RankTerms } from './rankrate.js';
import type { Need } from './standing.js';

const ONE = new Decimal(1);

/** How many of the best counted competitors the typical step is measured on. */
export const TOP = 10;

/** The cap of one city's field. */
export interface Cap {
  city?: string;
  /** The median gap between consecutive distinct rates of the top ten counted (of an even number, the smaller middle one). */
  typicalStep: Decimal;
  /** The best counted competitor behind the place: the best of the rest once the one at the place is set aside. */
  rest: RankedCompetitor;
  /** rest + cap × typical step, and the most generous published step at or below it. */
  rate: Decimal;
  form: PublishedRate;
  /**
   * Our rate at the cap, before it is stepped: `rate` itself, or by rankrate (where the field's rates are
   * 1 ÷ rankrate, their fees in them) the rate whose rankrate with our fees is 1 ÷ `rate`.
   */
  own: Decimal;
  ranked?: true;
}

/**
 * The typical step of a field: the gaps between consecutive distinct rates among its best ten counted, sorted, and
 * the middle one (the smaller of the two middle ones of an even number, so three competitors are guarded too: with
 * one outlier among them, the mean of the two gaps would reach the outlier). Undefined with fewer than two rates.
 */
export function typicalStep(counted: readonly RankedCompetitor[]): Decimal | undefined {
  const gaps: Decimal[] = [];
  const top = counted.slice(0, TOP);
  for (let i = 1; i < top.length; i++) {
    const gap = top[i - 1]!.rate.minus(top[i]!.rate);
    if (gap.greaterThan(0)) gaps.push(gap);
  }
  if (gaps.length === 0) return undefined;
  gaps.sort((a, b) => a.comparedTo(b));
  return gaps[Math.floor((gaps.length - 1) / 2)]!;
}

/** Per core (a feed's, kept with it), per cap, place and rate precisions. */
const made = keyedCache<FieldCore, Cap | null>();

/** The part of the keys a rule decides, per rule (immutable config; WeakMap: a reloaded config frees its rules). */
const ruleKeys = new WeakMap<CompeteRule, string>();
function keyOf(rule: CompeteRule, from: Currency, to: Currency): string {
  let key = ruleKeys.get(rule);
  if (key === undefined) ruleKeys.set(rule, (key = `${rule.cap?.toString()}/${rule.worst}`));
  return `${key}/${from.ratePrecision}/${to.ratePrecision}`;
}

/** The cap of one core, or undefined: no competitor behind the place, or no two distinct rates to measure a step on. */
/**
 * `ranked`: by rankrate (API v2) the field's rates are 1 ÷ rankrate, and the cap's is turned into the published rate
 * whose rankrate it is (our fees at $300). Such cores are made per build, so nothing kept goes stale with the quotes.
 */
function capOf(core: FieldCore, rule: CompeteRule, from: Currency, to: Currency, ranked?: RankTerms): Cap | undefined {
  const { cap: steps } = rule;
  if (!steps) return undefined;
  const cap = made(core, keyOf(rule, from, to), (): Cap | null => {
    const rest = core.counted[rule.worst];
    const step = typicalStep(core.counted);
    const rate = rest && step ? rest.rate.plus(step.times(steps)) : undefined;
    const own = rate && (ranked ? rateForRankrate(ONE.div(rate), ranked.fees, ranked.amount) : rate);
    if (!rest || !step || !rate || !own) return null;
    const found: Cap = {
      typicalStep: step,
      rest,
      rate,
      own,
      form: atOrBelow(own, from, to),
      ...(ranked ? { ranked: true } : {}),
    };
    if (core.city !== undefined) found.city = core.city;
    return found;
  });
  return cap ?? undefined;
}

/**
 * The need once each city's is capped: per city the less generous of its need and its cap, then the most generous
 * of the cities (one rate for all of them). Undefined when no cap binds: the need stands as it is.
 */
export function cappedNeed(
  cores: readonly FieldCore[],
  rule: CompeteRule,
  from: Currency,
  to: Currency,
  need: Need,
  ranked?: RankTerms,
): Capped | undefined {
  if (!rule.cap) return undefined;
  // The cores of one feed and rule are one array (standing.ts), and the need is made of them: one answer per feed.
  const known = cappedMade(cores, keyOf(rule, from, to), () => capNeed(cores, rule, from, to, need, ranked) ?? null);
  return known ?? undefined;
}

interface Capped {
  need: Need;
  caps: Cap[];
}

const cappedMade = keyedCache<readonly FieldCore[], Capped | null>();

function capNeed(
  cores: readonly FieldCore[],
  rule: CompeteRule,
  from: Currency,
  to: Currency,
  need: Need,
  ranked: RankTerms | undefined,
): Capped | undefined {
  let most: PublishedRate | undefined;
  const caps: Cap[] = [];
  for (const core of cores) {
    if (!core.needed) continue;
    const cap = capOf(core, rule, from, to, ranked);
    let form = core.needed;
    if (cap && compareForms(form, cap.form) > 0) {
      form = cap.form;
      caps.push(cap);
    }
    if (!most || compareForms(form, most) > 0) most = form;
  }
  if (!most || compareForms(most, need.form) >= 0) return undefined;
  return { need: { form: most, rate: rateFor(most, from, to), approx: approxOf(most) }, caps };
}

/** Why the rate is the cap's: per city capped, the need, the typical step and the best of the rest. */
export const capReason = (caps: readonly Cap[], need: PublishedRate, rule: CompeteRule, codes: RateCodes): string =>
  caps
    .map((cap) =>
      cap.ranked
        ? `place ${rule.worst} needs ${sayForm(need, codes)}, more than ${rule.cap ? formatDecimal(rule.cap) : '0'} typical steps (${show(cap.typicalStep)}, by rankrate) past ${cap.rest.row.exchanger}, the best of the rest (${sayRate(cap.rest.rate, codes)} with its fees)${cap.city === undefined ? '' : ` in ${cap.city}`}: capped at ${sayRate(cap.own, codes)}, our rate at that rankrate with our fees`
        : `place ${rule.worst} needs ${sayForm(need, codes)}, more than ${rule.cap ? formatDecimal(rule.cap) : '0'} typical steps (${show(cap.typicalStep)}) past ${cap.rest.row.exchanger}, the best of the rest (${sayRate(cap.rest.rate, codes)})${cap.city === undefined ? '' : ` in ${cap.city}`}: capped at ${sayRate(cap.rate, codes)}`,
    )
    .join('; ');
