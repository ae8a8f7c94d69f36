// writeClassic: a classic export's bytes written straight from the selection, without item objects. Pure.
// What no build changes about a direction in one export (codes after aliases, fees, labels, cities, url) is
// escaped and joined once and kept across builds; a build splices in only its rate, reserve and limits text.
// Byte-identical to renderExport over selectExports' items (test/unit/classic.test.ts, on randomized builds).
import { formatDecimal, roundDown, type Decimal } from '../decimal.js';
import type { Direction, ExportTemplate } from '../model.js';
import type { PublishedLimits } from '../pricing.js';
import type { WithheldDirection } from '../pricing.js';
import { ByteSink, chunkItems, declaration, elementText, emptyExport, refusal } from './render.js';
import { directionFields, urlWriter, type PublishedVisit, type RateEntry } from './select.js';

/** A direction's text in one export that no build changes; alike values share one string (see `TemplateText`). */
interface ConstantText {
  /** `\n  <item>\n    <from>…</from>\n    <to>`. */
  from: string;
  /** `…</to>\n    <in>`. */
  to: string;
  /** The fee elements that follow `</amount>`, or ''. */
  fees: string;
  /** One per city (one for a direction without cities): floating … url and the item's end. */
  tails: readonly string[];
  /** Per city: the first element of that item holding a character XML 1.0 forbids; absent when none does. */
  refused?: readonly (string | undefined)[];
}

/**
 * `text` as one flat string. V8 keeps a concatenation as a tree of its parts (a rope) until something reads it; a
 * fragment joined into every build's file would be walked part by part at every join (several times slower at
 * 30,000 items), so each kept fragment is flattened once, when made: reading a character flattens a rope in place.
 * The character goes into `lastRead` so that the optimizing compiler cannot drop the read.
 */
function flat(text: string): string {
  lastRead ^= text.charCodeAt(0);
  return text;
}

let lastRead = 0;

/** Elements joined into one string, remembering the first whose value XML 1.0 cannot carry. */
class Elements {
  text = '';
  refused: string | undefined;

  add(name: string, value: string | undefined): this {
    if (value === undefined) return this;
    const escaped = elementText(value);
    if (escaped === undefined) this.refused ??= name;
    else this.text += `\n    <${name}>${escaped}</${name}>`;
    return this;
  }
}

/**
 * One template's constant text per direction. Safe across builds: the template and the directions of a loaded
 * config are never changed in place (a reload makes new objects, and the WeakMaps let the old ones go); a direction
 * a build copies (a city paused, a reserve read from a source) is a new key. Text shared by many directions (a code,
 * fees, labels and city without a url) is kept once in `shared`, which only ever holds values of the config.
 */
class TemplateText {
  private readonly byDirection = new WeakMap<Direction, ConstantText>();
  private readonly shared = new Map<string, string>();
  private readonly url: ReturnType<typeof urlWriter>;

  constructor(private readonly template: ExportTemplate) {
    this.url = urlWriter(template.url);
  }

  of(direction: Direction): ConstantText {
    return this.byDirection.get(direction) ?? this.made(direction);
  }

  private one(text: string): string {
    return this.shared.get(text) ?? (this.shared.set(text, flat(text)), text);
  }

  private made(direction: Direction): ConstantText {
    const { aliases } = this.template;
    const from = aliases[direction.from.code] ?? direction.from.code;
    const to = aliases[direction.to.code] ?? direction.to.code;
    const fields = directionFields(direction);
    // In the monitors' order (itemElements): from, to | in, out, amount | fees | limits | floating … url.
    const [fromText, toText] = [elementText(from), elementText(to)];
    const fees = new Elements().add('minfee', fields.minfee).add('fromfee', fields.fromfee).add('tofee', fields.tofee);
    const cities = direction.cities.length > 0 ? direction.cities : [undefined];
    const tails = cities.map((city) =>
      new Elements()
        .add('floating', fields.floating)
        .add('delay', fields.delay)
        .add('param', fields.param)
        .add('city', city)
        .add('url', this.url?.(from, to, city ?? '')),
    );
    const constant: ConstantText = {
      // The item's start up to <in>, in two parts so each code's part is shared by every direction with that code.
      from: this.one(`\n  <item>\n    <from>${fromText ?? ''}</from>\n    <to>`),
      to: this.one(`${toText ?? ''}</to>\n    <in>`),
      fees: this.one(fees.text),
      // With a url every tail is the direction's own: sharing it would only fill `shared`.
      tails: tails.map((tail) => (this.url === undefined ? this.one(`${tail.text}\n  </item>`) : flat(`${tail.text}\n  </item>`))),
    };
    const head = fromText === undefined ? 'from' : toText === undefined ? 'to' : undefined;
    const refused = tails.map((tail) => head ?? fees.refused ?? tail.refused);
    if (refused.some((name) => name !== undefined)) constant.refused = refused;
    this.byDirection.set(direction, constant);
    return constant;
  }
}

