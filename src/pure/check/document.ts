// The rules above the items, fed one piece at a time so both ways of reading a file share them: the declaration,
// the root, each child of the root (an item is checked as it arrives), duplicates, and the empty file.
import type { Direction } from './clean.js';
import {
  describeItem,
  severityOf,
  type CheckOptions,
  type CheckResult,
  type Finding,
  type ItemRef,
} from './findings.js';
import { checkItem, itemRef } from './item.js';
import { numberedCities, numberedCurrencies } from './numbered.js';
import type { XmlElement } from './tree.js';

type At = (index: number) => { line: number; column: number };

export class DocumentChecks {
  readonly findings: Finding[];
  private items = 0;
  /**
   * The first item (1-based) of each direction, for duplicates. Between two known currencies without a city, the
   * common case, in a row per from indexed by the to's number (0: none yet); any other direction by its codes.
   */
  private readonly knownRows: (Int32Array | undefined)[] = [];
  /** The same between two known currencies in a known city (cash directions), by a number made of the three. */
  private readonly knownInCity = new Map<number, number>();
  private readonly firstOf = new Map<string, number>();
  /** Each item's digest (itemDigest) by position, to tell a repeated item from a duplicate direction that differs. */
  private readonly digests: number[] = [0];

  /** `findings`: those found before the document was read (decoding), kept in front. */
  /** `checkItems`: the rules of one item in the file's format, classic unless told (EREF 1.1: eref.ts). */
  constructor(
    private readonly at: At,
    findings: readonly Finding[],
    private readonly options: CheckOptions = {},
    private readonly checkItems: typeof checkItem = checkItem,
  ) {
    this.findings = [...findings];
  }

  declaration(declaration: Record<string, string> | undefined): void {
    const findings = this.findings;
    if (!declaration) {
      findings.push({
        severity: 'warning',
        rule: 'declaration',
        message: 'no XML declaration: start the file with <?xml version="1.0" encoding="UTF-8"?>',
        line: 1,
        column: 1,
      });
      return;
    }
    if (declaration.version !== '1.0')
      findings.push({
        severity: 'error',
        rule: 'declaration',
        message: `XML version ${declaration.version ?? '(none)'}: the standard is XML 1.0`,
        line: 1,
        column: 1,
      });
    const encoding = declaration.encoding;
    if (encoding !== undefined && encoding.toUpperCase() !== 'UTF-8') {
      findings.push({
        severity: 'error',
        rule: 'declaration',
        message: `declared encoding ${encoding}: the standard requires UTF-8`,
        line: 1,
        column: 1,
      });
    }
  }

  /** The root with its text (its children go to `child`); false when it is not <rates> and nothing more is checked. */
  root(root: XmlElement): boolean {
    if (root.name !== 'rates') {
      this.findings.push({
        severity: 'error',
        rule: 'root',
        message: `the root element is <${root.name}>; an export file's root is <rates>`,
        ...this.at(root.index),
      });
      return false;
    }
    if (root.text.trim() !== '')
      this.findings.push({
        severity: 'error',
        rule: 'structure',
        message: `text directly inside <rates>: "${root.text.trim().slice(0, 40)}"`,
        ...this.at(root.index),
      });
    return true;
  }

  child(child: XmlElement): void {
    if (child.name === 'item') this.item(child);
    else
      this.findings.push({
        severity: 'error',
        rule: 'structure',
        message: `<${child.name}> inside <rates>: only <item> elements belong there`,
        ...this.at(child.index),
      });
  }

  /** An item clean.ts found clean: counted and checked for duplicates, nothing else to report. */
  cleanItem(index: number, direction: Direction, digest: number): void {
    this.items += 1;
    this.digests.push(digest);
    this.knownDirection(this.items, direction.from, direction.to, direction.city, index);
  }

