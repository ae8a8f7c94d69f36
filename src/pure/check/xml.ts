// Well-formedness of an export file's text (decode.ts made it from UTF-8) as XML 1.0, the general way:
// fast-xml-parser's validator for the tag structure, plus the rules it does not enforce (characters, entity and
// character references, one root, comments, DOCTYPE).
import { XMLValidator } from 'fast-xml-parser';
import { positions, type Finding } from './findings.js';

/** The most findings of one kind reported per file: after that the file is clearly broken throughout. */
const maxFindings = 20;

/** XML 1.0 `Char`: tab, newline, carriage return and everything from space up except surrogates, FFFE and FFFF. */
export function isXmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

const predefined = new Set(['lt', 'gt', 'amp', 'apos', 'quot']);

/** A document being scanned: its text, the place of an index in it, and the findings so far. */
interface Scan {
  text: string;
  at: (index: number) => { line: number; column: number };
  findings: Finding[];
}

/** An error at `index`, while fewer than maxFindings are reported. */
function fail(scan: Scan, index: number, message: string): void {
  if (scan.findings.length < maxFindings)
    scan.findings.push({ severity: 'error', rule: 'xml', message, ...scan.at(index) });
}

/** Checks of what the validator lets through, on a document whose tags it accepted. */
function scanDocument(text: string, at: (index: number) => { line: number; column: number }): Finding[] {
  const scan: Scan = { text, at, findings: [] };
  checkCharacters(scan);
  checkMarkup(scan);
  return scan.findings;
}

/** Every character an XML 1.0 `Char`. */
function checkCharacters(scan: Scan): void {
  const { text } = scan;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i)!;
    if (!isXmlChar(code))
      fail(scan, i, `character U+${code.toString(16).toUpperCase().padStart(4, '0')} is not allowed in XML 1.0`);
    i += code > 0xffff ? 2 : 1;
  }
}

/**
 * The markup and the text between it, in document order: comments, CDATA, no DOCTYPE, one root element, the
 * references in text and in attribute values.
 */
function checkMarkup(scan: Scan): void {
  const { text } = scan;
  let depth = 0;
  let rootDone = false;
  let textAfterRoot = false;
  for (let i = 0; i < text.length; ) {
    const c = text[i];
    if (c === '<') {
      if (text.startsWith('<!--', i)) {
        i = checkComment(scan, i);
      } else if (text.startsWith('<![CDATA[', i)) {
        if (depth === 0) fail(scan, i, 'CDATA section outside the root element');
        i = after(text, ']]>', i + 9);
      } else if (text.startsWith('<?', i)) {
        i = after(text, '?>', i + 2);
      } else if (text.startsWith('<!', i)) {
        fail(
          scan,
          i,
          text.startsWith('<!DOCTYPE', i)
            ? 'a DOCTYPE is not part of the export format (monitors refuse DTDs and their entities)'
            : "unexpected '<!' markup",
        );
        return;
      } else if (text[i + 1] === '/') {
        depth -= 1;
        if (depth === 0) rootDone = true;
        i = after(text, '>', i);
      } else {
        if (depth === 0 && rootDone) fail(scan, i, 'a second root element: an XML document has exactly one');
        const end = checkStartTag(scan, i);
        if (text[end - 1] === '/') {
          if (depth === 0) rootDone = true;
        } else {
          depth += 1;
        }
        i = end + 1;
      }
      continue;
    }
    if (c === '&') checkReference(scan, i);
    else if (c === ']' && text.startsWith(']]>', i)) fail(scan, i, "']]>' is not allowed in text (write ]]&gt;)");
    else if (depth === 0 && rootDone && !textAfterRoot && c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') {
      textAfterRoot = true;
      fail(scan, i, 'text after the root element');
    }
    i += 1;
  }
}

/** The index after the first `close` from `from`, or the end of the text when there is none. */
function after(text: string, close: string, from: number): number {
  const end = text.indexOf(close, from);
  return end === -1 ? text.length : end + close.length;
}

/** A comment at `start`: no '--' inside, not ending with '--->'; the index after it. */
function checkComment(scan: Scan, start: number): number {
  const { text } = scan;
  const end = text.indexOf('-->', start + 4);
  const body = text.slice(start + 4, end === -1 ? text.length : end);
  const dashes = body.indexOf('--');
  if (dashes !== -1) fail(scan, start + 4 + dashes, "'--' is not allowed inside a comment");
  else if (body.endsWith('-')) fail(scan, start + 4 + body.length - 1, "a comment cannot end with '--->'");
  return end === -1 ? text.length : end + 3;
}

