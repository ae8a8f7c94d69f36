// The rules for one EREF 1.1 <item> (https://docs.bestchange.biz/schema/1.1.xsd): frommin/frommax/tomin/tomax with the legacy
// minamount/maxamount, fees as a number or N%, <floating minutes= percent=/>, labels as xs:boolean elements, <step> tiers.
import { labels } from '../config/fields.js';
import { Decimal } from '../decimal.js';
import { closest } from '../config/problems.js';
import type { Report } from './findings.js';
import { checkCities, checkCurrency } from './item-values.js';
import { atLeastOne, compare, isOne, isWhole, isZero, paysMoreThan } from './plain.js';
import type { XmlElement } from './tree.js';
import {
  exponentMessage,
  exponentPlain,
  negativeMessage,
  negativeNumber,
  numberProblem,
  rateFormProblem,
} from './values.js';
import { erefRules, itemRules } from './rules.js';
import { show } from '../words.js';

const rules = itemRules(erefRules);
const knownLabels: readonly string[] = labels;
/** What an unknown element may have been meant as: the elements and every label. */
const elementNames = [...[...rules.byName.keys()].filter((name) => name !== 'label'), ...knownLabels];
/** An element's rule: a label element is the table's `label`. */
const ruleOf = (name: string) => rules.byName.get(knownLabels.includes(name) ? 'label' : name);
/** xs:boolean's lexical forms (the 1.1 XSD's type for labels), after white space is collapsed. */
const booleans = new Set(['true', 'false', '1', '0']);

/** Why a rate is not 1:X / X:1 with X ≥ 1; the common good forms are told as text, without a Decimal (rateFormProblem's wording otherwise). */
function rateProblem(inValue: string, outValue: string): string | undefined {
  if ((isOne(inValue) && atLeastOne(outValue)) || (isOne(outValue) && atLeastOne(inValue))) return undefined;
  return rateFormProblem(new Decimal(inValue), new Decimal(outValue));
}

/** Whether the first item of a document uses EREF 1.1's elements: then the whole file is read as EREF 1.1. */
export function looksLikeEref(text: string): boolean {
  const start = text.indexOf('<item');
  if (start === -1) return false;
  const end = text.indexOf('</item>', start);
  return /<(frommin|frommax|tomin|tomax|step)[\s>/]/.test(text.slice(start, end === -1 ? undefined : end));
}

function checkStructure(item: XmlElement, report: Report): Map<string, XmlElement> {
  if (item.text.trim() !== '')
    report('error', 'structure', `text directly inside <item>: "${item.text.trim().slice(0, 40)}"`);
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
  for (const { name, missing } of rules.elements)
    if (missing !== undefined && !seen.has(name)) report(missing.level, 'element-missing', missing.message);
  return seen;
}

