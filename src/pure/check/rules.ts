// The item rule tables: per element, in the format's order, whether an item must have it (and the finding when it
// does not), whether it may repeat, and what value it takes. The classic item's (https://www.bestchange.com/wiki/rates.html)
// is what every reading of a classic item is derived from: the full rules (item.ts), the standard form the scanner
// matches in one go (simple.ts's pattern, built from it here) and the quick test that clears an item (clean.ts).
// EREF 1.1's (https://docs.bestchange.biz/schema/1.1.xsd) is read by eref.ts's rules; no quick test clears its items.
import type { Level } from './findings.js';
import { standardItemPattern, type StandardForm } from './simple.js';

/**
 * What an element holds; item.ts and eref.ts have the rule for each kind of their format, clean.ts a quick test for
 * some. EREF 1.1 only: `side-fee` (a number or N%), `floating-attributes` (minutes= or percent=), `flag` (a label as
 * xs:boolean), `step` (a tier with its own rate).
 */
export type ValueKind =
  | 'currency'
  | 'number'
  | 'reserve'
  | 'minimum'
  | 'maximum'
  | 'fee'
  | 'floating'
  | 'delay'
  | 'labels'
  | 'cities'
  | 'url'
  | 'side-fee'
  | 'floating-attributes'
  | 'flag'
  | 'step';

export interface ElementRule {
  name: string;
  /** The finding when an item lacks the element; absent: the element is optional. */
  missing?: { level: Level; message: string };
  /** May appear more than once (one limit per unit: the standard's rule for several minimums). */
  repeatable: boolean;
  value: ValueKind;
}

const required = (name: string) => ({ level: 'error' as const, message: `<${name}> is missing` });
const current = (name: string) => ({
  level: 'warning' as const,
  message: `<${name}> is missing; the current BestChange format requires it`,
});

/** The elements of a classic item in the standard order (estandards / Premium), plus our `url` last. */
export const classicRules: readonly ElementRule[] = [
  { name: 'from', missing: required('from'), repeatable: false, value: 'currency' },
  { name: 'to', missing: required('to'), repeatable: false, value: 'currency' },
  { name: 'in', missing: required('in'), repeatable: false, value: 'number' },
  { name: 'out', missing: required('out'), repeatable: false, value: 'number' },
  { name: 'amount', missing: required('amount'), repeatable: false, value: 'reserve' },
  { name: 'minfee', repeatable: false, value: 'fee' },
  { name: 'fromfee', repeatable: false, value: 'fee' },
  { name: 'tofee', repeatable: false, value: 'fee' },
  { name: 'minamount', missing: current('minamount'), repeatable: true, value: 'minimum' },
  { name: 'maxamount', missing: current('maxamount'), repeatable: true, value: 'maximum' },
  { name: 'floating', repeatable: false, value: 'floating' },
  { name: 'delay', repeatable: false, value: 'delay' },
  { name: 'param', repeatable: false, value: 'labels' },
  { name: 'city', repeatable: false, value: 'cities' },
  { name: 'url', repeatable: false, value: 'url' },
];

const erefLimits = (name: string) => ({
  level: 'warning' as const,
  message: `<${name}> is missing; EREF 1.1 gives the order limits in the from currency`,
});
const legacyLimits = (name: string) => ({
  level: 'warning' as const,
  message: `<${name}> is missing; monitor cabinets still read the legacy limits`,
});

/**
 * The elements of an EREF 1.1 item in the schema's sequence as the format's description gives it. `label` stands for
 * every label element (`<manual>true</manual>`…), which sit between <floating> and <city>.
 */
export const erefRules: readonly ElementRule[] = [
  { name: 'from', missing: required('from'), repeatable: false, value: 'currency' },
  { name: 'to', missing: required('to'), repeatable: false, value: 'currency' },
  { name: 'in', missing: required('in'), repeatable: false, value: 'number' },
  { name: 'out', missing: required('out'), repeatable: false, value: 'number' },
  { name: 'amount', missing: required('amount'), repeatable: false, value: 'reserve' },
  { name: 'frommin', missing: erefLimits('frommin'), repeatable: false, value: 'minimum' },
  { name: 'frommax', missing: erefLimits('frommax'), repeatable: false, value: 'maximum' },
  { name: 'tomin', repeatable: false, value: 'minimum' },
  { name: 'tomax', repeatable: false, value: 'maximum' },
  { name: 'fromfee', repeatable: false, value: 'side-fee' },
  { name: 'tofee', repeatable: false, value: 'side-fee' },
  { name: 'step', repeatable: true, value: 'step' },
  { name: 'delay', repeatable: false, value: 'delay' },
  { name: 'floating', repeatable: false, value: 'floating-attributes' },
  { name: 'label', repeatable: false, value: 'flag' },
  { name: 'city', repeatable: false, value: 'cities' },
  { name: 'minamount', missing: legacyLimits('minamount'), repeatable: false, value: 'minimum' },
  { name: 'maxamount', missing: legacyLimits('maxamount'), repeatable: false, value: 'maximum' },
];

/** The form of each kind's value that the scanner's pattern takes; anything else gets the full rules. */
const standardForms: Record<ValueKind, StandardForm> = {
  currency: 'code',
  cities: 'code',
  number: 'number',
  reserve: 'number',
  minimum: 'number',
  maximum: 'number',
  delay: 'number',
  fee: 'text',
  floating: 'text',
  labels: 'text',
  url: 'text',
  // Not in the classic table: an item holding one would get the full rules like any other.
  'side-fee': 'text',
  'floating-attributes': 'text',
  flag: 'text',
  step: 'text',
};

/** A rule table with what is derived from it, made once per table. */
export interface ItemRules {
  elements: readonly ElementRule[];
  /** Each element's rule and its place in the standard order, by name. */
  byName: ReadonlyMap<string, ElementRule & { rank: number }>;
  /** `from, to, in, …`, for findings. */
  order: string;
  /**
   * An item in the standard form (simple.ts): the elements in the table's order, each at most once, those an item
   * must have (else there is a finding) always there, each value in its kind's standard form. Capture `1 + rank`
   * holds an element's text.
   */
  pattern: RegExp;
}

const derived = new WeakMap<readonly ElementRule[], ItemRules>();

export function itemRules(elements: readonly ElementRule[] = classicRules): ItemRules {
  let rules = derived.get(elements);
  if (!rules) {
    rules = {
      elements,
      byName: new Map(elements.map((rule, rank) => [rule.name, { ...rule, rank }])),
      order: elements.map((rule) => rule.name).join(', '),
      pattern: standardItemPattern(
        elements.map((rule) => ({
          name: rule.name,
          form: standardForms[rule.value],
          always: rule.missing !== undefined,
        })),
      ),
    };
    derived.set(elements, rules);
  }
  return rules;
}
