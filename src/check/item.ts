// The rules for one <item>: elements present, known and in order, and what value each takes, as the rule table
// (rules.ts) has them; each value in its standard form; limits and reserve consistent.
import { knownCities, knownCurrencies } from '../codes.js';
import { closest } from '../config/problems.js';
import { labels } from '../config/fields.js';
import type { ItemRef, Report } from './findings.js';
import type { XmlElement } from './tree.js';
import { isWhole, isZero } from './plain.js';
import {
  exponentMessage,
  exponentPlain,
  negativeMessage,
  negativeNumber,
  numberProblem,
  parseFee,
  parseFloating,
  parseLimit,
  type Limit,
} from './values.js';
import { checkConsistency } from './consistency.js';
import { itemRules, type ItemRules } from './rules.js';

const knownLabels: readonly string[] = labels;

/** Codes a limit or fee may be given in: every known currency code and every asset they are priced as. */
let units: Set<string> | undefined;
const knownUnits = () =>
  (units ??= new Set([...knownCurrencies().keys(), ...[...knownCurrencies().values()].map((c) => c.asset)]));
export const isKnownUnit = (unit: string): boolean => knownUnits().has(unit);

/** "Did you mean" hints per code: a big file repeats the same unknown code thousands of times. */
const hints = new Map<string, string | undefined>();
function closestKnown(kind: 'currency' | 'city' | 'unit', code: string): string | undefined {
  const key = `${kind}:${code}`;
  if (!hints.has(key)) {
    if (hints.size > 10_000) hints.clear();
    hints.set(
      key,
      closest(
        code,
        kind === 'currency' ? knownCurrencies().keys() : kind === 'city' ? knownCities().keys() : knownUnits(),
      ),
    );
  }
  return hints.get(key);
}

/** The text of each element, trimmed, and the item's reference (index and direction). */
export function itemRef(item: XmlElement, index: number): ItemRef {
  const value = (name: string) => item.children.find((child) => child.name === name)?.text.trim();
  const [from, to, city] = [value('from'), value('to'), value('city')];
  return { index, ...(from ? { from } : {}), ...(to ? { to } : {}), ...(city ? { city } : {}) };
}

/** Whether an object has an own key, without an array of them (nearly every element has none). */
function hasKeys(object: Record<string, unknown>): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

function checkStructure(item: XmlElement, report: Report, rules: ItemRules): void {
  if (item.text.trim() !== '')
    report('error', 'structure', `text directly inside <item>: "${item.text.trim().slice(0, 40)}"`);
  const seen = new Map<string, XmlElement>();
  let highest: number | undefined;
  for (const child of item.children) {
    const rule = rules.byName.get(child.name);
    if (rule === undefined) {
      const hint = closest(child.name, rules.byName.keys());
      report(
        'warning',
        'element-unknown',
        `unknown element <${child.name}>${hint ? ` (did you mean <${hint}>?)` : ''}; monitors ignore it`,
        child,
      );
      continue;
    }
    if (seen.has(child.name) && !rule.repeatable)
      report('error', 'element-repeated', `<${child.name}> appears more than once`, child);
    seen.set(child.name, child);
    if (highest !== undefined && rule.rank < highest) {
      // Monitors read elements by name; only the written standard (and EREF 1.1's XSD) fixes an order.
      report(
        'tolerated',
        'element-order',
        `<${child.name}> comes after <${rules.elements[highest]!.name}>; the standard order is ${rules.order}`,
        child,
      );
    } else {
      highest = rule.rank;
    }
    if (child.children.length > 0)
      report(
        'error',
        'element-content',
        `<${child.name}> must hold text, not elements (<${child.children[0]!.name}>)`,
        child,
      );
    if (hasKeys(child.attributes))
      report(
        'warning',
        'element-content',
        `<${child.name}> has attributes (${Object.keys(child.attributes).join(', ')}); monitors ignore them`,
        child,
      );
    if (child.text !== child.text.trim())
      report('warning', 'element-content', `<${child.name}> has spaces around its value`, child);
  }
  for (const { name, missing } of rules.elements)
    if (missing !== undefined && !seen.has(name)) report(missing.level, 'element-missing', missing.message);
}

export function checkCurrency(element: XmlElement, report: Report, codes?: ReadonlySet<string>): string | undefined {
  const code = element.text.trim();
  if (code === '') {
    report('error', 'currency', `<${element.name}> is empty`, element);
    return undefined;
  }
  if (!knownCurrencies().has(code) && !codes?.has(code)) {
    const hint = closestKnown('currency', code);
    report(
      'warning',
      'currency',
      `unknown currency code "${code}" in <${element.name}>${hint ? ` (closest known: "${hint}")` : ''}`,
      element,
    );
  }
  return code;
}

function checkLabels(element: XmlElement, report: Report): void {
  const parts = element.text.split(',').map((part) => part.trim());
  if (parts.every((part) => part === '')) {
    report('warning', 'label', '<param> is empty', element);
    return;
  }
  const seen = new Set<string>();
  for (const part of parts) {
    if (part === '')
      report('warning', 'label', `<param> "${element.text.trim()}" has an empty label between commas`, element);
    else if (part === 'floating')
      report('warning', 'label', 'label "floating" is the old form; publish a <floating> element instead', element);
    else if (!knownLabels.includes(part)) {
      // Monitors read the item and leave the label out, as they do an unknown element: tolerated, not an error.
      const hint = closest(part, knownLabels);
      report(
        'tolerated',
        'label',
        `unknown label "${part}"${hint ? ` (did you mean "${hint}"?)` : ''}; monitors ignore it; known labels: ${knownLabels.join(', ')}`,
        element,
      );
    } else if (seen.has(part)) report('warning', 'label', `label "${part}" is given twice`, element);
    seen.add(part);
  }
}