function checkValue(element: XmlElement, report: Report): string | undefined {
  const text = element.text.trim();
  const kind = ruleOf(element.name)?.value;
  switch (kind) {
    case 'side-fee': {
      const number = text.endsWith('%') ? text.slice(0, -1) : text;
      const problem = /^\S+ [A-Z][A-Z0-9]*$/.test(text) ? 'names a currency' : numberProblem(number);
      if (problem !== undefined)
        report(
          'error',
          'fee',
          `<${element.name}> "${text}" ${problem} (EREF 1.1: a number in the ${element.name === 'fromfee' ? 'from' : 'to'} currency or N%)`,
          element,
        );
      return undefined;
    }
    case 'floating-attributes': {
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
      return undefined;
    }
    case 'cities':
      checkCities(element, report);
      return undefined;
  }
  // The table's `label` stands for the label elements; an element named <label> is none of them.
  if (kind === 'flag' && element.name !== 'label') {
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
    return undefined;
  }
  if (kind !== 'number' && kind !== 'reserve' && kind !== 'minimum' && kind !== 'maximum' && kind !== 'delay')
    return undefined;
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

/** <step frommin= frommax=> with its own <in>/<out>: inside the item's limits, ascending, not overlapping. */
function checkSteps(steps: readonly XmlElement[], limits: { min?: string; max?: string }, report: Report): void {
  let previousMax: string | undefined;
  for (const step of steps) {
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
    if (
      (limits.min !== undefined && compare(frommin, limits.min) < 0) ||
      (limits.max !== undefined && compare(frommax, limits.max) > 0)
    ) {
      report(
        'warning',
        'step',
        `<step> ${frommin}..${frommax} reaches outside the item's limits ${limits.min ?? '0'}..${limits.max ?? '∞'}`,
        step,
      );
    }
    previousMax = frommax;
    const side = (name: string) => step.children.find((child) => child.name === name)?.text.trim();
    const [inValue, outValue] = [side('in'), side('out')];
    if (
      inValue === undefined ||
      outValue === undefined ||
      numberProblem(inValue) !== undefined ||
      numberProblem(outValue) !== undefined
    ) {
      report('error', 'step', '<step> needs its own <in> and <out> as plain numbers', step);
      continue;
    }
    const problem = rateProblem(inValue, outValue);
    if (problem)
      report(isZero(inValue) || isZero(outValue) ? 'error' : 'tolerated', 'rate-form', `<step>: ${problem}`, step);
  }
}

/** Check one EREF 1.1 item, reporting each finding. */
export function checkErefItem(item: XmlElement, report: Report, codes?: ReadonlySet<string>): void {
  const seen = checkStructure(item, report);
  const values = new Map<string, string>();
  let from: string | undefined;
  let to: string | undefined;
  for (const element of item.children) {
    if (element.name === 'from') from = checkCurrency(element, report, codes);
    else if (element.name === 'to') to = checkCurrency(element, report, codes);
    else if (element.children.length === 0) {
      const value = checkValue(element, report);
      if (value !== undefined) values.set(element.name, value);
    }
  }
  if (from !== undefined && from === to)
    report('error', 'currency', `from and to are the same currency (${from})`, seen.get('to'));
  const [inValue, outValue, amount] = [values.get('in'), values.get('out'), values.get('amount')];
  if (amount !== undefined && isZero(amount))
    report(
      'tolerated',
      'reserve',
      '<amount> (the reserve) is zero: leave the direction out instead',
      seen.get('amount'),
    );
  if (inValue !== undefined && outValue !== undefined) {
    const problem = rateProblem(inValue, outValue);
    if (problem)
      report(isZero(inValue) || isZero(outValue) ? 'error' : 'tolerated', 'rate-form', problem, seen.get('in'));
  }
  for (const [low, high] of [
    ['frommin', 'frommax'],
    ['tomin', 'tomax'],
    ['minamount', 'maxamount'],
  ] as const) {
    const [min, max] = [values.get(low), values.get(high)];
    if (min !== undefined && max !== undefined && compare(min, max) > 0)
      report('tolerated', 'min-max', `<${low}> ${min} is above <${high}> ${max}`, seen.get(low));
  }
  for (const [legacy, current] of [
    ['minamount', 'frommin'],
    ['maxamount', 'frommax'],
  ] as const) {
    const [a, b] = [values.get(legacy), values.get(current)];
    if (a !== undefined && b !== undefined && compare(a, b) !== 0)
      report(
        'warning',
        'limit',
        `<${legacy}> ${a} differs from <${current}> ${b}; monitors reading either should see one limit`,
        seen.get(legacy),
      );
  }
  // A zero reserve is reported once, above (as in a classic item), not again by every limit it cannot pay.
  const reserve = amount !== undefined && !isZero(amount) ? amount : undefined;
  const tomax = values.get('tomax');
  if (tomax !== undefined && reserve !== undefined && compare(tomax, reserve) > 0)
    report('warning', 'reserve', `<tomax> ${tomax} is more than the reserve ${amount}`, seen.get('tomax'));
  const frommax = values.get('frommax');
  if (
    frommax !== undefined &&
    inValue !== undefined &&
    outValue !== undefined &&
    reserve !== undefined &&
    !isZero(inValue) &&
    !isZero(outValue) &&
    paysMoreThan(frommax, inValue, outValue, reserve)
  ) {
    const pays = show(new Decimal(frommax).times(new Decimal(outValue)).div(new Decimal(inValue)));
    report(
      'warning',
      'reserve',
      `the maximum order ${frommax}${from ? ` ${from}` : ''} pays ${pays}${to ? ` ${to}` : ''}, more than the reserve ${amount}`,
      seen.get('frommax'),
    );
  }
  const steps = item.children.filter((child) => child.name === 'step');
  const limits = {
    ...(values.has('frommin') ? { min: values.get('frommin')! } : {}),
    ...(frommax === undefined ? {} : { max: frommax }),
  };
  checkSteps(steps, limits, report);
}
