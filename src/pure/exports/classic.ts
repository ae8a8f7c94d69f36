// The classic XML writer, the only one: an item's elements written once (`elementsText`), for two callers that give
// the same bytes by construction. `renderClassic` writes an export model's items (the dashboard, tests);
// `writeClassic` is what a build writes, straight from the selection without item objects: what no build changes
// about a direction (codes after aliases, fees, labels, cities: classic-text.ts) is written once and kept across
// builds, and a build adds only its rate, limits and url text, each rate and limits text once per value. Pure.
// test/unit/pure/exports/classic.test.ts compares both with each other, with xmlbuilder2 and libxml2 on randomized builds.
import { formatDecimal } from '../../base/decimal.js';
import type { ExportTemplate } from '../../model/config.js';
import {
  directionText,
  elementsText,
  itemEnd,
  itemStart,
  limitRun,
  rateRun,
  templateText,
  wholeItem,
  type ItemValues,
  type Run,
} from './classic-text.js';
import type { ExportModel } from '../../model/items.js';
import type { PublishedVisit } from './select.js';
import { ByteSink, chunkItems, declaration, emptyExport, refusal } from './xml-text.js';
import type { PublishedLimits, RateEntry, WithheldDirection } from '../../model/priced.js';

const urlStart = '\n    <url>';
const urlEnd = `</url>${itemEnd}`;

/**
 * A classic file as it is written: items' text joined `chunkItems` at a time into one buffer. The parts array is
 * filled by index and keeps its room from chunk to chunk: emptied (`length = 0`), V8 drops its backing store, and
 * regrowing it for every chunk made more garbage than the parts themselves.
 */
class ClassicFile {
  private readonly sink = new ByteSink();
  /** The text of the items since the last chunk (its first `count` entries); an item's text may be in several parts. */
  private readonly parts: string[] = [`${declaration}<rates>`];
  private count = 1;
  items = 0;

  constructor(readonly file: string) {}

  /** `elementsText`, or the refusal naming the item about to be written. */
  elements(values: ItemValues, run: Run, before?: string, after?: string): string {
    const text = elementsText(values, run, before, after);
    if (typeof text !== 'string') throw refusal(this.file, this.items, text.refused);
    return text;
  }

  /** The next part of the current item's text. */
  put(text: string): void {
    this.parts[this.count++] = text;
  }

  /** The item whose parts were put is whole; `done`: the share of the file's work done, to size the buffer. */
  itemDone(done: number): void {
    this.items += 1;
    if (this.items % chunkItems === 0) this.flush(done);
  }

  /** The parts so far into the buffer. A chunk with fewer parts than the last cuts the array to them (in place). */
  private flush(done: number): void {
    if (this.parts.length > this.count) this.parts.length = this.count;
    this.sink.write(this.parts.join(''), done);
    this.count = 0;
  }

  bytes(): Buffer {
    if (this.items === 0) return emptyExport();
    this.put('\n</rates>\n');
    this.flush(1);
    return this.sink.bytes();
  }
}

/** One export model's items to the bytes of its classic file (UTF-8). */
export function renderClassic(model: ExportModel): Buffer {
  const file = new ClassicFile(model.file);
  const { items } = model;
  for (const item of items) {
    file.put(file.elements(item, wholeItem, itemStart, itemEnd));
    file.itemDone((file.items + 1) / items.length);
  }
  return file.bytes();
}

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
  const texts = templateText(template);
  const file = new ClassicFile(template.file);
  const numbers = new NumberText(file);
  const { url } = texts;
  const withheld = walk((p, rate, limits, _steps, position) => {
    const { direction } = p;
    const kept = directionText(direction);
    const { item } = kept;
    const { tails } = item;
    const [from, to] = [texts.from(direction.from.code), texts.to(direction.to.code)];
    // Decimal text needs no escaping; checked anyway (once per value), so that no value reaches a file unchecked.
    const rated = numbers.rate(rate);
    const bounds = numbers.bounds(limits);
    for (let k = 0; k < tails.length; k++) {
      // The first refused element in the item's order, as renderClassic finds it.
      const refused = from.refused ?? to.refused ?? kept.refused?.[k] ?? (url === null ? 'url' : undefined);
      if (refused !== undefined) throw refusal(file.file, file.items, refused);
      file.put(from.text);
      file.put(to.text);
      file.put(rated);
      file.put(item.amount);
      file.put(item.fees);
      file.put(bounds);
      file.put(tails[k]!);
      if (url) {
        const city = direction.cities[k] ?? '';
        file.put(urlStart);
        file.put(url(texts.code(direction.from.code), texts.code(direction.to.code), city));
        file.put(urlEnd);
      } else file.put(itemEnd);
      file.itemDone((position + 1) / directions);
    }
    return undefined;
  });
  return { bytes: file.bytes(), items: file.items, withheld };
}
