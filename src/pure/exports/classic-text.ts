// The text of classic items as the writer (classic.ts) joins it: elements in runs, and what no build changes of a
// direction's item, made once and kept across builds. Pure.
import { formatDecimal, roundDown } from '../../base/decimal.js';
import type { Currency, Direction, ExportTemplate } from '../../model/config.js';
import { directionFields } from './direction-fields.js';
import { itemElements, type ExportItem } from '../../model/items.js';
import { urlWriter } from './select.js';
import { elementText } from './xml-text.js';

export type ItemElement = (typeof itemElements)[number];
export type ItemValues = Partial<Pick<ExportItem, ItemElement>>;

export const itemStart = '\n  <item>';
export const itemEnd = '\n  </item>';

/** Elements of an item in `itemElements`' order, with each one's start and end tag made once. */
export interface Run {
  names: readonly ItemElement[];
  starts: readonly string[];
  ends: readonly string[];
}

const run = (names: readonly ItemElement[]): Run => ({
  names,
  starts: names.map((name) => `\n    <${name}>`),
  ends: names.map((name) => `</${name}>`),
});

/** Every element of an item. */
export const wholeItem = run(itemElements);
/** Where each run of elements a build writes apart starts: from | to | in, out | amount | fees | limits | floating … url. */
const runStarts: readonly ItemElement[] = ['from', 'to', 'in', 'amount', 'minfee', 'minamount', 'floating'];
/** The runs, split from `itemElements` at their starts, so that together they are the whole item in its order. */
export const [fromRun, toRun, rateRun, amountRun, feeRun, limitRun, tailRun] = runStarts.map((name, k) =>
  run(
    itemElements.slice(
      itemElements.indexOf(name),
      k + 1 < runStarts.length ? itemElements.indexOf(runStarts[k + 1]!) : itemElements.length,
    ),
  ),
) as [Run, Run, Run, Run, Run, Run, Run];

/**
 * The text of the elements of `run` in an item, between `before` and `after`: each set value as
 * `\n    <name>value</name>`, escaped; or the first of them whose value holds a character XML 1.0 forbids.
 * Made by one join, which gives one flat string: `+` would give a rope (V8 keeps a concatenation as a tree of its
 * parts), walked part by part again each time it is joined into a chunk, and a build joins the text a direction
 * keeps into every build's file.
 */
export function elementsText(values: ItemValues, run: Run, before = '', after = ''): string | { refused: ItemElement } {
  const { names, starts, ends } = run;
  const parts = [before];
  for (let k = 0; k < names.length; k++) {
    const value = values[names[k]!];
    if (value === undefined) continue;
    const escaped = elementText(value);
    if (escaped === undefined) return { refused: names[k]! };
    parts.push(starts[k]!, escaped, ends[k]!);
  }
  parts.push(after);
  return parts.join('');
}

/**
 * The text of a direction's item after its codes that no build changes, the same in every classic export: the
 * reserve, the fees, and per city floating … city (the item's end and `<url>` are the export's). One object per
 * distinct text when made of the config's values: tens of thousands of directions have a few dozen.
 */
export interface ItemText {
  /** <amount>: the reserve, rounded down to the to currency's places. */
  amount: string;
  /** The fee elements, or ''. */
  fees: string;
  /** One per city (one for a direction without cities). */
  tails: readonly string[];
}

/** A direction's kept text: a hit must be made for the very same object. */
export interface DirectionText {
  direction: Direction;
  item: ItemText;
  /** Per city: the first element after the codes holding a character XML 1.0 forbids; absent when none does. */
  refused?: readonly (ItemElement | undefined)[];
}

/** `elementsText` with a refusal kept as the element's name, for text made before any item is written. */
function constantText(values: ItemValues, run: Run, before?: string): { text: string; refused?: ItemElement } {
  const text = elementsText(values, run, before);
  return typeof text === 'string' ? { text } : { text: '', refused: text.refused };
}

