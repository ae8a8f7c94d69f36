// Another exchanger's export file (classic or EREF 1.1 XML, jsons.info JSON) read as rates, for the `exportfile`
// source: the file goes through `ratefile check`'s own checker first (src/pure/check/), then its items are read with
// the checker's decoder and its item scanner (simple.ts; the fast-xml-parser tree only for what the scanner does not
// take), keeping only the items of the directions asked for. An item the check finds an error in is never read as a
// rate; an error outside the items refuses the whole file. Pure; src/io/sources/export-read.ts runs it off the main
// thread for a big file.
import { Decimal, formatDecimal } from '../../base/decimal.js';
import { checkExport, formatFinding, type Finding } from '../check/index.js';
import { decodeExport } from '../check/decode.js';
import { looksLikeJson } from '../check/json.js';
import { childNamed, parseDocument, type XmlElement } from '../check/tree.js';
import { scanSimple } from '../check/simple.js';
import { isRecord, parseJsonExact } from './values.js';

/** One item of the file: a direction (`from` → `to`, in `cities` when it is cash) at `in` : `out`. */
export interface ExportRate {
  /** Its position among the file's items (1-based), as the check counts them. */
  index: number;
  from: string;
  to: string;
  cities: readonly string[];
  in: string;
  out: string;
  /** Why the check refuses it; such an item is never read as a rate. */
  refused?: string;
}

/** Significant digits a rate divided out of `in` and `out` keeps (rounded half to even); a division by 1 is exact. */
export const rateDigits = 12;

const oneLine = (finding: Finding) => formatFinding(finding).replace(/^\S+\s+/, '');

/** Whether an item of `from` → `to` is wanted: the source keeps only the directions its pairs name. */
export type WantedItem = (from: string, to: string) => boolean;

/** The file's items (those `wanted` says), each numbered as the check numbers them, by the scanner or else the tree. */
function xmlRates(text: string, wanted: WantedItem): ExportRate[] {
  const rates: ExportRate[] = [];
  let index = 0;
  const textOf = (item: XmlElement, name: string) => childNamed(item, name)?.text.trim() ?? '';
  const take = (item: XmlElement) => {
    if (item.name !== 'item') return;
    index += 1;
    const [from, to] = [textOf(item, 'from'), textOf(item, 'to')];
    if (!wanted(from, to)) return;
    const city = textOf(item, 'city');
    rates.push({
      index,
      from,
      to,
      cities: city === '' ? [] : city.split(/\s*,\s*/),
      in: textOf(item, 'in'),
      out: textOf(item, 'out'),
    });
  };
  // The scanner reads most files item by item, without a tree of the whole document; the rest the tree reads.
  if (scanSimple(text, { declaration: () => undefined, root: () => true, child: take })) return rates;
  rates.length = 0;
  index = 0;
  for (const item of parseDocument(text).root?.children ?? []) take(item);
  return rates;
}

/** jsons.info: exchange → from number → to → to number → X (X from = 1 to), -X (1 from = X to) or { xr, cities }. */
function jsonRates(text: string, wanted: WantedItem): ExportRate[] {
  const data = parseJsonExact(text);
  const root = isRecord(data) ? data : {};
  const list = isRecord(root.currencies) && isRecord(root.currencies.list) ? root.currencies.list : {};
  const code = (number: string) => (typeof list[number] === 'string' ? list[number] : '');
  const rates: ExportRate[] = [];
  let index = 0;
  // The same walk as the check's (json.ts), so an item's index is the one its findings name.
  for (const [from, exchange] of Object.entries(isRecord(root.exchange) ? root.exchange : {})) {
    if (!isRecord(exchange) || !isRecord(exchange.to)) continue;
    for (const [to, entry] of Object.entries(exchange.to)) {
      const xr = String(isRecord(entry) ? entry.xr : entry);
      const cities = isRecord(entry) && Array.isArray(entry.cities) ? entry.cities.map(String) : [];
      const [inText, outText] = xr.startsWith('-') ? ['1', xr.slice(1)] : [xr, '1'];
      index += 1;
      if (wanted(code(from), code(to)))
        rates.push({ index, from: code(from), to: code(to), cities, in: inText, out: outText });
    }
  }
  return rates;
}

/**
 * The rates of an export file's bytes (the items `wanted` says, by default all), each item the check refused marked
 * so; or why the file cannot be read at all (an error of the check outside any item: not UTF-8, not well-formed, no
 * <rates>, not JSON…).
 */
export function readExportRates(
  bytes: Uint8Array,
  wanted: WantedItem = () => true,
): { rates: ExportRate[] } | { problem: string } {
  const { findings } = checkExport(bytes, 'export file');
  const refused = new Map<number, string>();
  for (const finding of findings) {
    if (finding.severity !== 'error') continue;
    if (!finding.item) return { problem: `the file fails the check: ${oneLine(finding)}` };
    if (!refused.has(finding.item.index)) refused.set(finding.item.index, oneLine(finding));
  }
  // No error outside the items: the text decodes and is well-formed (the check says so when it is not).
  const text = decodeExport(bytes).text ?? '';
  const rates = looksLikeJson(text) ? jsonRates(text, wanted) : xmlRates(text, wanted);
  return {
    rates: rates.map((rate) => {
      const why = refused.get(rate.index);
      return why === undefined ? rate : { ...rate, refused: why };
    }),
  };
}

/**
 * One unit of an item's `from` in its `to` (out ÷ in), or the reverse (in ÷ out): exact when the division ends
 * (`in` is 1, as most files write it), else to `rateDigits`. Both must be positive decimals (`priceText`).
 */
export function rateOf(rate: ExportRate, way: 'out/in' | 'in/out'): string {
  const [top, bottom] = way === 'out/in' ? [rate.out, rate.in] : [rate.in, rate.out];
  const quotient = new Decimal(top).dividedBy(bottom);
  // A division that does not end fills every digit Decimal works to; one that ends (a short one) is kept whole.
  const ends = quotient.sd() < Decimal.precision;
  return formatDecimal(ends ? quotient : quotient.toSignificantDigits(rateDigits, Decimal.ROUND_HALF_EVEN));
}
