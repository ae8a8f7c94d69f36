// The classic XML writer, the only one: an item's elements written once (`elementsText`), for two callers that give
// the same bytes by construction. `renderClassic` writes an export model's items (the dashboard, tests);
// `writeClassic` is what a build writes, straight from the selection without item objects: what no build changes
// about a direction in one export (codes after aliases, fees, labels, cities, url) is written once and kept across
// builds, and a build adds only its rate, reserve and limits text, each made once per value. Pure.
// test/exports/classic.test.ts compares both with each other, with xmlbuilder2 and libxml2 on randomized builds.
import { formatDecimal, roundDown } from '../decimal.js';
import type { Direction, ExportTemplate } from '../model.js';
import { directionFields } from './direction-fields.js';
import { itemElements, type ExportItem, type ExportModel } from './items.js';
import { urlWriter, type PublishedVisit } from './select.js';
import { ByteSink, chunkItems, declaration, elementText, emptyExport, refusal } from './xml-text.js';
import type { PublishedLimits, RateEntry, WithheldDirection } from '../priced.js';

type ItemElement = (typeof itemElements)[number];
type ItemValues = Partial<Pick<ExportItem, ItemElement>>;

const itemStart = '\n  <item>';
const itemEnd = '\n  </item>';

/** Elements of an item in `itemElements`' order, with each one's start and end tag made once. */
interface Run {
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
const wholeItem = run(itemElements);
/** Where each run of elements a build writes apart starts: from | to | in, out | amount | fees | limits | floating … url. */
const runStarts: readonly ItemElement[] = ['from', 'to', 'in', 'amount', 'minfee', 'minamount', 'floating'];
/** The runs, split from `itemElements` at their starts, so that together they are the whole item in its order. */
const [fromRun, toRun, rateRun, amountRun, feeRun, limitRun, tailRun] = runStarts.map((name, k) =>
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
function elementsText(values: ItemValues, run: Run, before = '', after = ''): string | { refused: ItemElement } {
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

/** A classic file as it is written: items' text joined `chunkItems` at a time into one buffer. */
class ClassicFile {
  private readonly sink = new ByteSink();
  /** The text of the items since the last chunk; an item's text may be in several parts. */
  readonly parts: string[] = [`${declaration}<rates>`];
  items = 0;

  constructor(readonly file: string) {}

  /** `elementsText`, or the refusal naming the item about to be written. */
  elements(values: ItemValues, run: Run, before?: string, after?: string): string {
    const text = elementsText(values, run, before, after);
    if (typeof text !== 'string') throw refusal(this.file, this.items, text.refused);
    return text;
  }

  /** The item whose parts were pushed is whole; `done`: the share of the file's work done, to size the buffer. */
  itemDone(done: number): void {
    this.items += 1;
    if (this.items % chunkItems === 0) {
      this.sink.write(this.parts.join(''), done);
      this.parts.length = 0;
    }
  }

  bytes(): Buffer {
    if (this.items === 0) return emptyExport();
    this.parts.push('\n</rates>\n');
    this.sink.write(this.parts.join(''), 1);
    return this.sink.bytes();
  }
}

/** One export model's items to the bytes of its classic file (UTF-8). */
export function renderClassic(model: ExportModel): Buffer {
  const file = new ClassicFile(model.file);
  const { items } = model;
  for (const item of items) {
    file.parts.push(file.elements(item, wholeItem, itemStart, itemEnd));
    file.itemDone((file.items + 1) / items.length);
  }
  return file.bytes();
}

/**
 * The text of a direction's item in one export after its codes and before `<url>` that no build changes: the
 * reserve, the fees, and one tail per city (floating … city, and the item's end unless the export has a url).
 * One object per distinct text: tens of thousands of directions have a few dozen, and the text of each is kept once.
 */
interface ItemText {
  /** <amount>: the reserve, rounded down to the to currency's places. */
  amount: string;
  /** The fee elements, or ''. */
  fees: string;
  /** One per city (one for a direction without cities). */
  tails: readonly string[];
}

/** A direction's text in one export that no build changes (see `TemplateText`): its codes' and the rest. */
interface ConstantText {
  /** The direction it was made for: a hit must be the very same object. */
  direction: Direction;
  /** The item's start and <from>, and <to>: each code's text is shared by every direction with that code. */
  from: string;
  to: string;
  item: ItemText;
  /** Per city: the first element of that item holding a character XML 1.0 forbids; absent when none does. */
  refused?: readonly (ItemElement | undefined)[];
}

/** `elementsText` with a refusal kept as the element's name, for text made before any item is written. */
function constantText(
  values: ItemValues,
  run: Run,
  before?: string,
  after?: string,
): { text: string; refused?: ItemElement } {
  const text = elementsText(values, run, before, after);
  return typeof text === 'string' ? { text } : { text: '', refused: text.refused };
}

const urlStart = '\n    <url>';
const urlEnd = `</url>${itemEnd}`;

/**
 * One template's constant text per direction. Safe across builds: the loaded config is deeply frozen (a reload
 * makes new template objects, and `templateTexts`, a WeakMap, lets the old ones go with their text). Entries are
 * keyed by the direction's id (unique in a config; an index is not: a list entry `to: [A, B]` makes several
 * directions of one index) and hold the direction they were made for: a direction a build copies (a city paused, a
 * reserve read from a source) is another object, so its entry is made again and replaces the last one (one entry
 * per id at most). A Map by id, not a WeakMap per direction: at 50,000 directions a WeakMap's entries alone make
 * every garbage collection slower. An entry keeps references only: the text itself is shared by the directions
 * alike (`shared`, `items`: values of the config only). A `<url>` names both codes, so it is the one text of an
 * item no two directions share: it is written at each build instead, from the pattern escaped once (the codes and
 * city it is filled with are percent-encoded, so they need no escaping).
 */
class TemplateText {
  private readonly byId = new Map<string, ConstantText>();
  private readonly shared = new Map<string, string>();
  private readonly items = new Map<string, ItemText>();
  /** The url writer on the escaped pattern, `null` when the pattern holds a character XML 1.0 forbids. */
  readonly url: ReturnType<typeof urlWriter> | null;

  constructor(private readonly template: ExportTemplate) {
    const pattern = template.url === undefined ? undefined : elementText(template.url);
    this.url = template.url !== undefined && pattern === undefined ? null : urlWriter(pattern);
  }

  of(direction: Direction): ConstantText {
    const known = this.byId.get(direction.id);
    return known !== undefined && known.direction === direction ? known : this.made(direction);
  }

  /** The shared copy of `text`. */
  private one(text: string): string {
    return this.shared.get(text) ?? (this.shared.set(text, text), text);
  }

  private made(direction: Direction): ConstantText {
    const { aliases } = this.template;
    const from = aliases[direction.from.code] ?? direction.from.code;
    const to = aliases[direction.to.code] ?? direction.to.code;
    const fields = directionFields(direction);
    const reserve = formatDecimal(roundDown(direction.reserve, direction.to.precision));
    const [fromText, toText] = [constantText({ from }, fromRun, itemStart), constantText({ to }, toRun)];
    const amount = constantText({ amount: reserve }, amountRun);
    const fees = constantText(fields, feeRun);
    const after = this.url === undefined ? itemEnd : '';
    const tails = (direction.cities.length > 0 ? direction.cities : [undefined]).map((city) =>
      constantText({ ...fields, city }, tailRun, '', after),
    );
    const item: ItemText = { amount: amount.text, fees: fees.text, tails: tails.map((tail) => tail.text) };
    const constant: ConstantText = {
      direction,
      from: this.one(fromText.text),
      to: this.one(toText.text),
      // A reserve read from a source is new at every build: only text made of the config's values is shared.
      item: direction.reserve === direction.to.reserve ? this.sharedItem(item) : item,
    };
    // The first refused element in the item's order, as renderClassic finds it.
    const head = fromText.refused ?? toText.refused ?? amount.refused ?? fees.refused;
    const refused = tails.map((tail) => head ?? tail.refused ?? (this.url === null ? 'url' : undefined));
    if (refused.some((name) => name !== undefined)) constant.refused = refused;
    this.byId.set(direction.id, constant);
    return constant;
  }

  private sharedItem(item: ItemText): ItemText {
    // JSON: no text can run into the next one's.
    const key = JSON.stringify([item.amount, item.fees, item.tails]);
    return this.items.get(key) ?? this.items.set(key, item).get(key)!;
  }
}

const templateTexts = new WeakMap<ExportTemplate, TemplateText>();

/**
 * Rate and limits text of one export, made once per object: a rate entry (one per rate, precisions and markup in a
 * build) or a set of published limits (shared by directions alike). Plain Maps that die with the export.
 */
class NumberText {
  private readonly rates = new Map<RateEntry, string>();
  private readonly limits = new Map<PublishedLimits, string>();

  constructor(private readonly file: ClassicFile) {}

  /** <in> and <out>. */
  rate(rate: RateEntry): string {
    let text = this.rates.get(rate);
    if (text === undefined) {
      text = this.file.elements(rate, rateRun);
      this.rates.set(rate, text);
    }
    return text;
  }

  /** <minamount> and <maxamount>. */
  bounds(limits: PublishedLimits): string {
    let text = this.limits.get(limits);
    if (text === undefined) {
      const minamount = limits.min === undefined ? undefined : formatDecimal(limits.min);
      text = this.file.elements({ minamount, maxamount: formatDecimal(limits.max) }, limitRun);
      this.limits.set(limits, text);
    }
    return text;
  }
}

/**
 * A classic export's bytes, its item count and the directions left out of it, from `walk` (one export's walk of
 * exportWalker over `directions` priced directions).
 */
export function writeClassic(
  template: ExportTemplate,
  walk: (visit: PublishedVisit) => WithheldDirection[],
  directions: number,
): { bytes: Buffer; items: number; withheld: WithheldDirection[] } {
  let texts = templateTexts.get(template);
  if (!texts) templateTexts.set(template, (texts = new TemplateText(template)));
  const file = new ClassicFile(template.file);
  const numbers = new NumberText(file);
  const { parts } = file;
  const { url } = texts;
  const { aliases } = template;
  const withheld = walk((p, rate, limits, _steps, position) => {
    const constant = texts.of(p.direction);
    const { item } = constant;
    const { tails } = item;
    // Decimal text needs no escaping; checked anyway (once per value), so that no value reaches a file unchecked.
    const rated = numbers.rate(rate);
    const bounds = numbers.bounds(limits);
    for (let k = 0; k < tails.length; k++) {
      const refused = constant.refused?.[k];
      if (refused !== undefined) throw refusal(file.file, file.items, refused);
      parts.push(constant.from, constant.to, rated, item.amount, item.fees, bounds, tails[k]!);
      if (url) {
        const { from, to, cities } = p.direction;
        parts.push(
          urlStart,
          url(aliases[from.code] ?? from.code, aliases[to.code] ?? to.code, cities[k] ?? ''),
          urlEnd,
        );
      }
      file.itemDone((position + 1) / directions);
    }
    return undefined;
  });
  return { bytes: file.bytes(), items: file.items, withheld };
}
