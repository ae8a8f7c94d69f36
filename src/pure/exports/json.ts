// renderJson: one export model to a jsons.info "exchanges" JSON file (https://jsons.info/en/export-files/exchanges-json). Pure.
// Numbers are written as the model's decimal text, never through a double; format-fields.ts leaves out an item whose
// numbers a double cannot hold (refusals.ts), since every JSON reader parses them as doubles.
import { Decimal, formatDecimal, roundDown, roundUp } from '../../base/decimal.js';
import { RatefileError } from '../../base/errors.js';
import type { ExportItem, ExportModel } from '../../model/items.js';
import { directionName } from '../../base/words.js';

const places = 6;
const step = new Decimal(1).div(new Decimal(10).pow(places));

/**
 * The jsons.info rate of a published `in`:`out`: `X` when X from buy 1 to, `-X` when 1 from buys X to, `1` at par;
 * X ≥ 1 with at most 6 decimals, rounded against the client (the X the client pays up, the X he gets down) and
 * checked back by multiplication, so the 40-digit division can never tip it the client's way.
 */
export function jsonRate(inText: string, outText: string): string {
  // Directions alike share a published rate: each distinct one is worked out once (bounded, like the check's hints).
  const key = `${inText}:${outText}`;
  const known = rates.get(key);
  if (known !== undefined) return known;
  if (rates.size > 100_000) rates.clear();
  const rate = exactJsonRate(inText, outText);
  rates.set(key, rate);
  return rate;
}

const rates = new Map<string, string>();

function exactJsonRate(inText: string, outText: string): string {
  const [given, got] = [new Decimal(inText), new Decimal(outText)];
  if (given.equals(got)) return '1';
  if (given.greaterThan(got)) {
    // Pays X per 1: the smallest 6-decimal X with X·out ≥ in.
    let x = roundUp(given.div(got), places);
    if (x.times(got).lessThan(given)) x = x.plus(step);
    return formatDecimal(x);
  }
  // Gets X per 1: the largest 6-decimal X with X·in ≤ out.
  let x = roundDown(got.div(given), places);
  if (x.times(given).greaterThan(got)) x = x.minus(step);
  return `-${formatDecimal(x)}`;
}

/** Whether a reader parsing `text` as a double gets exactly this decimal back. */
export function jsonNumberHolds(text: string): boolean {
  // Up to 15 significant digits every double holds exactly (DBL_DIG); only longer numbers need the round trip.
  if (text.replace(/^[-0.]+|\./g, '').length <= 15) return true;
  const value = Number(text);
  return Number.isFinite(value) && new Decimal(String(value)).equals(new Decimal(text));
}

/** A classic fee (`0.0005`, `1.5 %`) as jsons.info writes it: a number is fixed, `{"%":p}` a percentage. */
function jsonFee(fee: string): string {
  const percent = /^(\S+) %$/.exec(fee);
  return percent ? `{"%": ${percent[1]!}}` : fee;
}

/** Our labels as jsons.info options: its three names where it has one, the label's own name otherwise. */
const optionNames: Record<string, string> = { reg: 'auth', verifying: 'ident' };

function exchangeEntry(item: ExportItem, cities: readonly string[]): string {
  const fields = [`"xr": ${jsonRate(item.in, item.out)}`, `"amount": ${JSON.stringify(item.amount)}`];
  if (item.minamount !== undefined) fields.push(`"min": ${item.minamount}`);
  if (item.maxamount !== undefined) fields.push(`"max": ${item.maxamount}`);
  if (item.fromfee !== undefined) fields.push(`"inFee": ${jsonFee(item.fromfee)}`);
  if (item.tofee !== undefined) fields.push(`"outFee": ${jsonFee(item.tofee)}`);
  if (item.param !== undefined) {
    const options = item.param.split(', ').map((label) => `${JSON.stringify(optionNames[label] ?? label)}: 1`);
    fields.push(`"options": {${options.join(', ')}}`);
  }
  if (cities.length > 0) fields.push(`"cities": [${cities.map((city) => JSON.stringify(city)).join(', ')}]`);
  return `{${fields.join(', ')}}`;
}

/**
 * One export model to the bytes of its JSON file (UTF-8). Currencies are numbered 1…9, a…z, 10… (base 36) in
 * the order they first appear; a direction's cash items (one per city) become one entry with its `cities`.
 */
export function renderJson(model: ExportModel): Buffer {
  const numbers = new Map<string, string>();
  const numberOf = (code: string) => numbers.get(code) ?? numbers.set(code, (numbers.size + 1).toString(36)).get(code)!;
  const byFrom = new Map<string, Map<string, { item: ExportItem; cities: string[] }>>();
  let previous: { item: ExportItem; cities: string[] } | undefined;
  for (const item of model.items) {
    const [from, to] = [numberOf(item.from), numberOf(item.to)];
    const targets = byFrom.get(from) ?? byFrom.set(from, new Map()).get(from)!;
    const known = targets.get(to);
    if (known !== undefined) {
      // select.ts writes a direction's cities one after another; anything else would be two directions under one key.
      if (known !== previous || item.city === undefined)
        throw new RatefileError(
          'E_RENDER',
          `${model.file}: cannot render: two directions ${directionName(item.from, item.to)}`,
        );
      known.cities.push(item.city);
      continue;
    }
    previous = { item, cities: item.city === undefined ? [] : [item.city] };
    targets.set(to, previous);
  }
  const list = [...numbers].map(([code, number]) => `      ${JSON.stringify(number)}: ${JSON.stringify(code)}`);
  const exchange = [...byFrom].map(([from, targets]) => {
    const entries = [...targets].map(
      ([to, { item, cities }]) => `        ${JSON.stringify(to)}: ${exchangeEntry(item, cities)}`,
    );
    return `    ${JSON.stringify(from)}: {\n      "to": {\n${entries.join(',\n')}\n      }\n    }`;
  });
  const block = (lines: string[], indent: string) =>
    lines.length === 0 ? '{}' : `{\n${lines.join(',\n')}\n${indent}}`;
  const text = `{\n  "version": "1.3",\n  "currencies": {\n    "list": ${block(list, '    ')}\n  },\n  "exchange": ${block(exchange, '  ')}\n}\n`;
  return Buffer.from(text, 'utf8');
}