  private item(item: XmlElement): void {
    this.items += 1;
    this.digests.push(
      itemDigest(
        item.children.map((child) => child.name),
        item.children.map((child) => child.text.trim()),
      ),
    );
    const ref = itemRef(item, this.items);
    this.checkItems(
      item,
      (level, rule, message, element) => {
        this.findings.push({
          severity: severityOf(level, this.options),
          rule,
          message,
          ...this.at((element ?? item).index),
          item: ref,
          ...(element ? { element: element.name } : {}),
        });
      },
      this.options.codes,
    );
    if (ref.from === undefined || ref.to === undefined) return;
    const { numbers } = numberedCurrencies();
    const [from, to] = [numbers.get(ref.from), numbers.get(ref.to)];
    if (from !== undefined && to !== undefined) this.knownDirection(ref.index, from, to, ref.city, item.index);
    else this.direction(ref.index, ref.from, ref.to, ref.city, item.index);
  }

  /** Item `position` (its `<` at `index`) goes between the known currencies numbered `from` and `to`, with or without a city. */
  private knownDirection(position: number, from: number, to: number, city: string | undefined, index: number): void {
    const { list } = numberedCurrencies();
    if (city === undefined) {
      const row = (this.knownRows[from] ??= new Int32Array(list.length));
      const first = row[to]!;
      if (first === 0) row[to] = position;
      else this.duplicate(position, list[from]!.code, list[to]!.code, undefined, first, index);
      return;
    }
    const cities = numberedCities();
    const cityNumber = cities.get(city);
    // A city not on the list (or several in one <city>) is keyed by its text, as any other direction.
    if (cityNumber === undefined) return this.direction(position, list[from]!.code, list[to]!.code, city, index);
    const key = (from * list.length + to) * cities.size + cityNumber;
    const first = this.knownInCity.get(key);
    if (first === undefined) this.knownInCity.set(key, position);
    else this.duplicate(position, list[from]!.code, list[to]!.code, city, first, index);
  }

  /** Item `position` (its `<` at `index`) has any other direction. */
  private direction(position: number, from: string, to: string, city: string | undefined, index: number): void {
    const key = `${from}\u0000${to}\u0000${city ?? ''}`;
    const first = this.firstOf.get(key);
    if (first === undefined) this.firstOf.set(key, position);
    else this.duplicate(position, from, to, city, first, index);
  }

  private duplicate(
    position: number,
    from: string,
    to: string,
    city: string | undefined,
    first: number,
    index: number,
  ): void {
    const ref: ItemRef = { index: position, from, to, ...(city ? { city } : {}) };
    const same = `same from and to${city ? ' and city' : ', without a city,'} as ${describeItem({ ...ref, index: first })}`;
    // An item repeated as it is reads the same whichever a monitor keeps; one that differs is read one way or the other.
    const repeated = this.digests[position] === this.digests[first];
    this.findings.push({
      severity: repeated ? severityOf('tolerated', this.options) : 'error',
      rule: 'duplicate',
      message: repeated
        ? `duplicate direction: the same item as ${describeItem({ ...ref, index: first })}, value for value: monitors read the same either way; leave one out`
        : `duplicate direction: ${same}, with other values: a monitor reads one of them, which one is its choice`,
      ...this.at(index),
      item: ref,
    });
  }

  /** After the last child of the root. */
  finish(target: string, root: XmlElement): CheckResult {
    const findings = this.findings;
    if (this.items === 0)
      findings.push({
        severity: 'warning',
        rule: 'empty',
        message: 'no items: the monitors will list none of your directions',
        ...this.at(root.index),
      });
    // Findings in document order, so the report reads top to bottom.
    findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
    return { target, items: this.items, findings };
  }
}

/**
 * A 53-bit digest of an item's elements (names and trimmed texts, in order): two FNV-1a hashes in one pass. Equal
 * items have equal digests; items that differ collide once in about 10¹⁶ pairs. Kept per item: 8 bytes, not its text.
 */
export function itemDigest(names: readonly string[], texts: readonly (string | undefined)[]): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  const mix = (code: number) => {
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
  };
  for (let i = 0; i < names.length; i += 1) {
    const text = texts[i];
    if (text === undefined) continue;
    for (const part of [names[i]!, text]) {
      for (let c = 0; c < part.length; c += 1) mix(part.charCodeAt(c));
      mix(0xffff);
    }
  }
  return (a >>> 0) * 0x200000 + (b >>> 11);
}
