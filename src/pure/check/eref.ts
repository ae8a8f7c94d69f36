// The rules for one EREF 1.1 <item> (https://docs.bestchange.biz/schema/1.1.xsd): frommin/frommax/tomin/tomax with the legacy
// minamount/maxamount, fees as a number or N%, <floating minutes= percent=/>, labels as xs:boolean elements, <step> tiers.
import { labels } from '../../base/config/fields.js';
import { Decimal } from '../../base/decimal.js';
import { closest } from '../../base/config/problems.js';
import type { Report } from './findings.js';
import { zeroReserve } from './consistency.js';
import { checkSteps } from './eref-steps.js';
import { checkItemText, checkMissing } from './item.js';
import { checkCities, checkCurrency } from './item-values.js';
import { compare, isWhole, isZero, paysMoreThan } from './plain.js';
import type { XmlElement } from './tree.js';
import {
  exponentMessage,
  exponentPlain,
  negativeMessage,
  negativeNumber,
  numberProblem,
  rateTextProblem,
} from './values.js';
import { erefRules, itemRules } from './rules.js';
import { show } from '../../base/words.js';

const rules = itemRules(erefRules);
const knownLabels: readonly string[] = labels;
/** What an unknown element may have been meant as: the elements and every label. */
const elementNames = [...[...rules.byName.keys()].filter((name) => name !== 'label'), ...knownLabels];
/** An element's rule: a label element is the table's `label`. */
const ruleOf = (name: string) => rules.byName.get(knownLabels.includes(name) ? 'label' : name);
/** xs:boolean's lexical forms (the 1.1 XSD's type for labels), after white space is collapsed. */
const booleans = new Set(['true', 'false', '1', '0']);

/** Whether the first item of a document uses EREF 1.1's elements: then the whole file is read as EREF 1.1. */
export function looksLikeEref(text: string): boolean {
  const start = text.indexOf('<item');
  if (start === -1) return false;
  const end = text.indexOf('</item>', start);
  return /<(frommin|frommax|tomin|tomax|step)[\s>/]/.test(text.slice(start, end === -1 ? undefined : end));
}

function checkStructure(item: XmlElement, report: Report): Map<string, XmlElement> {
  checkItemText(item, report);
  const seen = new Map<string, XmlElement>();
  let highest: { name: string; rank: number } | undefined;
  for (const child of item.children) {
    const rule = ruleOf(child.name);
    if (rule === undefined) {
      const hint = child.name === 'param' ? undefined : closest(child.name, elementNames);
      const why =
        child.name === 'param'
          ? '; EREF 1.1 gives each label its own element, like <manual>true</manual>'
          : hint
            ? ` (did you mean <${hint}>?)`
            : '';
      report('warning', 'element-unknown', `unknown element <${child.name}>${why}; monitors ignore it`, child);
      continue;
    }
    if (seen.has(child.name) && !rule.repeatable)
      report('error', 'element-repeated', `<${child.name}> appears more than once`, child);
    seen.set(child.name, child);
    if (highest && rule.rank < highest.rank) {
      report(
        'tolerated',
        'element-order',
        `<${child.name}> comes after <${highest.name}>; the EREF 1.1 order is ${rules.order}`,
        child,
      );
    } else highest = { name: child.name, rank: rule.rank };
    if (rule.value !== 'step' && child.children.length > 0)
      report(
        'error',
        'element-content',
        `<${child.name}> must hold text, not elements (<${child.children[0]!.name}>)`,
        child,
      );
  }
  checkMissing(rules, seen, report);
  return seen;
}

/** Check one element's value by its kind; a number's plain text is returned for the rules across the item. */
function checkValue(element: XmlElement, report: Report): string | undefined {
  const text = element.text.trim();
  const kind = ruleOf(element.name)?.value;
  switch (kind) {
    case 'side-fee':
      checkSideFee(element, text, report);
      return undefined;
    case 'floating-attributes':
      checkFloatingAttributes(element, text, report);
      return undefined;
    case 'cities':
      checkCities(element, report);
      return undefined;
    case 'flag':
      // The table's `label` stands for the label elements; an element named <label> is none of them.
      if (element.name !== 'label') checkFlag(element, text, report);
      return undefined;
    case 'number':
    case 'reserve':
    case 'minimum':
    case 'maximum':
    case 'delay':
      return readNumber(element, text, kind, report);
  }
  return undefined;
}

