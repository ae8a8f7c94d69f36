// The rules across one classic item's elements: from and to differ, the reserve and rate are usable, the limits
// are in order and the reserve pays them, a cash direction names its city.
import { knownCurrencies } from '../../base/codes.js';
import { Decimal, formatDecimal } from '../../base/decimal.js';
import type { Report } from './findings.js';
import { compare, isZero, paysMoreThan } from './plain.js';
import { childNamed, type XmlElement } from './tree.js';
import { rateTextProblem, type Limit } from './values.js';
import { show } from '../../base/words.js';

/** What an item's elements said, as checkItem read them. */
export interface Values {
  from: string | undefined;
  to: string | undefined;
  numbers: Map<string, string>;
  limits: { min: Limit[]; max: Limit[] };
}

/** The cash side of a direction, if either is cash: monitors list cash directions by city. */
export function cashCurrency(from: string | undefined, to: string | undefined): string | undefined {
  if (from !== undefined && knownCurrencies().get(from)?.kind === 'cash') return from;
  if (to !== undefined && knownCurrencies().get(to)?.kind === 'cash') return to;
  return undefined;
}

/**
 * A zero `<amount>` (classic and EREF 1.1 items alike, one rule): read as a reserve of 0, nothing to give now, not
 * misread, so tolerated. True when it is zero: the limits it cannot pay are not reported again.
 */
export function zeroReserve(amount: string | undefined, element: XmlElement | undefined, report: Report): boolean {
  if (amount === undefined || !isZero(amount)) return false;
  report('tolerated', 'reserve', '<amount> (the reserve) is zero: leave the direction out instead', element);
  return true;
}

export function checkConsistency(item: XmlElement, values: Values, report: Report): void {
  const { from, to, numbers } = values;
  if (from !== undefined && from === to)
    report('error', 'currency', `from and to are the same currency (${from})`, childNamed(item, 'to'));
  const inValue = numbers.get('in');
  const outValue = numbers.get('out');
  const amount = numbers.get('amount');
  const noReserve = zeroReserve(amount, childNamed(item, 'amount'), report);
  if (inValue !== undefined && outValue !== undefined) {
    const problem = rateTextProblem(inValue, outValue);
    // Monitors divide out by in, so 1:0.96 or 2:3 reads right; a zero side cannot be read as a rate.
    if (problem)
      report(isZero(inValue) || isZero(outValue) ? 'error' : 'tolerated', 'rate-form', problem, childNamed(item, 'in'));
  }
  checkLimitOrder(item, values, report);
  // The reserve pays the limits only at a usable rate and a reserve not zero (that one is reported above).
  if (
    inValue !== undefined &&
    outValue !== undefined &&
    !isZero(inValue) &&
    !isZero(outValue) &&
    amount !== undefined &&
    !noReserve &&
    to !== undefined
  )
    checkReservePaysLimits(item, values, inValue, outValue, amount, to, report);
  const cash = cashCurrency(from, to);
  if (cash && !childNamed(item, 'city'))
    report('warning', 'city', `cash currency ${cash} without a <city>: monitors list cash directions by city`);
}

/** Each minimum against each maximum of the same unit. */
function checkLimitOrder(item: XmlElement, { from, limits }: Values, report: Report): void {
  for (const min of limits.min) {
    for (const max of limits.max) {
      if (min.unit === max.unit && compare(min.value, max.value) > 0) {
        const unit = min.unit ?? from;
        const suffix = unit === undefined ? '' : ` ${unit}`;
        report(
          'tolerated',
          'min-max',
          `minimum ${formatDecimal(new Decimal(min.value))}${suffix} is above the maximum ${formatDecimal(new Decimal(max.value))}${suffix}`,
          childNamed(item, 'minamount'),
        );
      }
    }
  }
}

/**
 * The limits in the from currency (no unit) against the reserve, at a usable rate: a minimum it cannot pay is
 * tolerated (no order can be made), a maximum it cannot pay is a warning.
 */
function checkReservePaysLimits(
  item: XmlElement,
  { from, limits }: Values,
  inValue: string,
  outValue: string,
  amount: string,
  to: string,
  report: Report,
): void {
  for (const min of limits.min) {
    if (min.unit === undefined && paysMoreThan(min.value, inValue, outValue, amount)) {
      report(
        'tolerated',
        'reserve',
        `the reserve ${formatDecimal(new Decimal(amount))} ${to} cannot pay the minimum order ${formatDecimal(new Decimal(min.value))}${from ? ` ${from}` : ''} (${pays(min, inValue, outValue)} ${to})`,
        childNamed(item, 'amount'),
      );
    }
  }
  for (const max of limits.max) {
    if (max.unit === undefined && paysMoreThan(max.value, inValue, outValue, amount)) {
      report(
        'warning',
        'reserve',
        `the maximum order ${formatDecimal(new Decimal(max.value))}${from ? ` ${from}` : ''} pays ${pays(max, inValue, outValue)} ${to}, more than the reserve ${formatDecimal(new Decimal(amount))} ${to}`,
        childNamed(item, 'maxamount'),
      );
    }
  }
}

/** What a limit pays in the to currency, for people. */
const pays = (limit: Limit, inValue: string, outValue: string): string =>
  show(new Decimal(limit.value).times(new Decimal(outValue).div(new Decimal(inValue))));
