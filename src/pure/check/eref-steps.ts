// EREF 1.1's <step> tiers (https://docs.bestchange.biz/schema/1.1.xsd): each its own rate for a range of the
// amount given, inside the item's limits, ascending, not overlapping.
import type { Report } from './findings.js';
import { compare, isZero } from './plain.js';
import { childNamed, type XmlElement } from './tree.js';
import { numberProblem, rateTextProblem } from './values.js';

/**
 * Each <step frommin= frommax=> with its own <in>/<out>: inside the item's limits (`min`, `max`: its frommin and
 * frommax), ascending, not overlapping.
 */
export function checkSteps(item: XmlElement, min: string | undefined, max: string | undefined, report: Report): void {
  let previousMax: string | undefined;
  for (const step of item.children) {
    if (step.name !== 'step') continue;
    const { frommin, frommax } = step.attributes;
    const bad = [frommin, frommax].find((value) => value === undefined || numberProblem(value) !== undefined);
    if (bad !== undefined || frommin === undefined || frommax === undefined) {
      report(
        'error',
        'step',
        `<step> needs frommin and frommax attributes as plain numbers (got frommin=${JSON.stringify(frommin ?? null)}, frommax=${JSON.stringify(frommax ?? null)})`,
        step,
      );
      continue;
    }
    if (compare(frommin, frommax) > 0)
      report('error', 'step', `<step> frommin ${frommin} is above its frommax ${frommax}`, step);
    if (previousMax !== undefined && compare(frommin, previousMax) <= 0)
      report(
        'error',
        'step',
        `<step> from ${frommin} overlaps or precedes the step before it (up to ${previousMax})`,
        step,
      );
    if ((min !== undefined && compare(frommin, min) < 0) || (max !== undefined && compare(frommax, max) > 0)) {
      report(
        'warning',
        'step',
        `<step> ${frommin}..${frommax} reaches outside the item's limits ${min ?? '0'}..${max ?? '∞'}`,
        step,
      );
    }
    previousMax = frommax;
    const inValue = childNamed(step, 'in')?.text.trim();
    const outValue = childNamed(step, 'out')?.text.trim();
    if (
      inValue === undefined ||
      outValue === undefined ||
      numberProblem(inValue) !== undefined ||
      numberProblem(outValue) !== undefined
    ) {
      report('error', 'step', '<step> needs its own <in> and <out> as plain numbers', step);
      continue;
    }
    const problem = rateTextProblem(inValue, outValue);
    if (problem)
      report(isZero(inValue) || isZero(outValue) ? 'error' : 'tolerated', 'rate-form', `<step>: ${problem}`, step);
  }
}
