// The rules across one classic item's elements: from and to differ, the reserve and rate are usable, the limits
// are in order and the reserve pays them, a cash direction names its city.
import { knownCurrencies } from '../codes.js';
import { Decimal, formatDecimal } from '../decimal.js';
import type { Report } from './findings.js';
import { atLeastOne, compare, isOne, isZero, paysMoreThan } from './plain.js';
import type { XmlElement } from './tree.js';
import { rateFormProblem, type Limit } from './values.js';
import { show } from '../words.js';

/** What an item's elements said, as checkItem read them. */
export interface Values {
  from: string | undefined;
  to: string | undefined;
  numbers: Map<string, string>;
  limits: { min: Limit[]; max: Limit[] };
}

/** 1:X or X:1 with X ≥ 1, neither side zero: what rateFormProblem passes. */
const publishedForm = (inValue: string, outValue: string): boolean =>
  (isOne(inValue) && atLeastOne(outValue)) || (isOne(outValue) && atLeastOne(inValue));

export function checkConsistency(item: XmlElement, { from, to, numbers, limits }: Values, report: Report): void {
  const element = (name: string) => item.children.find((child) => child.name === name);
  if (from !== undefined && from === to)
    report('error', 'currency', `from and to are the same currency (${from})`, element('to'));
  const [inValue, outValue, amount] = [numbers.get('in'), numbers.get('out'), numbers.get('amount')];
  // A zero reserve is read as a reserve of 0 (nothing to give now), not misread: tolerated.
  if (amount !== undefined && isZero(amount))
    report(
      'tolerated',
      'reserve',
      '<amount> (the reserve) is zero: leave the direction out instead',
      element('amount'),
    );
  let rate = false;
  if (inValue !== undefined && outValue !== undefined) {
    // 1:X or X:1 with X ≥ 1 needs no Decimal; anything else gets rateFormProblem's wording (or passes it).
    if (!publishedForm(inValue, outValue)) {
      const problem = rateFormProblem(new Decimal(inValue), new Decimal(outValue));
      // Monitors divide out by in, so 1:0.96 or 2:3 reads right; a zero side cannot be read as a rate.
      const zero = isZero(inValue) || isZero(outValue);
      if (problem) report(zero ? 'error' : 'tolerated', 'rate-form', problem, element('in'));
    }
    rate = !isZero(inValue) && !isZero(outValue);
  }
  for (const min of limits.min) {
    for (const max of limits.max) {
      if (min.unit === max.unit && compare(min.value, max.value) > 0) {
        const unit = min.unit ?? from;
        const suffix = unit === undefined ? '' : ` ${unit}`;
        report(
          'tolerated',
          'min-max',
          `minimum ${formatDecimal(new Decimal(min.value))}${suffix} is above the maximum ${formatDecimal(new Decimal(max.value))}${suffix}`,
          element('minamount'),
        );
      }
    }
  }
  if (
    rate &&
    inValue !== undefined &&
    outValue !== undefined &&
    amount !== undefined &&
    !isZero(amount) &&
    to !== undefined
  ) {
    const pays = (limit: Limit) =>
      show(new Decimal(limit.value).times(new Decimal(outValue).div(new Decimal(inValue))));
    const exceeds = (limit: Limit) => paysMoreThan(limit.value, inValue, outValue, amount);
    for (const min of limits.min) {
      if (min.unit === undefined && exceeds(min)) {
        report(
          'tolerated',
          'reserve',
          `the reserve ${formatDecimal(new Decimal(amount))} ${to} cannot pay the minimum order ${formatDecimal(new Decimal(min.value))}${from ? ` ${from}` : ''} (${pays(min)} ${to})`,
          element('amount'),
        );
      }
    }
    for (const max of limits.max) {
      if (max.unit === undefined && exceeds(max)) {
        report(
          'warning',
          'reserve',
          `the maximum order ${formatDecimal(new Decimal(max.value))}${from ? ` ${from}` : ''} pays ${pays(max)} ${to}, more than the reserve ${formatDecimal(new Decimal(amount))} ${to}`,
          element('maxamount'),
        );
      }
    }
  }
  const cash = [from, to].find((code) => code !== undefined && knownCurrencies().get(code)?.kind === 'cash');
  if (cash && !element('city'))
    report('warning', 'city', `cash currency ${cash} without a <city>: monitors list cash directions by city`);
}