export function checkCities(element: XmlElement, report: Report): void {
  const codes = element.text.split(',').map((part) => part.trim());
  if (codes.length > 1)
    report(
      'warning',
      'city',
      `several cities in one <city> ("${element.text.trim()}"); the standard is one <item> per city`,
      element,
    );
  for (const code of codes) {
    if (code === '') report('error', 'city', '<city> is empty', element);
    else if (!knownCities().has(code)) {
      const hint = closestKnown('city', code);
      report('warning', 'city', `unknown city code "${code}"${hint ? ` (closest known: "${hint}")` : ''}`, element);
    }
  }
}

/** A limit whose number is in exponent notation (`1E3`, `1E3 RUB`): reported, then read as its plain value. */
function exponentLimit(text: string, element: XmlElement, report: Report): { ok: true; value: Limit } | undefined {
  const [number = '', unit, ...rest] = text.split(' ');
  const plain = exponentPlain(number);
  if (plain === undefined || rest.length > 0 || (unit !== undefined && !/^[A-Z][A-Z0-9]*$/.test(unit)))
    return undefined;
  report('tolerated', 'number', exponentMessage(`<${element.name}>`, text, plain), element);
  return { ok: true, value: { value: plain, ...(unit === undefined ? {} : { unit }) } };
}

function checkUnit(unit: string | undefined, element: XmlElement, report: Report): void {
  if (unit === undefined || unit === '%' || knownUnits().has(unit)) return;
  const hint = closestKnown('unit', unit);
  report(
    'warning',
    'currency',
    `unknown currency "${unit}" in <${element.name}>${hint ? ` (closest known: "${hint}")` : ''}`,
    element,
  );
}

/** Check one item against the standard's rules (`rules`: the table, rules.ts), reporting each finding. */
export function checkItem(
  item: XmlElement,
  report: Report,
  codes?: ReadonlySet<string>,
  rules: ItemRules = itemRules(),
): void {
  checkStructure(item, report, rules);
  // Numbers as plain text (plain.ts): Decimal only to word a finding.
  const numbers = new Map<string, string>();
  const limits: { min: Limit[]; max: Limit[] } = { min: [], max: [] };
  let from: string | undefined;
  let to: string | undefined;
  for (const element of item.children) {
    // An element holding elements is already reported; its text would only repeat the problem.
    if (element.children.length > 0) continue;
    const text = element.text.trim();
    const invalid = (problem: string) => report('error', 'number', `<${element.name}> "${text}" ${problem}`, element);
    const kind = rules.byName.get(element.name)?.value;
    switch (kind) {
      case 'currency': {
        const code = checkCurrency(element, report, codes);
        if (element.name === 'from') from = code;
        else if (element.name === 'to') to = code;
        break;
      }
      case 'number':
      case 'reserve': {
        // A negative reserve is read as written, as a zero one is: unusable, not misread (same level as zero).
        if (kind === 'reserve' && negativeNumber(text) !== undefined) {
          report('tolerated', 'reserve', negativeMessage(`<${element.name}> (the reserve)`, text), element);
          break;
        }
        const exponent = exponentPlain(text);
        if (exponent !== undefined) {
          report('tolerated', 'number', exponentMessage(`<${element.name}>`, text, exponent), element);
          numbers.set(element.name, exponent);
          break;
        }
        const problem = numberProblem(text);
        if (problem !== undefined) invalid(problem);
        else numbers.set(element.name, text);
        break;
      }
      case 'minimum':
      case 'maximum': {
        const parsed = exponentLimit(text, element, report) ?? parseLimit(text);
        if (!parsed.ok) {
          // A negative maximum is read as written, as a zero one is: no order can be made (same level as zero).
          if (kind === 'maximum' && text.startsWith('-') && parseLimit(text.slice(1)).ok) {
            report('tolerated', 'limit', negativeMessage(`<${element.name}>`, text), element);
          } else invalid(parsed.problem);
          break;
        }
        checkUnit(parsed.value.unit, element, report);
        if (parsed.value.unit !== undefined) {
          report(
            'warning',
            'limit-unit',
            `<${element.name}> "${text}" has a currency suffix (the classic form); the current format is a plain number in the from currency`,
            element,
          );
        }
        // Read as written; it only means no order can be made.
        if (kind === 'maximum' && isZero(parsed.value.value))
          report('tolerated', 'limit', `<${element.name}> is zero: leave the direction out instead`, element);
        limits[kind === 'minimum' ? 'min' : 'max'].push(parsed.value);
        break;
      }
      case 'fee': {
        const parsed = parseFee(text);
        if (!parsed.ok) report('error', 'fee', `<${element.name}> ${parsed.problem}`, element);
        else for (const part of parsed.value) checkUnit(part.unit, element, report);
        break;
      }
      case 'floating': {
        const parsed = parseFloating(text);
        if (!parsed.ok) report('error', 'number', `<${element.name}> "${text}" ${parsed.problem}`, element);
        break;
      }
      case 'delay': {
        const problem = numberProblem(text);
        if (problem !== undefined) invalid(problem);
        else if (!isWhole(text))
          report('warning', 'number', `<${element.name}> "${text}" is not whole minutes`, element);
        break;
      }
      case 'labels':
        checkLabels(element, report);
        break;
      case 'cities':
        checkCities(element, report);
        break;
      case 'url': {
        let url: URL | undefined;
        try {
          url = new URL(text);
        } catch {
          url = undefined;
        }
        if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
          report('warning', 'url', `<${element.name}> "${text}" is not an http(s) address`, element);
        break;
      }
    }
  }
  checkConsistency(item, { from, to, numbers, limits }, report);
}
