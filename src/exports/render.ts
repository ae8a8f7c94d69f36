// renderExport: one export model to XML 1.0 text. Pure: same model, same bytes.
// xmlbuilder2 is the reference (renderWithXmlbuilder2); renderExport writes the same bytes about
// ten times faster, which tests prove on fixtures and on randomized items.
import { create } from 'xmlbuilder2';
import { RatefileError } from '../errors.js';
import { itemElements, type ExportItem, type ExportModel } from './select.js';

const declaration = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** Characters outside the XML 1.0 `Char` production: C0 controls but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF. */
const forbidden = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const markup = /[&<>]/;

function refuse(model: ExportModel, index: number, name: string): never {
  throw new RatefileError('E_RENDER', `${model.file}: cannot render: item ${index + 1} <${name}> has a character XML 1.0 forbids`);
}

function escapeText(text: string): string {
  return markup.test(text) ? text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : text;
}

export function renderExport(model: ExportModel): string {
  if (model.items.length === 0) return `${declaration}<rates></rates>\n`;
  const parts: string[] = [declaration, '<rates>'];
  model.items.forEach((item: ExportItem, index) => {
    let text = '\n  <item>';
    for (const name of itemElements) {
      const value = item[name];
      if (value === undefined) continue;
      if (forbidden.test(value)) refuse(model, index, name);
      text += `\n    <${name}>${escapeText(value)}</${name}>`;
    }
    parts.push(`${text}\n  </item>`);
  });
  parts.push('\n</rates>\n');
  return parts.join('');
}

/**
 * The reference rendering with xmlbuilder2's DOM. `&` is escaped before xmlbuilder2 sees the text: it
 * leaves an `&` that starts something entity-like (`&amp;`, `&copy;`) as it is, which would change
 * the text or, for an entity XML does not define, make the document ill-formed.
 */
export function renderWithXmlbuilder2(model: ExportModel): string {
  const rates = create({ version: '1.0', encoding: 'UTF-8' }).ele('rates');
  for (const item of model.items) {
    const element = rates.ele('item');
    for (const name of itemElements) {
      const value = item[name];
      if (value !== undefined) element.ele(name).txt(value.replace(/&/g, '&amp;'));
    }
  }
  try {
    // wellFormed rejects characters XML 1.0 forbids instead of writing them; allowEmptyTags keeps
    // an empty export as <rates></rates>, which naive monitor parsers handle better than <rates/>.
    return `${rates.end({ prettyPrint: true, indent: '  ', newline: '\n', wellFormed: true, allowEmptyTags: true })}\n`;
  } catch (cause) {
    throw new RatefileError('E_RENDER', `${model.file}: cannot render: ${(cause as Error).message}`, { cause });
  }
}
