// The rules for a jsons.info "exchanges" JSON export (https://jsons.info/en/export-files/exchanges-json): currency numbers, the
// nesting exchange → from → to → to, each rate as X or -X (X ≥ 1, at most 6 decimals), amounts, limits, fees.
import { knownCities, knownCurrencies } from '../../base/codes.js';
import { labels } from '../../base/config/fields.js';
import { jsonSyntaxError } from '../sources/syntax.js';
import { isRecord, parseJsonExact } from '../sources/values.js';
import { severityOf, type CheckOptions, type CheckResult, type Finding, type ItemRef, type Level } from './findings.js';
import { cashCurrency } from './consistency.js';
import { compare, isPlain, isZero, paysMoreThan } from './plain.js';
import { exponentMessage, exponentPlain, negativeMessage, negativeNumber } from './values.js';

/** Put before every number's text by the parser, so a number is told from a string holding digits. */
const mark = '\uE000';
const numberText = (value: unknown): string | undefined =>
  typeof value === 'string' && value.startsWith(mark) ? value.slice(mark.length) : undefined;
const options: ReadonlySet<string> = new Set(['manual', 'auth', 'ident', ...labels]);
const entryKeys = new Set(['xr', 'amount', 'min', 'max', 'inFee', 'outFee', 'options', 'cities']);

