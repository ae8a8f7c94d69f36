// renderExport: one export model to XML 1.0 text with xmlbuilder2. Pure: same model, same bytes.
import { create } from 'xmlbuilder2';
import { RatefileError } from '../errors.js';
import { itemElements, type ExportModel } from './select.js';

export function renderExport(model: ExportModel): string {
  const rates = create({ version: '1.0', encoding: 'UTF-8' }).ele('rates');
  for (const item of model.items) {
    const element = rates.ele('item');
    for (const name of itemElements) {
      const value = item[name];
      if (value !== undefined) element.ele(name).txt(value);
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