/** `<fromfee>`, `<tofee>`: a number in that side's currency, or N%. */
function checkSideFee(element: XmlElement, text: string, report: Report): void {
  const number = text.endsWith('%') ? text.slice(0, -1) : text;
  const problem = /^\S+ [A-Z][A-Z0-9]*$/.test(text) ? 'names a currency' : numberProblem(number);
  if (problem !== undefined)
    report(
      'error',
      'fee',
      `<${element.name}> "${text}" ${problem} (EREF 1.1: a number in the ${element.name === 'fromfee' ? 'from' : 'to'} currency or N%)`,
      element,
    );
}

/** `<floating minutes="15"/>` or `<floating percent="1"/>`. */
function checkFloatingAttributes(element: XmlElement, text: string, report: Report): void {
  const { minutes, percent } = element.attributes;
  if (text !== '')
    report(
      'tolerated',
      'floating',
      `<floating> "${text}" holds text; EREF 1.1 writes <floating minutes="15"/> or <floating percent="1"/>`,
      element,
    );
  else if (minutes === undefined && percent === undefined)
    report('error', 'floating', '<floating> has neither a minutes nor a percent attribute', element);
  if (minutes !== undefined && (numberProblem(minutes) !== undefined || !isWhole(minutes)))
    report('error', 'floating', `<floating minutes="${minutes}">: expected whole minutes`, element);
  if (percent !== undefined && numberProblem(percent) !== undefined)
    report('error', 'floating', `<floating percent="${percent}">: ${numberProblem(percent)!}`, element);
}

/** A label element (`<manual>true</manual>`): xs:boolean. */
function checkFlag(element: XmlElement, text: string, report: Report): void {
  // Engines validating against the 1.1 XSD (xs:boolean) refuse the empty element; monitors read both.
  if (text === '')
    report(
      'tolerated',
      'label',
      `<${element.name}/> is empty; the EREF 1.1 schema types labels as xs:boolean: write <${element.name}>true</${element.name}>`,
      element,
    );
  else if (!booleans.has(text))
    report(
      'warning',
      'label',
      `<${element.name}> "${text}": expected true or false (the EREF 1.1 schema types labels as xs:boolean)`,
      element,
    );
}

/** A rate side, the reserve, a limit or the delay: its plain text (exponent notation read as its plain value). */
function readNumber(
  element: XmlElement,
  text: string,
  kind: 'number' | 'reserve' | 'minimum' | 'maximum' | 'delay',
  report: Report,
): string | undefined {
  // A reserve or a maximum, zero or negative: no order can be made (read as written: tolerated, as the classic ones).
  if (negativeNumber(text) !== undefined && (kind === 'reserve' || kind === 'maximum')) {
    report(
      'tolerated',
      kind === 'reserve' ? 'reserve' : 'limit',
      negativeMessage(kind === 'reserve' ? `<${element.name}> (the reserve)` : `<${element.name}>`, text),
      element,
    );
    return undefined;
  }
  const exponent = exponentPlain(text);
  if (exponent !== undefined)
    report('tolerated', 'number', exponentMessage(`<${element.name}>`, text, exponent), element);
  const problem = exponent === undefined ? numberProblem(text) : undefined;
  if (problem !== undefined) {
    report('error', 'number', `<${element.name}> "${text}" ${problem}`, element);
    return undefined;
  }
  const value = exponent ?? text;
  if (kind === 'delay' && !isWhole(value))
    report('warning', 'number', `<${element.name}> "${text}" is not whole minutes`, element);
  if (kind === 'maximum' && isZero(value))
    report('tolerated', 'limit', `<${element.name}> is zero: leave the direction out instead`, element);
  return value;
}

/** What an EREF item's elements said: the elements by name (checkStructure), the currencies, the numbers as plain text. */
interface ErefValues {
  seen: Map<string, XmlElement>;
  from: string | undefined;
  to: string | undefined;
  numbers: Map<string, string>;
}