/** Whether the text is a JSON document rather than XML: its first character that is not blank is `{` or `[`. */
export function looksLikeJson(text: string): boolean {
  return /^\s*[{[]/.test(text);
}

type Report = (level: Level, rule: string, message: string, item?: ItemRef) => void;

/** A fee: a number (fixed), {"%": p} (percent), or ["+", part, part] (both). */
function feeProblem(fee: unknown): string | undefined {
  const plainNumber = (value: unknown) => {
    const text = numberText(value);
    return text !== undefined && isPlain(text);
  };
  if (plainNumber(fee)) return undefined;
  if (isRecord(fee) && Object.keys(fee).length === 1 && plainNumber(fee['%'])) return undefined;
  if (
    Array.isArray(fee) &&
    fee[0] === '+' &&
    fee.length > 1 &&
    fee.slice(1).every((part) => feeProblem(part) === undefined)
  )
    return undefined;
  return 'expected a non-negative number, {"%": p} or ["+", …]';
}

/** One direction's entry: the rate, then (an object) its keys, reserve, limits, fees, options and cities. */
function checkEntry(entry: unknown, ref: ItemRef, report: Report): void {
  const rateValue = isRecord(entry) ? entry.xr : entry;
  const rate = numberText(rateValue);
  if (rate === undefined) {
    report(
      'error',
      'rate',
      `the rate is ${rateValue === undefined ? 'missing' : 'not a number'}; expected X (X from = 1 to) or -X (1 from = X to)`,
      ref,
    );
    return;
  }
  const size = checkRate(rate, ref, report);
  if (size === undefined || !isRecord(entry)) return;
  for (const key of Object.keys(entry))
    if (!entryKeys.has(key)) report('warning', 'element-unknown', `unknown key "${key}"; monitors ignore it`, ref);
  const amount = checkAmount(entry.amount, ref, report);
  const min = checkLimit(entry, 'min', ref, report);
  const max = checkLimit(entry, 'max', ref, report);
  if (min !== undefined && max !== undefined && compare(min, max) > 0)
    report('tolerated', 'min-max', `"min" ${min} is above "max" ${max}`, ref);
  if (max !== undefined && amount !== undefined && isPlain(amount) && !isZero(amount) && !isZero(size)) {
    const [inValue, outValue] = rate.startsWith('-') ? ['1', size] : [size, '1'];
    if (paysMoreThan(max, inValue, outValue, amount))
      report('warning', 'reserve', `the maximum order ${max} pays more than the reserve ${amount}`, ref);
  }
  checkFee(entry, 'inFee', ref, report);
  checkFee(entry, 'outFee', ref, report);
  checkOptions(entry.options, ref, report);
  checkCities(entry.cities, ref, report);
}

/** The rate X or -X (`rate`: its number's text): its size as a plain decimal, or undefined when it has none. */
function checkRate(rate: string, ref: ItemRef, report: Report): string | undefined {
  const written = rate.startsWith('-') ? rate.slice(1) : rate;
  const exponent = exponentPlain(written);
  if (exponent !== undefined) report('tolerated', 'rate', exponentMessage('the rate', rate, exponent), ref);
  const size = exponent ?? written;
  if (!isPlain(size)) {
    report('error', 'rate', `the rate ${rate} is not a plain decimal (no exponent)`, ref);
    return undefined;
  }
  if (isZero(size)) report('error', 'rate', 'the rate is zero: leave the direction out instead', ref);
  else if (compare(size, '1') < 0)
    report('tolerated', 'rate-form', `the rate ${rate} is below 1 in size; jsons.info writes X ≥ 1 (X or -X)`, ref);
  if ((size.split('.')[1] ?? '').length > 6)
    report('tolerated', 'rate-form', `the rate ${rate} has more than 6 decimals`, ref);
  return size;
}

/** "amount", the reserve: its text as written (a number or a string), checked only when it is there. */
function checkAmount(amountValue: unknown, ref: ItemRef, report: Report): string | undefined {
  const amount = numberText(amountValue) ?? (typeof amountValue === 'string' ? amountValue : undefined);
  // A negative reserve or maximum is read as written, as a zero one is: the same level as zero.
  if (amount !== undefined && negativeNumber(amount) !== undefined)
    report('tolerated', 'reserve', negativeMessage('"amount" (the reserve)', amount), ref);
  else if (amountValue !== undefined && (amount === undefined || !isPlain(amount)))
    report('error', 'number', `"amount" ${JSON.stringify(amountValue)} is not a plain non-negative decimal`, ref);
  else if (amount !== undefined && isZero(amount))
    report('tolerated', 'reserve', '"amount" (the reserve) is zero: leave the direction out instead', ref);
  return amount;
}

/** "min" or "max": its plain text when it is a usable limit. */
function checkLimit(
  entry: Record<string, unknown>,
  name: 'min' | 'max',
  ref: ItemRef,
  report: Report,
): string | undefined {
  const value = entry[name];
  if (value === undefined) return undefined;
  const text = numberText(value);
  if (name === 'max' && text !== undefined && negativeNumber(text) !== undefined)
    report('tolerated', 'limit', negativeMessage('"max"', text), ref);
  else if (text === undefined || !isPlain(text))
    report('error', 'number', `"${name}" is not a plain non-negative number`, ref);
  else {
    if (name === 'max' && isZero(text))
      report('tolerated', 'limit', '"max" is zero: leave the direction out instead', ref);
    return text;
  }
  return undefined;
}

function checkFee(entry: Record<string, unknown>, name: 'inFee' | 'outFee', ref: ItemRef, report: Report): void {
  const problem = entry[name] === undefined ? undefined : feeProblem(entry[name]);
  if (problem !== undefined) report('error', 'fee', `"${name}": ${problem}`, ref);
}

function checkOptions(value: unknown, ref: ItemRef, report: Report): void {
  if (value === undefined) return;
  if (!isRecord(value)) report('error', 'label', '"options" is not an object', ref);
  else
    for (const key of Object.keys(value))
      if (!options.has(key)) report('warning', 'label', `unknown option "${key}"; known: manual, auth, ident`, ref);
}

function checkCities(value: unknown, ref: ItemRef, report: Report): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || !value.every((city) => typeof city === 'string' && city !== ''))
    report('error', 'city', '"cities" is not a list of city codes', ref);
  else
    for (const city of value as string[])
      if (!knownCities().has(city)) report('warning', 'city', `unknown city code "${city}"`, ref);
}

