// A strict scanner for the XML that ratefile renders (exports/classic.ts) and most exporters write: an optional
// XML declaration, a root element whose children hold elements with text, white space between elements, no
// attributes, text with the five predefined entity references. It hands on each child of the root as soon as it
// is read, so a big file is checked item by item, never as a whole tree.
// Anything outside that subset (comments, CDATA, processing instructions, a DOCTYPE, attributes, character
// references, deeper nesting, text beside elements, names fast-xml-parser treats specially, anything malformed)
// makes it give up: the caller then checks the document the general way. What it accepts is well-formed XML 1.0
// and reads as tree.ts reads it (the root apart: it is handed on without its text and end).
// A big file may come as slices of text (slices.ts cuts them after an `</item>`): a child of the root is read within
// one slice, and one cut inside a child makes the scanner give up like anything else it does not take.
// It carries no rule of the standard: what an item in the standard form is comes from the rule table (rules.ts),
// as a pattern built by `standardItemPattern` from the forms this scanner can read in one go.
import type { XmlElement } from './tree.js';

/**
 * The texts of an item matched by a `standardItemPattern`, as written: references not decoded, line ends not
 * normalized. `texts[1 + k]` is the text of the pattern's element `k`, undefined when the item does not have it.
 */
export type StandardTexts = RegExpExecArray;

export interface SimpleHandlers {
  /** The declaration's pseudo-attributes, or undefined without one; called first. */
  declaration(attributes: Record<string, string> | undefined): void;
  /** The root element at its start tag, without children or text (those go to the calls below); false gives up. */
  root(root: XmlElement): boolean;
  /**
   * An <item> matched by `pattern` (a `standardItemPattern`) and handed to `take`, its `<` at `index`: true when
   * the handler is done with it; false hands it to `child` as an element. Without it every child goes to `child`.
   */
  standardItem?: { pattern: RegExp; take(texts: StandardTexts, index: number): boolean };
  /** Each other child of the root, with its children, in document order. */
  child(child: XmlElement): void;
}

// Character codes the scanner compares against.
const tab = 9;
const newline = 10;
const carriageReturn = 13;
const space = 32;
const quote = 34;
const ampersand = 38;
const apostrophe = 39;
const slash = 47;
const less = 60;
const equals = 61;
const greater = 62;
const closingBracket = 93;

const isSpace = (c: number): boolean => c === space || c === newline || c === tab || c === carriageReturn;
// ASCII names only; XML allows more, which the general path handles.
const isNameStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isNameChar = (c: number): boolean => isNameStart(c) || (c >= 48 && c <= 57) || c === 45 || c === 46;
/** Names fast-xml-parser refuses (`__proto__`, `constructor`, `prototype`) or renames (`toString` to `__toString`…). */
const objectKeywords: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);
const isObjectKeyword = (name: string): boolean => objectKeywords.has(name);

/** The predefined entity references, by the text between `&` and `;`. */
const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const entityBodies = Object.keys(entities).map((body) => `${body};`);

/** Text as tree.ts reads it: line ends normalized as XML (and fast-xml-parser) does, references decoded. */
export function decodeText(raw: string): string {
  const lines = raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw;
  return lines.includes('&')
    ? lines.replace(/&(amp|lt|gt|quot|apos);/g, (_reference, body: string) => entities[body]!)
    : lines;
}

/** The forms of text the pattern reads: codes (ASCII letters and digits), plain dot-decimal numbers, other text. */
export type StandardForm = 'code' | 'number' | 'text';

const white = '[\\t\\n\\r ]*';
const textChar = '[^<>&\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\uD800-\\uDFFF\\uFFFE\\uFFFF]';
const reference = '&(?:amp|lt|gt|quot|apos);';
const anyText = `${textChar}*(?:(?:${reference}|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])${textChar}*)*`;
const printable = `(?:[!-%'-;=?-~]|${reference})`;
/** Other text: non-empty, printable ASCII (or a reference) at both ends, no `>` (exporters escape it, and without it there can be no `]]>`). */
const formPatterns: Record<StandardForm, string> = {
  code: '[0-9A-Za-z]+',
  number: '\\d+(?:\\.\\d+)?',
  text: `${printable}(?:${anyText}${printable})?`,
};

