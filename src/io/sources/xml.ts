// XML from sources (CBR, ECB): decoded by its declared encoding, refused if it carries a DTD (no entities, no
// XXE, no entity expansion), checked for well-formedness, then parsed with values kept as text.
import { validatorProblem } from '../../pure/check/xml.js';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { sourceJsonBounds, type JsonBounds } from '../../pure/sources/json-bounds.js';
import { SourceError, fetchWithRetries, looksLikeHtml, snippet, type HttpTarget, type RequestSpec } from './http.js';
import type { SourceContext } from '../../model/source.js';

/** The encoding an XML document declares (`<?xml … encoding="windows-1251"?>`), else the HTTP charset, else UTF-8. */
export function xmlEncoding(bytes: Uint8Array, contentType: string): string {
  const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
  const declared = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1];
  return (declared ?? /charset=["']?([A-Za-z0-9._-]+)/i.exec(contentType)?.[1] ?? 'utf-8').toLowerCase();
}

/** Bytes to text in the document's own encoding (CBR sends windows-1251; `Response.text()` would assume UTF-8). */
export function decodeXml(bytes: Uint8Array, contentType: string): string {
  const encoding = xmlEncoding(bytes, contentType);
  const decoder = (() => {
    try {
      return new TextDecoder(encoding);
    } catch {
      throw new Error(`unsupported encoding ${JSON.stringify(encoding)}`);
    }
  })();
  return decoder.decode(bytes);
}

/**
 * Why an XML text is past the bounds a source's JSON has (`sourceJsonBounds`: 64 levels, 500,000 elements), found in
 * one linear pass before the validator and the parser, which spent 5 s and 120 MB on 1,400,000 nested elements
 * before giving up; undefined within them (or when the text is broken: the validator says where). Comments,
 * CDATA, processing instructions and quoted attribute values are skipped.
 */
export function xmlBoundsProblem(text: string, bounds: Readonly<JsonBounds> = sourceJsonBounds): string | undefined {
  let depth = 0;
  let elements = 0;
  const skipTo = (end: string, from: number) => {
    const at = text.indexOf(end, from);
    return at === -1 ? text.length : at + end.length;
  };
  for (let i = text.indexOf('<'); i !== -1 && i < text.length; i = text.indexOf('<', i)) {
    const next = text.charCodeAt(i + 1);
    if (text.startsWith('<!--', i)) i = skipTo('-->', i + 4);
    else if (text.startsWith('<![CDATA[', i)) i = skipTo(']]>', i + 9);
    else if (next === 0x3f /* ? */ || next === 0x21 /* ! */) i = skipTo('>', i + 2);
    else if (next === 0x2f /* / */) {
      depth--;
      i = skipTo('>', i + 2);
    } else {
      // An element: to the end of its tag, past quoted attribute values; `/>` closes it at once.
      let j = i + 1;
      for (let quote = 0; j < text.length; j++) {
        const c = text.charCodeAt(j);
        if (quote !== 0) {
          if (c === quote) quote = 0;
        } else if (c === 0x22 || c === 0x27) quote = c;
        else if (c === 0x3e /* > */) break;
      }
      if (++elements > bounds.maxValues)
        return `XML of more than ${bounds.maxValues.toLocaleString('en-US')} elements; expected at most ${bounds.maxValues.toLocaleString('en-US')}`;
      if (text.charCodeAt(j - 1) !== 0x2f && ++depth > bounds.maxDepth)
        return `XML nested more than ${bounds.maxDepth} levels deep (level ${depth} opens at character ${i + 1}); expected at most ${bounds.maxDepth}`;
      i = j + 1;
    }
  }
  return undefined;
}

/**
 * Parse XML text into plain objects: attributes as `@_name`, every value a string (so `051` stays `051` and
 * `81,5032` is not half-read as a number), elements `isList` names always lists. Entities are never expanded and a DTD is
 * refused outright: sources never need one, and it is how XXE and entity-expansion attacks arrive.
 */
export function parseXml(text: string, isList: (name: string) => boolean): unknown {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new Error('a DTD (<!DOCTYPE …>) is not accepted');
  const bounds = xmlBoundsProblem(text);
  if (bounds) throw new Error(`refused before parsing: ${bounds}`);
  const valid = XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (valid !== true) {
    const { message, line } = validatorProblem(valid.err, text);
    throw new Error(`not well-formed XML: ${message} (line ${line})`);
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    parseAttributeValue: false,
    processEntities: false,
    htmlEntities: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    trimValues: true,
    isArray: (name) => isList(name),
  });
  return parser.parse(text) as unknown;
}

/** GET an XML document and parse it; an HTML page (a DDoS-Guard challenge), bad bytes or bad XML fail the source. */
export function getXml(
  context: SourceContext,
  target: HttpTarget,
  spec: RequestSpec,
  isList: (name: string) => boolean,
): Promise<{ where: string; body: unknown }> {
  return fetchWithRetries(context, target, spec, (fetched) => {
    const fail = (problem: string, cause?: unknown) =>
      new SourceError(`${context.name}: ${fetched.where}: ${problem}`, cause === undefined ? {} : { cause });
    let text: string;
    try {
      text = decodeXml(fetched.bytes, fetched.contentType);
    } catch (cause) {
      throw fail((cause as Error).message, cause);
    }
    if (looksLikeHtml(fetched.contentType, text)) {
      const title = /<title[^>]*>([^<]{0,120})/i.exec(text)?.[1]?.trim().replace(/\s+/g, ' ');
      throw fail(
        `got an HTML page${title ? ` ("${title}")` : ''} instead of XML (HTTP ${fetched.status}, ${fetched.contentType || 'no content type'})`,
      );
    }
    if (text.trim() === '') throw fail(`got an empty body instead of XML (HTTP ${fetched.status})`);
    if (!text.trimStart().startsWith('<')) throw fail(`not XML: ${snippet(text)}`);
    try {
      return { where: fetched.where, body: parseXml(text, isList) };
    } catch (cause) {
      throw fail((cause as Error).message, cause);
    }
  });
}