/** Check a JSON export file's text. */
export function checkJsonExport(
  text: string,
  target: string,
  decodingFindings: readonly Finding[],
  checkOptions: CheckOptions,
): CheckResult {
  const findings: Finding[] = [...decodingFindings];
  const syntax = jsonSyntaxError(text);
  if (syntax)
    return {
      target,
      findings: [
        ...findings,
        {
          severity: 'error',
          rule: 'json',
          message: `not JSON: ${syntax.problem}`,
          line: syntax.line,
          column: syntax.column,
        },
      ],
    };
  const report: Report = (level, rule, message, item) =>
    findings.push({ severity: severityOf(level, checkOptions), rule, message, ...(item ? { item } : {}) });
  const data = parseJsonExact(text, mark);
  if (!isRecord(data)) {
    report('error', 'structure', 'the document is not a JSON object');
    return { target, findings };
  }
  const list = readCurrencyList(data.currencies, checkOptions.codes, report);
  if (!isRecord(data.exchange)) {
    report('error', 'structure', 'no "exchange" object');
    return { target, findings };
  }
  const items = checkExchanges(data.exchange, list, report);
  if (items === 0) report('warning', 'empty', 'no exchanges: the monitors will list none of your directions');
  return { target, items, findings };
}

/** "currencies": {"list": {number: code}}, checked; the codes by number (the entries name currencies by number). */
function readCurrencyList(
  currencies: unknown,
  codes: ReadonlySet<string> | undefined,
  report: Report,
): Map<string, string> {
  const numbered = isRecord(currencies) ? currencies.list : undefined;
  if (!isRecord(numbered))
    report('error', 'structure', 'no "currencies": {"list": {…}} mapping currency numbers to codes');
  const list = new Map<string, string>();
  const byCode = new Map<string, string>();
  for (const [number, code] of Object.entries(isRecord(numbered) ? numbered : {})) {
    if (!/^[0-9a-z]+$/.test(number) || /^0+$/.test(number))
      report('error', 'currency', `currency number "${number}": expected 1-9 and a-z, never 0`);
    if (typeof code !== 'string' || code === '') {
      report('error', 'currency', `currency number "${number}" has no code`);
      continue;
    }
    if (!knownCurrencies().has(code) && !codes?.has(code))
      report('warning', 'currency', `unknown currency code "${code}"`);
    if (byCode.has(code))
      report('warning', 'currency', `currency code "${code}" is listed as both "${byCode.get(code)!}" and "${number}"`);
    byCode.set(code, number);
    list.set(number, code);
  }
  return list;
}

/** "exchange": {from number: {"to": {to number: entry}}}, each entry checked; how many entries there are. */
function checkExchanges(exchanges: Record<string, unknown>, list: Map<string, string>, report: Report): number {
  let items = 0;
  for (const [fromNumber, exchange] of Object.entries(exchanges)) {
    const from = list.get(fromNumber);
    if (from === undefined)
      report(
        'error',
        'currency',
        `exchange from currency number "${fromNumber}", which "currencies.list" does not have`,
      );
    if (!isRecord(exchange) || !isRecord(exchange.to)) {
      report('error', 'structure', `exchange "${fromNumber}" has no "to" object`);
      continue;
    }
    for (const [toNumber, entry] of Object.entries(exchange.to)) {
      items += 1;
      const to = list.get(toNumber);
      const ref: ItemRef = {
        index: items,
        ...(from === undefined ? {} : { from }),
        ...(to === undefined ? {} : { to }),
      };
      if (to === undefined)
        report(
          'error',
          'currency',
          `exchange to currency number "${toNumber}", which "currencies.list" does not have`,
          ref,
        );
      if (from !== undefined && from === to)
        report('error', 'currency', `from and to are the same currency (${from})`, ref);
      checkEntry(entry, ref, report);
      const cash = cashCurrency(from, to);
      if (cash && !(isRecord(entry) && Array.isArray(entry.cities) && entry.cities.length > 0))
        report('warning', 'city', `cash currency ${cash} without "cities": monitors list cash directions by city`, ref);
    }
  }
  return items;
}
