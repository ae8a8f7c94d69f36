// checkExport: one export file against the standard (https://www.bestchange.com/wiki/rates.html, https://docs.bestchange.biz/main/index.html), every finding tied to its item. Pure.
// Classic and EREF 1.1 XML (eref.ts's item rules) and jsons.info JSON (json.ts), told apart by their content.
// Two ways to read an XML file, same findings: the files ratefile renders (and most others) are scanned item by item
// by simple.ts, without a tree of the document; whatever that scanner does not take is read by the general path
// (xml.ts's well-formedness checks and tree.ts's fast-xml-parser tree). Neither reader holds a rule: a classic
// item's rules, its standard form and the quick test that clears it all come from one table (rules.ts).
// The scanner reads the file a slice of text at a time (slices.ts), so a big file is never one string; a file it
// does not take whole that way (JSON, outside its subset, not UTF-8) is decoded whole and read as before.
import { Buffer } from 'node:buffer';
import { CleanItems } from './clean.js';
import { bomWarning, decodeExport, hasBom, isUtf16 } from './decode.js';
import { DocumentChecks, itemDigest } from './document.js';
import { positions, type CheckOptions, type CheckResult, type Finding, type Report } from './findings.js';
import { scanSimple, type StandardTexts } from './simple.js';
import { parseDocument, type XmlElement } from './tree.js';
import { checkWellFormedText } from './xml.js';
import { checkErefItem, looksLikeEref } from './eref.js';
import { checkItem } from './item.js';
import { checkJsonExport, looksLikeJson } from './json.js';
import { itemRules, type ItemRules } from './rules.js';
import { TextSlices } from './slices.js';

/** How a file was read: by the subset scanner, by the general path, or not at all (its bytes are not UTF-8 text). */
export type CheckPath = 'fast' | 'general' | 'bytes';

/** Check the bytes of one export file; `target` names it in the result (a path or URL). */
export function checkExport(bytes: Uint8Array, target: string, options: CheckOptions = {}): CheckResult {
  return checkExportTraced(bytes, target, options).result;
}

/** `checkExport` always by the general path: the reference the fast path is tested against. */
export function checkExportGeneral(bytes: Uint8Array, target: string, options: CheckOptions = {}): CheckResult {
  return checkExportTraced(bytes, target, { ...options, general: true }).result;
}

export interface TracedCheck {
  result: CheckResult;
  path: CheckPath;
  /** Items the fast path's quick test found clean (clean.ts), so that they needed no element and no full rules. */
  cleared: number;
  /** Slices of text the fast path read the file in (slices.ts); 0 when it was decoded whole. */
  slices: number;
}

/** The rules of one item of a file's format. */
type ItemCheck = (item: XmlElement, report: Report, codes?: ReadonlySet<string>) => void;

/**
 * `checkExport`, saying which way the file was read; `general` forces the general path. `rules`: the classic
 * item's rule table, which both paths derive what they do from (another table only in tests, to show it).
 */
export function checkExportTraced(
  bytes: Uint8Array,
  target: string,
  options: CheckOptions & { general?: boolean; sliceBytes?: number } = {},
  rules: ItemRules = itemRules(),
): TracedCheck {
  const sliced = options.general ? undefined : checkSliced(bytes, target, options, rules);
  if (sliced) return sliced;
  const decoded = decodeExport(bytes);
  if (decoded.text === undefined)
    return { result: { target, findings: decoded.findings }, path: 'bytes', cleared: 0, slices: 0 };
  // The format is told by the content, never by the name: JSON starts with '{', EREF 1.1 items have its limits or steps.
  if (looksLikeJson(decoded.text))
    return {
      result: checkJsonExport(decoded.text, target, decoded.findings, options),
      path: 'general',
      cleared: 0,
      slices: 0,
    };
  // EREF 1.1 items are scanned too (labels hold true or are empty, both of which the scanner takes; a <step> or <floating>'s
  // attributes send the file the general way), each with the full EREF rules: the quick test knows classic items only.
  const { checkItems, classic } = itemChecks(looksLikeEref(decoded.text), rules);
  const text = decoded.text;
  const fast = options.general
    ? undefined
    : checkSimple(
        { text, more: () => undefined, at: positions(text) },
        target,
        decoded.findings,
        options,
        checkItems,
        classic,
      );
  if (fast) return { ...fast, path: 'fast', slices: 0 };
  return {
    result: checkGeneral(decoded.text, target, decoded.findings, options, checkItems),
    path: 'general',
    cleared: 0,
    slices: 0,
  };
}

/** EREF 1.1 items get the full EREF rules each (the quick test knows classic items only); classic ones the table's. */
function itemChecks(eref: boolean, rules: ItemRules): { checkItems: ItemCheck; classic: ItemRules | undefined } {
  return eref
    ? { checkItems: checkErefItem, classic: undefined }
    : { checkItems: (item, report, codes) => checkItem(item, report, codes, rules), classic: rules };
}

