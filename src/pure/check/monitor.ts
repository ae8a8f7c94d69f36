// What one monitor's parser does with an export file, predicted from its profile (data/monitors/): the items it reads,
// those it drops, those it misreads, and what it ignores. Pure; `check --monitor NAME` adds it to the standard's check.
import type { MonitorProfile } from '../../model/monitor-profile.js';
import type { Finding, ItemRef, MonitorReading } from './findings.js';
import { looksLikeJson } from './json.js';
import { parseDocument, type XmlElement } from './tree.js';
import { judgeItem, verdictSeverity, type SeenItem, type Verdict } from './monitor-item.js';

/** Predict `profile`'s monitor reading `text` (a decoded export file): a summary and one finding per verdict. */
export function predictMonitor(
  text: string,
  profile: MonitorProfile,
): { reading: MonitorReading; findings: Finding[] } {
  const findings: Finding[] = [];
  const readsJson = profile.formats.includes('json');
  const readsXml = profile.formats.some((format) => format !== 'json');
  const json = looksLikeJson(text);
  const items = json ? jsonItems(text) : xmlItems(text);
  const reading: MonitorReading = { monitor: profile.name, items: items?.length ?? 0, read: 0, dropped: 0, misread: 0 };
  const fileFinding = (message: string) =>
    findings.push({ severity: 'error', rule: 'monitor-dropped', message: `${profile.title}: ${message}` });
  if ((json && !readsJson) || (!json && !readsXml)) {
    fileFinding(`reads ${profile.formats.join(' or ')} only: nothing of this ${json ? 'JSON' : 'XML'} file is read`);
    reading.dropped = reading.items;
    return { reading, findings };
  }
  if (items === undefined) {
    fileFinding('cannot parse the file: nothing is read');
    return { reading, findings };
  }
  const firstOf = profile.duplicates === 'first-wins' ? new Map<string, { index: number; read: boolean }>() : undefined;
  items.forEach((item, index) => {
    const ref: ItemRef = { index: index + 1, ...item.ref };
    const verdicts = judgeItem(item, profile);
    const dropped = () => verdicts.some(([verdict]) => verdict === 'dropped');
    if (firstOf) verdicts.push(...firstWins(firstOf, item, index + 1, dropped()));
    for (const [verdict, message] of verdicts)
      findings.push({
        severity: verdictSeverity[verdict],
        rule: `monitor-${verdict}`,
        message: `${profile.title}: ${message}`,
        item: ref,
      });
    if (dropped()) reading.dropped += 1;
    else if (verdicts.some(([verdict]) => verdictSeverity[verdict] === 'error')) reading.misread += 1;
    else reading.read += 1;
  });
  return { reading, findings };
}

/** One item as a parser sees it, and its direction for findings. */
interface Item extends SeenItem {
  ref: Omit<ItemRef, 'index'>;
}

/**
 * `duplicates: first-wins` (MoneySwap): the first item of a direction (from, to and, upper-cased, each city) is the
 * one read. Without a city, the first item takes the direction whether it is read or not; with one, the first item read.
 */
function firstWins(
  firstOf: Map<string, { index: number; read: boolean }>,
  item: Item,
  index: number,
  dropped: boolean,
): [Verdict, string][] {
  const cities = item.cash
    ? (item.ref.city ?? '')
        .toUpperCase()
        .split(',')
        .map((city) => city.trim())
    : [''];
  const taken: number[] = [];
  for (const city of cities) {
    const key = `${item.ref.from ?? ''}\u0000${item.ref.to ?? ''}\u0000${city}`;
    const first = firstOf.get(key);
    if (first !== undefined && (first.read || !item.cash)) taken.push(first.index);
    else firstOf.set(key, { index, read: !dropped });
  }
  if (taken.length === 0) return [];
  const firsts = [...new Set(taken)].map((at) => `item ${at}`).join(', ');
  return [['dropped', `the same direction as ${firsts}, which comes first: only the first is read`]];
}

function xmlItems(text: string): Item[] | undefined {
  let root: XmlElement | undefined;
  try {
    root = parseDocument(text).root;
  } catch {
    return undefined;
  }
  if (root === undefined) return undefined;
  return root.children
    .filter((child) => child.name === 'item')
    .map((item) => {
      const values = new Map<string, string[]>();
      for (const child of item.children) values.set(child.name, [...(values.get(child.name) ?? []), child.text.trim()]);
      const first = (name: string) => values.get(name)?.[0];
      return {
        ref: { from: first('from'), to: first('to'), city: first('city') },
        values,
        order: item.children.map((child) => child.name),
        cash: (first('city') ?? '') !== '',
      } as Item;
    });
}

/** A JSON file's exchanges as items: min, max and the fees named as the classic elements they stand for. */
function jsonItems(text: string): Item[] | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  const record = (value: unknown): Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const list = record(record(record(data).currencies).list);
  const items: Item[] = [];
  for (const [fromNumber, from] of Object.entries(record(record(data).exchange)))
    for (const [toNumber, entry] of Object.entries(record(record(from).to))) {
      const fields = record(entry);
      const values = new Map<string, string[]>();
      const put = (name: string, value: unknown) => {
        if (value !== undefined) values.set(name, [typeof value === 'object' ? JSON.stringify(value) : String(value)]);
      };
      put('minamount', fields.min);
      put('maxamount', fields.max);
      const cities = Array.isArray(fields.cities) ? fields.cities.map(String) : [];
      items.push({
        ref: { from: String(list[fromNumber] ?? fromNumber), to: String(list[toNumber] ?? toNumber) },
        values,
        order: [],
        cash: cities.length > 0,
      } as Item);
    }
  return items;
}
