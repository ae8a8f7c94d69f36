// The oracle the classic writer (src/pure/exports/classic.ts) is tested against: the same items written with
// xmlbuilder2's DOM, a library that shares no code with the writer. xmlbuilder2 is a devDependency for this alone.
import { create } from 'xmlbuilder2';
import { itemElements, type ExportModel } from '../../src/model/items.js';

/**
 * An export model as xmlbuilder2 writes it. `&` is escaped before xmlbuilder2 sees the text: it leaves an `&` that
 * starts something entity-like (`&amp;`, `&copy;`) as it is, which would change the text or, for an entity XML does
 * not define, make the document ill-formed. Throws `<file>: cannot render: …` for a character XML 1.0 forbids.
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
    throw new Error(`${model.file}: cannot render: ${(cause as Error).message}`, { cause });
  }
}