/**
 * The fast path over slices of the text: undefined when the file is JSON, not UTF-8, or not read whole by the scanner
 * that way (then it is decoded whole; the findings of the same scanner over the whole text are the same).
 */
function checkSliced(
  bytes: Uint8Array,
  target: string,
  options: CheckOptions & { sliceBytes?: number },
  rules: ItemRules,
): TracedCheck | undefined {
  if (isUtf16(bytes)) return undefined;
  const bom = hasBom(bytes);
  const body = bom ? bytes.subarray(3) : bytes;
  const slices = new TextSlices(body, options.sliceBytes);
  const text = slices.read();
  // The format is told by the first character that is not white space, and that of EREF 1.1 by the first item.
  if (text === undefined || !/\S/.test(text) || looksLikeJson(text)) return undefined;
  const eref = firstItemLooksEref(body);
  if (eref === undefined) return undefined;
  const { checkItems, classic } = itemChecks(eref, rules);
  const fast = checkSimple(
    { text, more: () => slices.read(), at: (index) => slices.position(index) },
    target,
    bom ? [bomWarning()] : [],
    options,
    checkItems,
    classic,
  );
  return fast && !slices.invalid ? { ...fast, path: 'fast', slices: slices.count } : undefined;
}

/** `looksLikeEref` on the text of the first item alone, found in the bytes; undefined when it has no end. */
function firstItemLooksEref(body: Uint8Array): boolean | undefined {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const start = bytes.indexOf('<item', 0, 'latin1');
  if (start === -1) return false;
  const end = bytes.indexOf('</item>', start, 'latin1');
  return end === -1 ? undefined : looksLikeEref(bytes.toString('utf8', start, end + 7));
}

/** The text the scanner reads (the first slice, then `more` until undefined), and where an index of it is. */
interface ScannedText {
  text: string;
  more: () => string | undefined;
  at: (index: number) => { line: number; column: number };
}

/** The fast path; undefined when the document is outside the scanner's subset (its partial findings are dropped). */
function checkSimple(
  { text, more, at }: ScannedText,
  target: string,
  findings: readonly Finding[],
  options: CheckOptions,
  checkItems: ItemCheck,
  classic: ItemRules | undefined,
): { result: CheckResult; cleared: number } | undefined {
  const checks = new DocumentChecks(at, findings, options, checkItems);
  let root: XmlElement | undefined;
  let cleared = 0;
  const scanned = scanSimple(
    text,
    {
      declaration: (declaration) => checks.declaration(declaration),
      // Any other root goes the general way, which reports it.
      root: (element) => (root = element).name === 'rates' && checks.root(element),
      // A classic item in the table's standard form that the quick test finds clean needs no element; anything else
      // gets the full rules.
      ...(classic ? { standardItem: standardItems(classic, checks, () => (cleared += 1)) } : {}),
      child: (child) => checks.child(child),
    },
    more,
  );
  return scanned && root ? { result: checks.finish(target, root), cleared } : undefined;
}

/** The scanner's handler of items in the standard form: the table's pattern, and the quick test made from the table. */
function standardItems(rules: ItemRules, checks: DocumentChecks, counted: () => void) {
  const clean = new CleanItems(rules);
  const names = rules.elements.map((rule) => rule.name);
  return {
    pattern: rules.pattern,
    take: (texts: StandardTexts, index: number) => {
      const direction = clean.test(texts);
      if (direction === undefined) return false;
      checks.cleanItem(index, direction, itemDigest(names, texts.slice(1)));
      counted();
      return true;
    },
  };
}

function checkGeneral(
  text: string,
  target: string,
  decodingFindings: readonly Finding[],
  options: CheckOptions,
  checkItems: ItemCheck,
): CheckResult {
  const wellFormed = checkWellFormedText(text, decodingFindings);
  if (wellFormed.text === undefined) return { target, findings: wellFormed.findings };

  let document;
  try {
    document = parseDocument(text);
  } catch (error) {
    return {
      target,
      findings: [
        ...wellFormed.findings,
        { severity: 'error', rule: 'xml', message: `cannot parse: ${(error as Error).message}` },
      ],
    };
  }
  const checks = new DocumentChecks(positions(text), wellFormed.findings, options, checkItems);
  checks.declaration(document.declaration);
  const { root } = document;
  if (!root)
    return { target, findings: [...checks.findings, { severity: 'error', rule: 'root', message: 'no root element' }] };
  if (!checks.root(root)) return { target, findings: checks.findings };
  for (const child of root.children) checks.child(child);
  return checks.finish(target, root);
}
