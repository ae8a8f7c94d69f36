// The rules for a jsons.info "exchanges" JSON export (https://jsons.info/en/export-files/exchanges-json): currency numbers, the
// nesting exchange → from → to → to, each rate as X or -X (X ≥ 1, at most 6 decimals), amounts, limits, fees.
import { knownCities, knownCurrencies } from '../codes.js';
import { labels } from '../config/fields.js';
import { jsonSyntaxError } from '../sources/syntax.js';
import { isRecord, parseJsonExact } from '../sources/values.js';
import { severityOf, type CheckOptions, type CheckResult, type Finding, type ItemRef, type Level } from './findings.js';
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
  const written = rate.startsWith('-') ? rate.slice(1) : rate;
  const exponent = exponentPlain(written);
  if (exponent !== undefined) report('tolerated', 'rate', exponentMessage('the rate', rate, exponent), ref);
  const size = exponent ?? written;
  if (!isPlain(size)) {
    report('error', 'rate', `the rate ${rate} is not a plain decimal (no exponent)`, ref);
    return;
  }
  if (isZero(size)) report('error', 'rate', 'the rate is zero: leave the direction out instead', ref);
  else if (compare(size, '1') < 0)
    report('tolerated', 'rate-form', `the rate ${rate} is below 1 in size; jsons.info writes X ≥ 1 (X or -X)`, ref);
  if ((size.split('.')[1] ?? '').length > 6)
    report('tolerated', 'rate-form', `the rate ${rate} has more than 6 decimals`, ref);
  if (!isRecord(entry)) return;
  for (const key of Object.keys(entry))
    if (!entryKeys.has(key)) report('warning', 'element-unknown', `unknown key "${key}"; monitors ignore it`, ref);
  const amountValue = entry.amount;
  const amount = numberText(amountValue) ?? (typeof amountValue === 'string' ? amountValue : undefined);
  // A negative reserve or maximum is read as written, as a zero one is: the same level as zero.
  if (amount !== undefined && negativeNumber(amount) !== undefined)
    report('tolerated', 'reserve', negativeMessage('"amount" (the reserve)', amount), ref);
  else if (amountValue !== undefined && (amount === undefined || !isPlain(amount)))
    report('error', 'number', `"amount" ${JSON.stringify(amountValue)} is not a plain non-negative decimal`, ref);
  else if (amount !== undefined && isZero(amount))
    report('tolerated', 'reserve', '"amount" (the reserve) is zero: leave the direction out instead', ref);
  const limit = (name: 'min' | 'max') => {
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
  };
  const [min, max] = [limit('min'), limit('max')];
  if (min !== undefined && max !== undefined && compare(min, max) > 0)
    report('tolerated', 'min-max', `"min" ${min} is above "max" ${max}`, ref);
  if (
    max !== undefined &&
    amount !== undefined &&
    isPlain(amount) &&
    !isZero(amount) &&
    !isZero(size) &&
    isPlain(size)
  ) {
    const [inValue, outValue] = rate.startsWith('-') ? ['1', size] : [size, '1'];
    if (paysMoreThan(max, inValue, outValue, amount))
      report('warning', 'reserve', `the maximum order ${max} pays more than the reserve ${amount}`, ref);
  }
  for (const name of ['inFee', 'outFee'] as const) {
    const problem = entry[name] === undefined ? undefined : feeProblem(entry[name]);
    if (problem !== undefined) report('error', 'fee', `"${name}": ${problem}`, ref);
  }
  if (entry.options !== undefined) {
    if (!isRecord(entry.options)) report('error', 'label', '"options" is not an object', ref);
    else
      for (const key of Object.keys(entry.options))
        if (!options.has(key)) report('warning', 'label', `unknown option "${key}"; known: manual, auth, ident`, ref);
  }
  if (entry.cities !== undefined) {
    if (!Array.isArray(entry.cities) || !entry.cities.every((city) => typeof city === 'string' && city !== ''))
      report('error', 'city', '"cities" is not a list of city codes', ref);
    else
      for (const city of entry.cities as string[])
        if (!knownCities().has(city)) report('warning', 'city', `unknown city code "${city}"`, ref);
  }
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
  const currencies = isRecord(data.currencies) ? data.currencies.list : undefined;
  if (!isRecord(currencies))
    report('error', 'structure', 'no "currencies": {"list": {…}} mapping currency numbers to codes');
  const list = new Map<string, string>();
  const byCode = new Map<string, string>();
  for (const [number, code] of Object.entries(isRecord(currencies) ? currencies : {})) {
    if (!/^[0-9a-z]+$/.test(number) || /^0+$/.test(number))
      report('error', 'currency', `currency number "${number}": expected 1-9 and a-z, never 0`);
    if (typeof code !== 'string' || code === '') {
      report('error', 'currency', `currency number "${number}" has no code`);
      continue;
    }
    if (!knownCurrencies().has(code) && !checkOptions.codes?.has(code))
      report('warning', 'currency', `unknown currency code "${code}"`);
    if (byCode.has(code))
      report('warning', 'currency', `currency code "${code}" is listed as both "${byCode.get(code)!}" and "${number}"`);
    byCode.set(code, number);
    list.set(number, code);
  }
  if (!isRecord(data.exchange)) {
    report('error', 'structure', 'no "exchange" object');
    return { target, findings };
  }
  let items = 0;
  for (const [fromNumber, exchange] of Object.entries(data.exchange)) {
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
      const cash = [from, to].find((code) => code !== undefined && knownCurrencies().get(code)?.kind === 'cash');
      if (cash && !(isRecord(entry) && Array.isArray(entry.cities) && entry.cities.length > 0))
        report('warning', 'city', `cash currency ${cash} without "cities": monitors list cash directions by city`, ref);
    }
  }
  if (items === 0) report('warning', 'empty', 'no exchanges: the monitors will list none of your directions');
  return { target, items, findings };
}
