// A direction's plan (what its price depends on besides the book), its rate after the margin, and its limits' terms. Pure.
import { compact, Decimal, roundDown } from '../../base/decimal.js';
import type { Currency, Direction, Money } from '../../model/config.js';
import type { LimitTerms, WithheldKind } from '../../model/priced.js';
import type { QuoteBook } from '../../model/source.js';
import { limitThroughBook } from './convert.js';

const ONE = new Decimal(1);

/**
 * What a direction's price depends on besides the quote book, worked out once per direction object: the
 * loaded config's directions outlive every build and are never changed in place (a reserve source or a city
 * pause makes a new object), so a WeakMap by identity cannot serve a stale plan and frees a reloaded config's.
 * Every field follows from `group`, so directions alike share one plan object (see `sharedPlans`).
 */
interface DirectionPlan {
  /** Directions with the same group price alike from one book (same chain, margin, precisions, reserve, limits). */
  group: string;
  /** What the limit terms depend on besides the book. */
  limits: string;
  /** The reserve as published (`LimitTerms.amount`). */
  amount: Decimal;
  margin: string;
  /** The market is multiplied by this (1 − margin). */
  keep: Decimal;
  reserveShown: boolean;
}
const plans = new WeakMap<Direction, DirectionPlan>();

/**
 * One plan per group for the config's own values, kept per to currency (a config object: a reloaded config's go
 * with it), and within it one `amount` per reserve and one `keep` per margin: tens of thousands of directions have
 * far fewer groups (one per asset pair and margin at most), and a plan of its own per direction would be most of
 * what pricing keeps between builds. A reserve read from a source (and the limits that come with it) is new at
 * every build: such a direction's plan is its own, so these maps hold only values of the config.
 */
interface SharedPlans {
  plans: Map<string, DirectionPlan>;
  numbers: Map<string, Decimal>;
}
const sharedPlans = new WeakMap<Currency, SharedPlans>();

export function planOf(direction: Direction): DirectionPlan {
  let plan = plans.get(direction);
  if (!plan) {
    // A reserve read or made at every build has values of its own: its plan is its own too.
    const perBuild =
      direction.reserveSource !== undefined ||
      direction.reserveFormula !== undefined ||
      direction.reserveMade !== undefined;
    plan = perBuild ? newPlan(direction, planKeys(direction)) : sharedPlan(direction);
    plans.set(direction, plan);
  }
  return plan;
}

function sharedPlan(direction: Direction): DirectionPlan {
  const keys = planKeys(direction);
  let shared = sharedPlans.get(direction.to);
  if (!shared) sharedPlans.set(direction.to, (shared = { plans: new Map(), numbers: new Map() }));
  const known = shared.plans.get(keys.group);
  if (known) return known;
  const { numbers } = shared;
  const one = (value: Decimal) =>
    numbers.get(value.toString()) ?? numbers.set(value.toString(), value).get(value.toString())!;
  const plan = newPlan(direction, keys, one);
  shared.plans.set(keys.group, plan);
  return plan;
}

/** The texts naming what a direction's limits, and its whole price, depend on besides the book. */
function planKeys(direction: Direction): Pick<DirectionPlan, 'group' | 'limits' | 'margin'> {
  const { from, to, min, max, chain } = direction;
  const money = (limit: Money | undefined) => (limit ? `${limit.value.toString()} ${limit.asset}` : '');
  const limits = [
    direction.reserve.toString(),
    from.asset,
    from.precision,
    to.asset,
    to.precision,
    money(min),
    money(max),
  ].join('|');
  const margin = direction.margin.toString();
  // An explicit chain by its pairs (directions found their chain by assets, which `limits` names).
  const group = [chain ? chain.join(',') : '*', margin, from.ratePrecision, to.ratePrecision, limits].join('|');
  return { group, limits, margin };
}

/** A plan; `one` gives the copy of a number to keep (plans alike share theirs). */
function newPlan(
  direction: Direction,
  { group, limits, margin }: ReturnType<typeof planKeys>,
  one = (value: Decimal) => value,
): DirectionPlan {
  const amount = one(roundDown(direction.reserve, direction.to.precision));
  // Compared as published: a reserve below the last decimal place would be printed as 0.
  return { group, limits, amount, margin, keep: one(ONE.minus(direction.margin)), reserveShown: !amount.isZero() };
}

/**
 * The market rate after a margin, one object per conversion (made once per book and chain) and margin: the groups
 * that share them share one rate object, so the guards check it and the exports print it once.
 */
const marginRates = new WeakMap<object, Map<string, Decimal>>();

export function marginRate(converted: { factor: Decimal }, direction: Direction): Decimal {
  const { margin, keep } = planOf(direction);
  let byMargin = marginRates.get(converted);
  if (!byMargin) marginRates.set(converted, (byMargin = new Map()));
  return byMargin.get(margin) ?? byMargin.set(margin, compact(converted.factor.times(keep))).get(margin)!;
}

/** Terms per quote book and everything else they depend on (the direction's limits key): shared by directions alike. */
const sharedTerms = new WeakMap<QuoteBook, Map<string, LimitTerms>>();

export function termsOf(direction: Direction, book: QuoteBook): LimitTerms | { reason: string; kind: WithheldKind } {
  const plan = planOf(direction);
  const key = plan.limits;
  let byKey = sharedTerms.get(book);
  if (!byKey) sharedTerms.set(book, (byKey = new Map()));
  const known = byKey.get(key);
  if (known) return known;
  const { from, to } = direction;
  const terms: LimitTerms = { amount: plan.amount };
  for (const [name, limit] of [
    ['max', direction.max],
    ['min', direction.min],
  ] as const) {
    if (!limit) continue;
    if (limit.asset === from.asset) terms[`${name}From`] = limit.value;
    else if (limit.asset === to.asset) terms[`${name}To`] = limit.value;
    else {
      // A minimum at the side giving the larger amount, a maximum at the side giving the smaller.
      const converted = limitThroughBook(
        limit,
        direction,
        book,
        name === 'min',
        `${name} ${limit.value.toString()} ${limit.asset}>${from.asset}`,
      );
      if (converted === undefined)
        return {
          kind: 'quote',
          reason: `cannot convert ${name} ${limit.value.toFixed()} ${limit.asset} to ${from.asset}: no quotes`,
        };
      terms[`${name}From`] = converted;
    }
  }
  byKey.set(key, terms);
  return terms;
}