/** A start tag at `start`: its attribute values hold no '<' and only defined references; the index of its '>'. */
function checkStartTag(scan: Scan, start: number): number {
  const { text } = scan;
  let j = start + 1;
  let quote: string | undefined;
  for (; j < text.length; j++) {
    const ch = text[j];
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else if (ch === '<') fail(scan, j, "'<' inside an attribute value (write &lt;)");
      else if (ch === '&') checkReference(scan, j);
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === '>') {
      break;
    }
  }
  return j;
}

/** A reference at `index` (its '&'): a character reference to an XML 1.0 character, or a predefined entity. */
function checkReference(scan: Scan, index: number): void {
  const { text } = scan;
  const end = text.indexOf(';', index);
  const body = end === -1 ? '' : text.slice(index + 1, end);
  if (body.startsWith('#')) {
    const hex = body[1] === 'x';
    const digits = body.slice(hex ? 2 : 1);
    const value = Number.parseInt(digits, hex ? 16 : 10);
    if (digits === '' || Number.isNaN(value) || !isXmlChar(value))
      fail(scan, index, `character reference &${body}; is not an XML 1.0 character`);
  } else if (!predefined.has(body)) {
    fail(
      scan,
      index,
      `undefined entity &${body}; (only &lt; &gt; &amp; &apos; &quot; exist without a DTD; write & as &amp;)`,
    );
  }
}

/**
 * fast-xml-parser's validator's error in people's words where its own are a data dump: elements left open at the end
 * (a file cut short) come as `Invalid '["rates","item","out"]' found.` at line 1, column 1; said here as where the
 * file ends, inside which element, and which are never closed. Other errors keep the validator's words and place.
 */
export function validatorProblem(
  error: { code: string; msg: string; line: number; col?: number },
  text: string,
): { message: string; line: number; column?: number } {
  const place = { line: error.line, ...(typeof error.col === 'number' ? { column: error.col } : {}) };
  const single = /^Unclosed tag '([^']*)'\.$/.exec(error.msg);
  if (single)
    return {
      message: `<${single[1]}> is never closed: the file ends before its end tag (cut short, or </${single[1]}> is missing)`,
      ...place,
    };
  const open = /^Invalid '(\[.*\])' found\.$/s.exec(error.msg);
  const names = open ? openNames(open[1]!) : undefined;
  if (!names || names.length === 0) return { message: error.msg, ...place };
  const lines = text.split('\n');
  const listed = `${names
    .slice(0, -1)
    .map((name) => `<${name}>`)
    .join(', ')} and <${names.at(-1)}>`;
  return {
    message: `the file ends inside <${names.at(-1)}>, with ${listed} never closed: it was cut short, or end tags are missing`,
    line: lines.length,
    column: lines.at(-1)!.length + 1,
  };
}

/** The element names of the validator's JSON list, or undefined when it is no list of names. */
function openNames(list: string): string[] | undefined {
  try {
    const names: unknown = JSON.parse(list);
    return Array.isArray(names) && names.every((name) => typeof name === 'string') ? names : undefined;
  } catch {
    return undefined;
  }
}

export interface WellFormedness {
  /** The document when it is well-formed. */
  text?: string;
  findings: Finding[];
}

/** Check decoded text as XML 1.0; `text` is set only when it is well-formed. `findings`: those of decoding, kept in front. */
export function checkWellFormedText(text: string, findings: readonly Finding[]): WellFormedness {
  if (text.trim() === '')
    return {
      findings: [...findings, { severity: 'error', rule: 'xml', message: 'the file is empty', line: 1, column: 1 }],
    };

  const verdict = XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (verdict !== true) {
    const { message, line, column } = validatorProblem(verdict.err, text);
    return {
      findings: [
        ...findings,
        {
          severity: 'error',
          rule: 'xml',
          message: `not well-formed XML: ${message}`,
          line,
          ...(column === undefined ? {} : { column }),
        },
      ],
    };
  }
  const problems = scanDocument(text, positions(text));
  if (problems.length > 0)
    return {
      findings: [...findings, ...problems.map((p) => ({ ...p, message: `not well-formed XML: ${p.message}` }))],
    };
  return { text, findings: [...findings] };
}
