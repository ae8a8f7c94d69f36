// What one monitor's parser does with an export file, predicted from its profile (data/monitors/): the items it reads,
// those it drops, those it misreads, and what it ignores. Pure; `check --monitor NAME` adds it to the standard's check.
import { Decimal, parseDecimal } from '../decimal.js';
import type { MonitorProfile } from '../monitors/profile.js';
import type { Finding, ItemRef, MonitorReading } from './findings.js';
import { looksLikeJson } from './json.js';
import { parseDocument, type XmlElement } from './tree.js';
import { itemElements } from '../exports/items.js';

type Verdict = 'dropped' | 'misread' | 'ignored';

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
  items.forEach((item, index) => {
    const ref: ItemRef = { index: index + 1, ...item.ref };
    const verdicts = judge(item, profile);
    for (const [verdict, message] of verdicts)
      findings.push({
        severity: verdict === 'ignored' ? 'warning' : 'error',
        rule: `monitor-${verdict}`,
        message: `${profile.title}: ${message}`,
        item: ref,
      });
    if (verdicts.some(([verdict]) => verdict === 'dropped')) reading.dropped += 1;
    else if (verdicts.some(([verdict]) => verdict === 'misread')) reading.misread += 1;
    else reading.read += 1;
  });
  return { reading, findings };
}

/** One item as a parser sees it: each element's texts in document order, and the order of its element names. */
interface SeenItem {
  ref: Omit<ItemRef, 'index'>;
  values: ReadonlyMap<string, readonly string[]>;
  order: readonly string[];
  cash: boolean;
}

function xmlItems(text: string): SeenItem[] | undefined {
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
      } as SeenItem;
    });
}

/** A JSON file's exchanges as items: min, max and the fees named as the classic elements they stand for. */
function jsonItems(text: string): SeenItem[] | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  const record = (value: unknown): Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const list = record(record(record(data).currencies).list);
  const items: SeenItem[] = [];
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
      } as SeenItem);
    }
  return items;
}

const rank = new Map<string, number>(itemElements.map((name, index) => [name, index]));

/** What the profile's parser does with one item: each verdict with why. */
function judge(item: SeenItem, profile: MonitorProfile): [Verdict, string][] {
  const verdicts: [Verdict, string][] = [];
  const first = (name: string) => item.values.get(name)?.[0];
  if (profile.order === 'strict') {
    const ranks = item.order.map((name) => rank.get(name)).filter((value) => value !== undefined);
    if (ranks.some((value, index) => index > 0 && value < ranks[index - 1]!))
      verdicts.push(['dropped', 'the elements are not in the strictly defined order']);
  }
  const min = first('minamount');
  const max = first('maxamount');
  if (profile.limits === 'required' && (!min || !max))
    verdicts.push(['dropped', 'no <minamount> or <maxamount>: the item is made inactive']);
  else if (profile.minBelowMax && min && max) {
    const [low, high] = [parseDecimal(min.split(/\s/)[0]!), parseDecimal(max.split(/\s/)[0]!)];
    if (low === undefined || high === undefined || !low.lessThan(high))
      verdicts.push(['dropped', `minimum ${min} is not below maximum ${max}: the item is skipped`]);
  }
  const minfee = first('minfee');
  if (minfee !== undefined && profile.minfee === 'market-gap')
    verdicts.push([
      'misread',
      `<minfee> ${minfee} is read as the least gap to the average market rate, not a fixed fee`,
    ]);
  else if (minfee !== undefined && profile.minfee === 'ignored')
    verdicts.push(['misread', `<minfee> ${minfee} is not read: the rate shown leaves the minimum fee out`]);
  verdicts.push(...fees(item, profile));
  const rate = rateRead(first('in'), first('out'), profile.rateDecimals);
  if (rate !== undefined) verdicts.push(['misread', rate]);
  const params = item.values.get('param') ?? [];
  if (profile.labels === 'first-cash-only' && params.length > 0 && !item.cash)
    verdicts.push(['ignored', `labels are read on cash items only: <param>${params[0]}</param> is ignored`]);
  else if (profile.labels === 'first-cash-only' && params.length > 1)
    verdicts.push(['ignored', `only the first <param> is read: ${params.slice(1).join(', ')} ignored`]);
  return verdicts;
}

function fees(item: SeenItem, profile: MonitorProfile): [Verdict, string][] {
  const verdicts: [Verdict, string][] = [];
  for (const name of ['fromfee', 'tofee'] as const) {
    const fee = item.values.get(name)?.[0];
    if (fee === undefined || fee === '') continue;
    if (profile.fees === 'plain' && /\s[A-Z][A-Z0-9]*$/.test(fee))
      verdicts.push([
        'misread',
        `<${name}> ${fee} names a currency; a plain number in the side's currency or N% is read`,
      ]);
    if (profile.fees !== 'percent-folded') continue;
    if (name === 'tofee' || !item.cash)
      verdicts.push([
        'misread',
        `<${name}> ${fee} is not read${item.cash ? '' : ' on a non-cash item'}: the rate shown leaves the fee out`,
      ]);
    else if (!fee.endsWith('%')) verdicts.push(['dropped', `<fromfee> ${fee} is not a percentage: reading it fails`]);
    else if (new Decimal(item.values.get('in')?.[0] ?? '1').greaterThan(item.values.get('out')?.[0] ?? '1'))
      // Normalised to X:1, the fee is taken off X, the amount the client pays: a better rate than the real one.
      verdicts.push([
        'misread',
        `<fromfee> ${fee} is folded into the rate by lowering <in>: the rate shown is better than the real one`,
      ]);
  }
  return verdicts;
}

/**
 * How a rate read as 1:X with X rounded half-up to `decimals` differs from the file's, when it favours the client;
 * undefined when it is read as written (or not rounded).
 */
function rateRead(
  inText: string | undefined,
  outText: string | undefined,
  decimals: number | undefined,
): string | undefined {
  if (decimals === undefined || inText === undefined || outText === undefined) return undefined;
  const [rateIn, rateOut] = [parseDecimal(inText), parseDecimal(outText)];
  if (rateIn === undefined || rateOut === undefined || rateIn.isZero() || rateOut.isZero()) return undefined;
  const paysMore = rateIn.greaterThan(rateOut);
  const x = paysMore ? rateIn.div(rateOut) : rateOut.div(rateIn);
  const read = x.toDecimalPlaces(decimals, Decimal.ROUND_HALF_UP);
  // The client pays X (paysMore): read lower is better for him; he gets X: read higher is.
  if (paysMore ? read.lessThan(x) : read.greaterThan(x))
    return `the rate is read as ${paysMore ? `${read.toString()}:1` : `1:${read.toString()}`} (${decimals} decimals, rounded half-up), better than the file's`;
  return undefined;
}