/**
 * The kept text of directions, per to currency (a config object: a reloaded config's go with it), by the
 * direction's id (unique in a config; an index is not: a list entry `to: [A, B]` makes several directions of one
 * index). An entry holds the direction it was made for: a direction a build copies (a city paused, a reserve read
 * from a source) is another object, so its entry is made again and replaces the last one (one entry per id at
 * most). Maps by id, not a WeakMap per direction: at 50,000 directions a WeakMap's entries alone make every garbage
 * collection slower. One entry serves every classic export, and holds references only: `items` keeps each text
 * made of the config's values once (a reserve read from a source is new at every build, so its text is its own).
 */
const kept = new WeakMap<Currency, { byId: Map<string, DirectionText>; items: Map<string, ItemText> }>();

export function directionText(direction: Direction): DirectionText {
  let byCurrency = kept.get(direction.to);
  if (!byCurrency) kept.set(direction.to, (byCurrency = { byId: new Map(), items: new Map() }));
  const known = byCurrency.byId.get(direction.id);
  if (known !== undefined && known.direction === direction) return known;
  const fields = directionFields(direction);
  const reserve = formatDecimal(roundDown(direction.reserve, direction.to.precision));
  const amount = constantText({ amount: reserve }, amountRun);
  const fees = constantText(fields, feeRun);
  const tails = (direction.cities.length > 0 ? direction.cities : [undefined]).map((city) =>
    constantText({ ...fields, city }, tailRun),
  );
  let item: ItemText = { amount: amount.text, fees: fees.text, tails: tails.map((tail) => tail.text) };
  if (direction.reserve === direction.to.reserve) {
    // JSON: no text can run into the next one's.
    const key = JSON.stringify([item.amount, item.fees, item.tails]);
    item = byCurrency.items.get(key) ?? byCurrency.items.set(key, item).get(key)!;
  }
  const made: DirectionText = { direction, item };
  // The first refused element in the item's order, as renderClassic finds it.
  const refused = tails.map((tail) => amount.refused ?? fees.refused ?? tail.refused);
  if (refused.some((name) => name !== undefined)) made.refused = refused;
  byCurrency.byId.set(direction.id, made);
  return made;
}

/** A code's text in one export: the code after the template's aliases, or the element that refuses it. */
export type CodeText = { text: string; refused?: ItemElement };

/**
 * What one template adds to the kept text: its codes' text (the item's start and <from>, and <to>: one per code,
 * shared by every direction with that code) and its `<url>`. A `<url>` names both codes, so it is the one text of
 * an item no two directions share: it is written at each build instead, from the pattern escaped once (the codes
 * and city it is filled with are percent-encoded, so they need no escaping). Kept per template object (a reload
 * makes new ones; `templateTexts`, a WeakMap, lets the old ones go).
 */
export class TemplateText {
  private readonly froms = new Map<string, CodeText>();
  private readonly tos = new Map<string, CodeText>();
  /** The url writer on the escaped pattern, `null` when the pattern holds a character XML 1.0 forbids. */
  readonly url: ReturnType<typeof urlWriter> | null;

  constructor(readonly template: ExportTemplate) {
    const pattern = template.url === undefined ? undefined : elementText(template.url);
    this.url = template.url !== undefined && pattern === undefined ? null : urlWriter(pattern);
  }

  /** The code as this export publishes it. */
  code(code: string): string {
    return this.template.aliases[code] ?? code;
  }

  from(code: string): CodeText {
    return this.froms.get(code) ?? this.codeText(this.froms, code, { from: this.code(code) }, fromRun, itemStart);
  }

  to(code: string): CodeText {
    return this.tos.get(code) ?? this.codeText(this.tos, code, { to: this.code(code) }, toRun);
  }

  private codeText(known: Map<string, CodeText>, code: string, values: ItemValues, run: Run, before?: string) {
    const text = constantText(values, run, before);
    known.set(code, text);
    return text;
  }
}

const templateTexts = new WeakMap<ExportTemplate, TemplateText>();

export function templateText(template: ExportTemplate): TemplateText {
  let texts = templateTexts.get(template);
  if (!texts) templateTexts.set(template, (texts = new TemplateText(template)));
  return texts;
}