/**
 * An <item> whose elements come in the given order, each at most once, those marked `always` always there, each
 * holding text of its form, matched in one go by the regular expression engine, whose compiled code reads the
 * characters without a call per character as a loop here makes. Every character it takes is one leafText takes,
 * so the scanner would read the item the same way.
 */
export function standardItemPattern(
  elements: readonly { name: string; form: StandardForm; always: boolean }[],
): RegExp {
  const element = ({ name, form, always }: (typeof elements)[number]) =>
    `(?:<${name}>(${formPatterns[form]})</${name}>${white})${always ? '' : '?'}`;
  return new RegExp(`<item>${white}${elements.map(element).join('')}</item>`, 'y');
}

const declarationForms = {
  version: /^1\.0$/,
  encoding: /^[A-Za-z][A-Za-z0-9._-]*$/,
  standalone: /^(yes|no)$/,
} as const;
const declarationOrder = Object.keys(declarationForms) as (keyof typeof declarationForms)[];

/**
 * Scan `text` (decoded from UTF-8, so without lone surrogates), calling the handlers as it goes; false when the
 * document is outside the subset (the handlers may have seen a part of it). `more`: the text that follows, a slice
 * at a time, undefined at the end; indexes handed on count from the start of the first slice.
 */
export function scanSimple(
  text: string,
  handlers: SimpleHandlers,
  more: () => string | undefined = () => undefined,
): boolean {
  return new Scanner(text, more).document(handlers);
}

class Scanner {
  private pos = 0;
  /** Index of the current slice's first character in the whole text. */
  private base = 0;

  constructor(
    private text: string,
    private readonly more: () => string | undefined,
  ) {}

  /** At the end of the current slice: the next one, if any. */
  private nextSlice(): boolean {
    if (this.pos !== this.text.length) return false;
    const next = this.more();
    if (next === undefined) return false;
    this.base += this.text.length;
    this.text = next;
    this.pos = 0;
    return true;
  }

  document(handlers: SimpleHandlers): boolean {
    const declaration = this.declaration();
    if (declaration === false) return false;
    handlers.declaration(declaration);
    this.skipSpace();
    const root = this.startTag();
    if (root === undefined || !handlers.root(root.element)) return false;
    if (!root.empty) {
      const name = root.element.name;
      const standard = handlers.standardItem;
      for (;;) {
        this.skipSpace();
        if (this.nextSlice()) continue;
        if (this.endTag(name)) break;
        if (standard) {
          standard.pattern.lastIndex = this.pos;
          const texts = standard.pattern.exec(this.text);
          if (texts !== null && standard.take(texts, this.base + this.pos)) {
            this.pos = standard.pattern.lastIndex;
            continue;
          }
        }
        const child = this.child();
        if (child === undefined) return false;
        handlers.child(child);
      }
    }
    do this.skipSpace();
    while (this.nextSlice());
    return this.pos === this.text.length;
  }

  /** The XML declaration at offset 0: undefined when there is none, false when it is outside the subset. */
  private declaration(): Record<string, string> | undefined | false {
    const text = this.text;
    if (!text.startsWith('<?')) return undefined;
    // Any other processing instruction is outside the subset.
    if (!text.startsWith('<?xml') || !isSpace(text.charCodeAt(5))) return false;
    this.pos = 5;
    const attributes: Record<string, string> = {};
    let next = 0;
    for (;;) {
      const spaced = this.skipSpace();
      if (text.startsWith('?>', this.pos)) {
        this.pos += 2;
        return attributes.version === undefined ? false : attributes;
      }
      const start = this.pos;
      while (isNameChar(text.charCodeAt(this.pos))) this.pos += 1;
      const name = text.slice(start, this.pos);
      // version, then encoding, then standalone, each at most once, as the grammar has them.
      const index = declarationOrder.indexOf(name as keyof typeof declarationForms);
      if (!spaced || index < next) return false;
      next = index + 1;
      this.skipSpace();
      if (text.charCodeAt(this.pos) !== equals) return false;
      this.pos += 1;
      this.skipSpace();
      const delimiter = text.charCodeAt(this.pos);
      if (delimiter !== quote && delimiter !== apostrophe) return false;
      const end = text.indexOf(String.fromCharCode(delimiter), this.pos + 1);
      if (end === -1) return false;
      const value = text.slice(this.pos + 1, end);
      if (!declarationForms[declarationOrder[index]!].test(value)) return false;
      attributes[name] = value;
      this.pos = end + 1;
    }
  }

