// The document as a tree of elements with their positions, from fast-xml-parser (order preserved, entities decoded).
import { XMLParser } from 'fast-xml-parser';

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  /** Child elements in document order. */
  children: XmlElement[];
  /** The element's text: its text and CDATA children joined, entities decoded, untrimmed. */
  text: string;
  /** Index of its `<` in the document, and of the character after its end tag. */
  index: number;
  end: number;
}

export interface XmlDocument {
  /** Attributes of the XML declaration; undefined when there is none. */
  declaration?: Record<string, string>;
  root?: XmlElement;
}

type OrderedNode = Record<string, unknown>;

const metadata = XMLParser.getMetaDataSymbol() as unknown as string;

const options = {
  preserveOrder: true,
  captureMetaData: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  // Also decodes character references (&#67;); named HTML entities never get here, xml.ts refuses them.
  htmlEntities: true,
  ignoreDeclaration: false,
  ignorePiTags: false,
} as const;
const parser = new XMLParser(options);
// A file without '&' (most exports) has no reference to decode, so its parser skips entity processing altogether.
const plainParser = new XMLParser({ ...options, processEntities: false, htmlEntities: false });

const nameOf = (node: OrderedNode): string | undefined => Object.keys(node).find((key) => key !== ':@');

function attributesOf(node: OrderedNode): Record<string, string> {
  const raw = node[':@'];
  const attributes: Record<string, string> = {};
  if (raw && typeof raw === 'object') for (const [key, value] of Object.entries(raw)) attributes[key] = String(value);
  return attributes;
}

function toElement(node: OrderedNode, name: string): XmlElement {
  const content = Array.isArray(node[name]) ? (node[name] as OrderedNode[]) : [];
  const children: XmlElement[] = [];
  let text = '';
  for (const child of content) {
    const childName = nameOf(child);
    if (childName === '#text') text += String(child['#text']);
    else if (childName !== undefined && !childName.startsWith('?') && childName !== '#comment')
      children.push(toElement(child, childName));
  }
  const meta = node[metadata] as { startIndex?: number; endIndex?: number } | undefined;
  const index = meta?.startIndex ?? 0;
  return { name, attributes: attributesOf(node), children, text, index, end: meta?.endIndex ?? index };
}

/** Parse a document the well-formedness check accepted. */
export function parseDocument(text: string): XmlDocument {
  const nodes = (text.includes('&') ? parser : plainParser).parse(text) as OrderedNode[];
  const document: XmlDocument = {};
  for (const node of nodes) {
    const name = nameOf(node);
    if (name === '?xml') document.declaration = attributesOf(node);
    else if (name !== undefined && name !== '#text' && name !== '#comment' && !name.startsWith('?'))
      document.root ??= toElement(node, name);
  }
  return document;
}

/** An element's first child named `name`, if any. */
export function childNamed(element: XmlElement, name: string): XmlElement | undefined {
  for (const child of element.children) if (child.name === name) return child;
  return undefined;
}
