// The rule for each kind of value an element of a classic item takes (rules.ts's `value`): one function per kind,
// each value in its standard form. What the rules across the item need (currencies, numbers, limits) is kept in
// the item's `Values` for consistency.ts.
import { knownCities, knownCurrencies } from '../../base/codes.js';
import { closest } from '../../base/config/problems.js';
import { labels } from '../../base/config/fields.js';
import type { Values } from './consistency.js';
import type { Report } from './findings.js';
import type { XmlElement } from './tree.js';
import { isWhole, isZero } from './plain.js';
import type { ValueKind } from './rules.js';
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

/**
 * Check one element's value by its kind, keeping in `values` what the rules across the item read. An element of a
 * kind this format does not have (EREF 1.1's) is left alone.
 */
export function checkValue(
  element: XmlElement,
  kind: ValueKind | undefined,
  values: Values,
  report: Report,
  codes: ReadonlySet<string> | undefined,
): void {
  const text = element.text.trim();
  switch (kind) {
    case 'currency':
      readCurrency(element, values, report, codes);
      break;
    case 'number':
    case 'reserve':
      readNumber(element, text, kind, values, report);
      break;
    case 'minimum':
    case 'maximum':
      readLimit(element, text, kind, values, report);
      break;
    case 'fee':
      checkFee(element, text, report);
      break;
    case 'floating':
      checkFloating(element, text, report);
      break;
    case 'delay':
      checkDelay(element, text, report);
      break;
    case 'labels':
      checkLabels(element, report);
      break;
    case 'cities':
      checkCities(element, report);
      break;
    case 'url':
      checkUrl(element, text, report);
      break;
  }
}

/** A value that is not a number in the standard's form: `problem` says what it is instead. */
function invalidNumber(element: XmlElement, text: string, problem: string, report: Report): void {
  report('error', 'number', `<${element.name}> "${text}" ${problem}`, element);
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

/** `<from>` and `<to>`: the code is kept for the rules across the item (the same currency on both sides, cash). */
function readCurrency(element: XmlElement, values: Values, report: Report, codes: ReadonlySet<string> | undefined) {
  const code = checkCurrency(element, report, codes);
  if (element.name === 'from') values.from = code;
  else if (element.name === 'to') values.to = code;
}

/** `<in>`, `<out>` and the reserve `<amount>`: kept as plain text (exponent notation read as its plain value). */
function readNumber(element: XmlElement, text: string, kind: 'number' | 'reserve', values: Values, report: Report) {
  // A negative reserve is read as written, as a zero one is: unusable, not misread (same level as zero).
  if (kind === 'reserve' && negativeNumber(text) !== undefined) {
    report('tolerated', 'reserve', negativeMessage(`<${element.name}> (the reserve)`, text), element);
    return;
  }
  const exponent = exponentPlain(text);
  if (exponent !== undefined) {
    report('tolerated', 'number', exponentMessage(`<${element.name}>`, text, exponent), element);
    values.numbers.set(element.name, exponent);
    return;
  }
  const problem = numberProblem(text);
  if (problem !== undefined) invalidNumber(element, text, problem, report);
  else values.numbers.set(element.name, text);
}

/** `<minamount>` and `<maxamount>`: a plain number in the from currency (or the classic `100 RUB`), kept. */
function readLimit(
  element: XmlElement,
  text: string,
  kind: 'minimum' | 'maximum',
  values: Values,
  report: Report,
): void {
  const parsed = exponentLimit(text, element, report) ?? parseLimit(text);
  if (!parsed.ok) {
    // A negative maximum is read as written, as a zero one is: no order can be made (same level as zero).
    if (kind === 'maximum' && text.startsWith('-') && parseLimit(text.slice(1)).ok)
      report('tolerated', 'limit', negativeMessage(`<${element.name}>`, text), element);
    else invalidNumber(element, text, parsed.problem, report);
    return;
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
  values.limits[kind === 'minimum' ? 'min' : 'max'].push(parsed.value);
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

function checkFee(element: XmlElement, text: string, report: Report): void {
  const parsed = parseFee(text);
  if (!parsed.ok) report('error', 'fee', `<${element.name}> ${parsed.problem}`, element);
  else for (const part of parsed.value) checkUnit(part.unit, element, report);
}

function checkFloating(element: XmlElement, text: string, report: Report): void {
  const parsed = parseFloating(text);
  if (!parsed.ok) invalidNumber(element, text, parsed.problem, report);
}

function checkDelay(element: XmlElement, text: string, report: Report): void {
  const problem = numberProblem(text);
  if (problem !== undefined) invalidNumber(element, text, problem, report);
  else if (!isWhole(text)) report('warning', 'number', `<${element.name}> "${text}" is not whole minutes`, element);
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

function checkUrl(element: XmlElement, text: string, report: Report): void {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    report('warning', 'url', `<${element.name}> "${text}" is not an http(s) address`, element);
}