/** Check one EREF 1.1 item, reporting each finding. */
export function checkErefItem(item: XmlElement, report: Report, codes?: ReadonlySet<string>): void {
  const values: ErefValues = { seen: checkStructure(item, report), from: undefined, to: undefined, numbers: new Map() };
  readValues(item, values, report, codes);
  const { seen, from, to, numbers } = values;
  if (from !== undefined && from === to)
    report('error', 'currency', `from and to are the same currency (${from})`, seen.get('to'));
  const amount = numbers.get('amount');
  const noReserve = zeroReserve(amount, seen.get('amount'), report);
  const inValue = numbers.get('in');
  const outValue = numbers.get('out');
  if (inValue !== undefined && outValue !== undefined) {
    const problem = rateTextProblem(inValue, outValue);
    if (problem)
      report(isZero(inValue) || isZero(outValue) ? 'error' : 'tolerated', 'rate-form', problem, seen.get('in'));
  }
  checkLimitOrder(values, report);
  // A zero reserve is reported once, above (as in a classic item), not again by every limit it cannot pay.
  if (amount !== undefined && !noReserve) checkReservePaysLimits(values, amount, report);
  checkSteps(item, numbers.get('frommin'), numbers.get('frommax'), report);
}

/** Each element's value: the currencies kept, and each other element's by its kind (a number kept as plain text). */
function readValues(item: XmlElement, values: ErefValues, report: Report, codes: ReadonlySet<string> | undefined) {
  for (const element of item.children) {
    if (element.name === 'from') values.from = checkCurrency(element, report, codes);
    else if (element.name === 'to') values.to = checkCurrency(element, report, codes);
    else if (element.children.length === 0) {
      const value = checkValue(element, report);
      if (value !== undefined) values.numbers.set(element.name, value);
    }
  }
}

/** Each minimum and the maximum it pairs with. */
const limitPairs = [
  ['frommin', 'frommax'],
  ['tomin', 'tomax'],
  ['minamount', 'maxamount'],
] as const;
/** The legacy limits and the current ones they stand for. */
const legacyLimits = [
  ['minamount', 'frommin'],
  ['maxamount', 'frommax'],
] as const;

/** Each minimum at most its maximum; a legacy limit the same as the current one. */
function checkLimitOrder({ seen, numbers }: ErefValues, report: Report): void {
  for (const [low, high] of limitPairs) {
    const min = numbers.get(low);
    const max = numbers.get(high);
    if (min !== undefined && max !== undefined && compare(min, max) > 0)
      report('tolerated', 'min-max', `<${low}> ${min} is above <${high}> ${max}`, seen.get(low));
  }
  for (const [legacy, current] of legacyLimits) {
    const a = numbers.get(legacy);
    const b = numbers.get(current);
    if (a !== undefined && b !== undefined && compare(a, b) !== 0)
      report(
        'warning',
        'limit',
        `<${legacy}> ${a} differs from <${current}> ${b}; monitors reading either should see one limit`,
        seen.get(legacy),
      );
  }
}

/** The maximums against a reserve that is not zero: `<tomax>` as written, `<frommax>` at the rate when usable. */
function checkReservePaysLimits({ seen, from, to, numbers }: ErefValues, reserve: string, report: Report): void {
  const tomax = numbers.get('tomax');
  if (tomax !== undefined && compare(tomax, reserve) > 0)
    report('warning', 'reserve', `<tomax> ${tomax} is more than the reserve ${reserve}`, seen.get('tomax'));
  const frommax = numbers.get('frommax');
  const inValue = numbers.get('in');
  const outValue = numbers.get('out');
  if (
    frommax !== undefined &&
    inValue !== undefined &&
    outValue !== undefined &&
    !isZero(inValue) &&
    !isZero(outValue) &&
    paysMoreThan(frommax, inValue, outValue, reserve)
  ) {
    const pays = show(new Decimal(frommax).times(new Decimal(outValue)).div(new Decimal(inValue)));
    report(
      'warning',
      'reserve',
      `the maximum order ${frommax}${from ? ` ${from}` : ''} pays ${pays}${to ? ` ${to}` : ''}, more than the reserve ${reserve}`,
      seen.get('frommax'),
    );
  }
}