const templateTexts = new WeakMap<ExportTemplate, TemplateText>();

/**
 * Decimal text as element text. Ours is digits, a point and a sign, which need no escaping; it is checked anyway
 * where it is made (once per distinct value), so no value reaches a file unchecked.
 */
function numberText(file: string, index: number, name: string, value: string): string {
  if (elementText(value) !== value) throw refusal(file, index, name);
  return value;
}

// Per-build values by the immutable object they are made from, each text made once per object: rate entries (one per
// rate, precisions and markup in a build), reserves (Decimals) and published limits; the WeakMaps let them go with it.
const rateTexts = new WeakMap<RateEntry, string>();
const amountTexts = new WeakMap<Decimal, Map<number, string>>();
const limitTexts = new WeakMap<PublishedLimits, string>();

function rateText(file: string, index: number, rate: RateEntry): string {
  let text = rateTexts.get(rate);
  if (text === undefined) {
    text = flat(`${numberText(file, index, 'in', rate.in)}</in>\n    <out>${numberText(file, index, 'out', rate.out)}</out>\n    <amount>`);
    rateTexts.set(rate, text);
  }
  return text;
}

function amountText(file: string, index: number, reserve: Decimal, places: number): string {
  let byPlaces = amountTexts.get(reserve);
  if (!byPlaces) amountTexts.set(reserve, (byPlaces = new Map()));
  let text = byPlaces.get(places);
  if (text === undefined) {
    text = flat(`${numberText(file, index, 'amount', formatDecimal(roundDown(reserve, places)))}</amount>`);
    byPlaces.set(places, text);
  }
  return text;
}

function limitsText(file: string, index: number, limits: PublishedLimits): string {
  let text = limitTexts.get(limits);
  if (text === undefined) {
    const min = limits.min === undefined ? '' : `\n    <minamount>${numberText(file, index, 'minamount', formatDecimal(limits.min))}</minamount>`;
    text = flat(`${min}\n    <maxamount>${numberText(file, index, 'maxamount', formatDecimal(limits.max))}</maxamount>`);
    limitTexts.set(limits, text);
  }
  return text;
}

/**
 * A classic export's bytes, its item count and the directions left out of it, from `walk` (one export's walk of
 * exportWalker over `directions` priced directions). Items are joined 1,024 at a time into one buffer.
 */
export function writeClassic(
  template: ExportTemplate,
  walk: (visit: PublishedVisit) => WithheldDirection[],
  directions: number,
): { bytes: Buffer; items: number; withheld: WithheldDirection[] } {
  let texts = templateTexts.get(template);
  if (!texts) templateTexts.set(template, (texts = new TemplateText(template)));
  const { file } = template;
  const sink = new ByteSink();
  let parts: string[] = [`${declaration}<rates>`];
  let items = 0;
  const withheld = walk((p, rate, limits, _steps, position) => {
    const { direction } = p;
    const constant = texts.of(direction);
    const numbers = rateText(file, items, rate);
    const amount = amountText(file, items, direction.reserve, direction.to.precision);
    const bounds = limitsText(file, items, limits);
    for (let k = 0; k < constant.tails.length; k++) {
      const refused = constant.refused?.[k];
      if (refused !== undefined) throw refusal(file, items, refused);
      parts.push(constant.from, constant.to, numbers, amount, constant.fees, bounds, constant.tails[k]!);
      items += 1;
      if (items % chunkItems === 0) {
        sink.write(parts.join(''), (position + 1) / directions);
        parts = [];
      }
    }
    return undefined;
  });
  if (items === 0) return { bytes: emptyExport(), items, withheld };
  parts.push('\n</rates>\n');
  sink.write(parts.join(''), 1);
  return { bytes: sink.bytes(), items, withheld };
}
