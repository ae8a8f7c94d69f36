// writeClassic: a classic export's bytes written straight from the selection, without item objects. Pure.
// What no build changes about a direction in one export (codes after aliases, fees, labels, cities, url) is
// escaped and joined once and kept across builds; a build splices in only its rate, reserve and limits text.
// Byte-identical to renderExport over selectExports' items (test/exports/classic.test.ts, on randomized builds).
import { formatDecimal, roundDown } from '../decimal.js';
import type { Direction, ExportTemplate } from '../model.js';
import { ByteSink, chunkItems, declaration, elementText, emptyExport, refusal } from './render.js';
import { directionFields } from './direction-fields.js';
import type { RateEntry } from './rates.js';
import { urlWriter, type PublishedVisit } from './select.js';
import type { PublishedLimits, WithheldDirection } from '../priced.js';

/** A direction's text in one export that no build changes; alike values share one string (see `TemplateText`). */
interface ConstantText {
  /** The direction it was made for: a hit must be the very same object. */
  direction: Direction;
  /** `\n  <item>\n    <from>…</from>\n    <to>`. */
  from: string;
  /** `…</to>\n    <in>`. */
  to: string;
  /** `…</amount>`: the reserve, rounded down to the to currency's places. */
  amount: string;
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
 * config are never changed in place (a reload makes new template objects, and `templateTexts`, a WeakMap, lets the
 * old ones go with their text). Entries are keyed by the direction's id (unique in a config; an index is not: a
 * list entry `to: [A, B]` makes several directions of one index) and hold the direction they were made for: a
 * direction a build copies (a city paused, a reserve read from a source) is another object, so its entry is made
 * again and replaces the last one (one entry per id at most). A Map by id, not a WeakMap per direction: at 50,000
 * directions a WeakMap's entries alone make every garbage collection slower. Text shared by many directions
 * (a code, fees, labels and city without a url, a currency's reserve) is kept once in `shared`, which only ever
 * holds values of the config.
 */
class TemplateText {
  private readonly byId = new Map<string, ConstantText>();
  private readonly shared = new Map<string, string>();
  private readonly url: ReturnType<typeof urlWriter>;

  constructor(private readonly template: ExportTemplate) {
    this.url = urlWriter(template.url);
  }

  of(direction: Direction): ConstantText {
    const known = this.byId.get(direction.id);
    return known !== undefined && known.direction === direction ? known : this.made(direction);
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
    const reserve = formatDecimal(roundDown(direction.reserve, direction.to.precision));
    const constant: ConstantText = {
      direction,
      // The item's start up to <in>, in two parts so each code's part is shared by every direction with that code.
      from: this.one(`\n  <item>\n    <from>${fromText ?? ''}</from>\n    <to>`),
      to: this.one(`${toText ?? ''}</to>\n    <in>`),
      // A reserve read from a source is new at every build: only the config's own (the currency's) is shared.
      amount:
        direction.reserve === direction.to.reserve ? this.one(`${reserve}</amount>`) : flat(`${reserve}</amount>`),
      fees: this.one(fees.text),
      // With a url every tail is the direction's own: sharing it would only fill `shared`.
      tails: tails.map((tail) =>
        this.url === undefined ? this.one(`${tail.text}\n  </item>`) : flat(`${tail.text}\n  </item>`),
      ),
    };
    const head = fromText === undefined ? 'from' : toText === undefined ? 'to' : undefined;
    // Decimal text needs no escaping; checked anyway, so that no value reaches a file unchecked.
    const amount = elementText(reserve) === reserve ? undefined : 'amount';
    const refused = tails.map((tail) => head ?? amount ?? fees.refused ?? tail.refused);
    if (refused.some((name) => name !== undefined)) constant.refused = refused;
    this.byId.set(direction.id, constant);
    return constant;
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

  constructor(private readonly file: string) {}

  /** `in</in>…<amount>`; `index`: the item about to be written, for a refusal. */
  rate(rate: RateEntry, index: number): string {
    let text = this.rates.get(rate);
    if (text === undefined) {
      text = flat(
        `${this.checked(index, 'in', rate.in)}</in>\n    <out>${this.checked(index, 'out', rate.out)}</out>\n    <amount>`,
      );
      this.rates.set(rate, text);
    }
    return text;
  }

  /** The <minamount> and <maxamount> elements. */
  bounds(limits: PublishedLimits, index: number): string {
    let text = this.limits.get(limits);
    if (text === undefined) {
      const min =
        limits.min === undefined
          ? ''
          : `\n    <minamount>${this.checked(index, 'minamount', formatDecimal(limits.min))}</minamount>`;
      text = flat(`${min}\n    <maxamount>${this.checked(index, 'maxamount', formatDecimal(limits.max))}</maxamount>`);
      this.limits.set(limits, text);
    }
    return text;
  }

  /** Decimal text needs no escaping (digits, a point, a sign); checked anyway, once per value, so none goes unchecked. */
  private checked(index: number, name: string, value: string): string {
    if (elementText(value) !== value) throw refusal(this.file, index, name);
    return value;
  }
}

/**
 * A classic export's bytes, its item count and the directions left out of it, from `walk` (one export's walk of
 * exportWalker over `directions` priced directions). Items are joined `chunkItems` at a time into one buffer.
 */
export function writeClassic(
  template: ExportTemplate,
  walk: (visit: PublishedVisit) => WithheldDirection[],
  directions: number,
): { bytes: Buffer; items: number; withheld: WithheldDirection[] } {
  let texts = templateTexts.get(template);
  if (!texts) templateTexts.set(template, (texts = new TemplateText(template)));
  const { file } = template;
  const numbers = new NumberText(file);
  const sink = new ByteSink();
  let parts: string[] = [`${declaration}<rates>`];
  let items = 0;
  const withheld = walk((p, rate, limits, _steps, position) => {
    const { direction } = p;
    const constant = texts.of(direction);
    const rated = numbers.rate(rate, items);
    const bounds = numbers.bounds(limits, items);
    for (let k = 0; k < constant.tails.length; k++) {
      const refused = constant.refused?.[k];
      if (refused !== undefined) throw refusal(file, items, refused);
      parts.push(constant.from, constant.to, rated, constant.amount, constant.fees, bounds, constant.tails[k]!);
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
