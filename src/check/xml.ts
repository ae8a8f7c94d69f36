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

/** Checks of what the validator lets through, on a document whose tags it accepted. */
function scanDocument(text: string, at: (index: number) => { line: number; column: number }): Finding[] {
  const findings: Finding[] = [];
  const fail = (index: number, message: string) => {
    if (findings.length < maxFindings) findings.push({ severity: 'error', rule: 'xml', message, ...at(index) });
  };

  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i)!;
    if (!isXmlChar(code))
      fail(i, `character U+${code.toString(16).toUpperCase().padStart(4, '0')} is not allowed in XML 1.0`);
    i += code > 0xffff ? 2 : 1;
  }

  const reference = (index: number) => {
    const end = text.indexOf(';', index);
    const body = end === -1 ? '' : text.slice(index + 1, end);
    if (body.startsWith('#')) {
      const hex = body[1] === 'x';
      const digits = body.slice(hex ? 2 : 1);
      const value = Number.parseInt(digits, hex ? 16 : 10);
      if (digits === '' || Number.isNaN(value) || !isXmlChar(value))
        fail(index, `character reference &${body}; is not an XML 1.0 character`);
    } else if (!predefined.has(body)) {
      fail(
        index,
        `undefined entity &${body}; (only &lt; &gt; &amp; &apos; &quot; exist without a DTD; write & as &amp;)`,
      );
    }
  };

  let depth = 0;
  let rootDone = false;
  let textAfterRoot = false;
  for (let i = 0; i < text.length; ) {
    const c = text[i];
    if (c === '<') {
      if (text.startsWith('<!--', i)) {
        const end = text.indexOf('-->', i + 4);
        const body = text.slice(i + 4, end === -1 ? text.length : end);
        const dashes = body.indexOf('--');
        if (dashes !== -1) fail(i + 4 + dashes, "'--' is not allowed inside a comment");
        else if (body.endsWith('-')) fail(i + 4 + body.length - 1, "a comment cannot end with '--->'");
        i = end === -1 ? text.length : end + 3;
      } else if (text.startsWith('<![CDATA[', i)) {
        if (depth === 0) fail(i, 'CDATA section outside the root element');
        const end = text.indexOf(']]>', i + 9);
        i = end === -1 ? text.length : end + 3;
      } else if (text.startsWith('<?', i)) {
        const end = text.indexOf('?>', i + 2);
        i = end === -1 ? text.length : end + 2;
      } else if (text.startsWith('<!', i)) {
        fail(
          i,
          text.startsWith('<!DOCTYPE', i)
            ? 'a DOCTYPE is not part of the export format (monitors refuse DTDs and their entities)'
            : "unexpected '<!' markup",
        );
        return findings;
      } else if (text[i + 1] === '/') {
        const end = text.indexOf('>', i);
        depth -= 1;
        if (depth === 0) rootDone = true;
        i = end === -1 ? text.length : end + 1;
      } else {
        if (depth === 0 && rootDone) fail(i, 'a second root element: an XML document has exactly one');
        let j = i + 1;
        let quote: string | undefined;
        for (; j < text.length; j++) {
          const ch = text[j];
          if (quote !== undefined) {
            if (ch === quote) quote = undefined;
            else if (ch === '<') fail(j, "'<' inside an attribute value (write &lt;)");
            else if (ch === '&') reference(j);
          } else if (ch === '"' || ch === "'") {
            quote = ch;
          } else if (ch === '>') {
            break;
          }
        }
        if (text[j - 1] === '/') {
          if (depth === 0) rootDone = true;
        } else {
          depth += 1;
        }
        i = j + 1;
      }
      continue;
    }
    if (c === '&') reference(i);
    else if (c === ']' && text.startsWith(']]>', i)) fail(i, "']]>' is not allowed in text (write ]]&gt;)");
    else if (depth === 0 && rootDone && !textAfterRoot && c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') {
      textAfterRoot = true;
      fail(i, 'text after the root element');
    }
    i += 1;
  }
  return findings;
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
    const { msg, line, col } = verdict.err;
    return {
      findings: [
        ...findings,
        {
          severity: 'error',
          rule: 'xml',
          message: `not well-formed XML: ${msg}`,
          line,
          ...(typeof col === 'number' ? { column: col } : {}),
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
