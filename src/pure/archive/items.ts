// The items of one of ratefile's own XML exports (classic or EREF 1.1), read back from its bytes: what `ratefile
// at` shows of a direction and what a quote reads its rate, limits and reserve from. Pure. Only ratefile's own flat
// layout is read (one element a line, `<step frommin="…" frommax="…">` tiers); anything else is no item.
import { segmentsOf } from './segments.js';

export interface ReadItem {
  from: string;
  to: string;
  /** Every element of the item by name, unescaped (`in`, `out`, `amount`, `minamount`, `city`, …). */
  fields: Record<string, string>;
  /** EREF 1.1 tiers: orders from `frommin` to `frommax` (from currency) get `in`:`out`. */
  steps: { frommin: string; frommax: string; in: string; out: string }[];
  /** The item as written in the file. */
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescape = (text: string) => text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name]!);

const ELEMENT = /^\s*<([a-z][a-z0-9]*)>([^<]*)<\/\1>\s*$/;
const STEP = /^\s*<step frommin="([^"]*)" frommax="([^"]*)">\s*$/;

/** The items of an export's text, in the file's order; an empty list for a file that is not such XML. */
export function readItems(text: string): ReadItem[] {
  if (!text.startsWith('<')) return [];
  const items: ReadItem[] = [];
  for (const segment of segmentsOf(text)) {
    const body = segment.replace(/^\n/, '');
    if (!/^\s*<item>/.test(body)) continue;
    const item = readItem(body);
    if (item) items.push(item);
  }
  return items;
}

function readItem(text: string): ReadItem | undefined {
  const fields: Record<string, string> = {};
  const steps: ReadItem['steps'] = [];
  let step: ReadItem['steps'][number] | undefined;
  for (const line of text.split('\n')) {
    const opened = STEP.exec(line);
    if (opened) {
      step = { frommin: unescape(opened[1]!), frommax: unescape(opened[2]!), in: '', out: '' };
      continue;
    }
    if (/^\s*<\/step>/.test(line)) {
      if (step) steps.push(step);
      step = undefined;
      continue;
    }
    const element = ELEMENT.exec(line);
    if (!element) continue;
    const [, name, value] = element as unknown as [string, string, string];
    if (step && (name === 'in' || name === 'out')) step[name] = unescape(value);
    else if (!step && !(name in fields)) fields[name] = unescape(value);
  }
  const { from, to } = fields;
  return from && to ? { from, to, fields, steps, text: text.replace(/\s+$/, '') } : undefined;
}
