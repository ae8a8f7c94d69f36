// The floor and the ceiling of a competing direction: market × (1 − floor) and market × (1 − ceiling), each as
// the published step next to it. They depend on the build's market, so they are made every build, but only once
// per market: directions of one chain share their market object (pricing makes one per conversion and book),
// and about half the competing directions of a large config share one with another.
import { keyedCache } from './keyed.js';
import { compact, Decimal } from '../../base/decimal.js';
import type { CompeteRule, Currency } from '../../model/config.js';
import { approxOf, compareQuick } from './field.js';
import { atOrAbove, atOrBelow } from './grid.js';
import type { PublishedRate } from '../../model/priced.js';

export interface Bounds {
  floorRate: Decimal;
  ceilingRate: Decimal;
  /** The published steps next to the floor (at or below it) and the ceiling (at or above it), and both as doubles. */
  floorForm: PublishedRate;
  ceilingForm: PublishedRate;
  floorApprox: number;
  ceilingApprox: number;
  /** No published step lies between the ceiling and the floor. */
  squeezed: boolean;
  /** The market as a double, for the quick deviation test. */
  marketApprox: number;
}

const ONE = new Decimal(1);

/** 1 − floor, 1 − ceiling and their values as text, per rule (immutable config; WeakMap: a reloaded config frees its rules). */
const factors = new WeakMap<CompeteRule, { floor: Decimal; ceiling: Decimal; key: string }>();

function factorsOf(rule: CompeteRule) {
  let known = factors.get(rule);
  if (!known)
    factors.set(
      rule,
      (known = {
        floor: ONE.minus(rule.floor),
        ceiling: ONE.minus(rule.ceiling),
        key: `${rule.floor.toString()}/${rule.ceiling.toString()}`,
      }),
    );
  return known;
}

/**
 * Per market object (a Decimal is never changed in place; WeakMap: gone with the build's directions), per the
 * values of floor and ceiling and the rate precisions: everything the bounds are made of.
 */
const made = keyedCache<Decimal, Bounds>();

export function boundsOf(market: Decimal, rule: CompeteRule, from: Currency, to: Currency): Bounds {
  const factor = factorsOf(rule);
  return made(market, `${factor.key}/${from.ratePrecision}/${to.ratePrecision}`, () => {
    const floorRate = compact(market.times(factor.floor));
    const ceilingRate = compact(market.times(factor.ceiling));
    const floorForm = atOrBelow(floorRate, from, to);
    const ceilingForm = atOrAbove(ceilingRate, from, to);
    const [floorApprox, ceilingApprox] = [approxOf(floorForm), approxOf(ceilingForm)];
    const squeezed = compareQuick(ceilingForm, ceilingApprox, floorForm, floorApprox) > 0;
    return {
      floorRate,
      ceilingRate,
      floorForm,
      ceilingForm,
      floorApprox,
      ceilingApprox,
      squeezed,
      marketApprox: market.toNumber(),
    };
  });
}