  /** Skips XML white space; whether there was any. */
  private skipSpace(): boolean {
    const start = this.pos;
    while (isSpace(this.text.charCodeAt(this.pos))) this.pos += 1;
    return this.pos > start;
  }

  /** `<name>` or `<name/>` at the position, as an element without children or text. */
  private startTag(): { element: XmlElement; empty: boolean } | undefined {
    const text = this.text;
    const index = this.pos;
    if (text.charCodeAt(index) !== less || !isNameStart(text.charCodeAt(index + 1))) return undefined;
    let i = index + 2;
    while (isNameChar(text.charCodeAt(i))) i += 1;
    const name = text.slice(index + 1, i);
    let c = text.charCodeAt(i);
    const empty = c === slash;
    if (empty) c = text.charCodeAt(++i);
    if (c !== greater || isObjectKeyword(name)) return undefined;
    this.pos = i + 1;
    return {
      element: { name, attributes: {}, children: [], text: '', index: this.base + index, end: this.base + this.pos },
      empty,
    };
  }

  /** `</name>` at the position: reads it and says true, or leaves the position and says false. */
  private endTag(name: string): boolean {
    const text = this.text;
    const at = this.pos;
    if (
      text.charCodeAt(at) !== less ||
      text.charCodeAt(at + 1) !== slash ||
      text.charCodeAt(at + 2 + name.length) !== greater ||
      !text.startsWith(name, at + 2)
    )
      return false;
    this.pos = at + 3 + name.length;
    return true;
  }

  /** A child of the root with its own children (elements holding text only), or undefined. */
  private child(): XmlElement | undefined {
    const tag = this.startTag();
    if (tag === undefined) return undefined;
    const element = tag.element;
    if (tag.empty) return element;
    // Its own text is the white space between its children.
    let text = '';
    for (;;) {
      const space = this.pos;
      this.skipSpace();
      text += this.text.slice(space, this.pos);
      if (this.endTag(element.name)) break;
      const leaf = this.startTag();
      if (leaf === undefined) return undefined;
      if (!leaf.empty) {
        const start = this.pos;
        if (!this.leafText()) return undefined;
        const end = this.pos;
        if (!this.endTag(leaf.element.name)) return undefined;
        leaf.element.text = decodeText(this.text.slice(start, end));
        leaf.element.end = this.base + this.pos;
      }
      element.children.push(leaf.element);
    }
    element.text = decodeText(text);
    element.end = this.base + this.pos;
    return element;
  }

  /** Reads character data up to the next `<`; false when a character or reference in it is outside the subset, or `]]>`. */
  private leafText(): boolean {
    const text = this.text;
    const start = this.pos;
    let i = start;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === less) break;
      if (c >= space) {
        if (c === greater) {
          // XML forbids `]]>` in text (it closes CDATA); elsewhere in this subset it cannot be.
          if (i - 2 >= start && text.charCodeAt(i - 1) === closingBracket && text.charCodeAt(i - 2) === closingBracket)
            return false;
          i += 1;
        } else if (c === ampersand) {
          const body = entityBodies.find((candidate) => text.startsWith(candidate, i + 1));
          if (body === undefined) return false;
          i += body.length + 1;
        } else if (c >= 0xfffe || (c >= 0xdc00 && c <= 0xdfff)) {
          // U+FFFE and U+FFFF are not XML characters; a low surrogate here would be one without its pair.
          return false;
        } else if (c >= 0xd800 && c <= 0xdbff) {
          const low = text.charCodeAt(i + 1);
          if (!(low >= 0xdc00 && low <= 0xdfff)) return false;
          i += 2;
        } else {
          i += 1;
        }
        continue;
      }
      // Tab, newline and carriage return are the only characters below space XML allows; NaN is the end of the text.
      if (c !== newline && c !== tab && c !== carriageReturn) return false;
      i += 1;
    }
    this.pos = i;
    return true;
  }
}
