// One renderer per export format, each a pure function from the selected export model to the file's bytes; and the
// writer a build uses, which writes classic files straight from the selection with the same writer (classic.ts).
import type { Direction, ExportTemplate } from '../model.js';
import { renderClassic, writeClassic } from './classic.js';
import { renderEref } from './eref.js';
import { isPremiumFormat, type ExportFormat } from './formats.js';
import { renderJson } from './json.js';
import { premiumItems, renderPremium, selectPremium } from './premium.js';
import { exportSelector, exportWalker } from './select.js';
import type { ExportModel } from './items.js';
import type { PricedDirection, WithheldDirection } from '../priced.js';

const renderers: Record<ExportFormat, (model: ExportModel) => Buffer> = {
  classic: renderClassic,
  'eref-1.1': renderEref,
  json: renderJson,
  'premium-rates': renderPremium,
  'premium-reserves': renderPremium,
};

/** The bytes of an export in its template's format (classic when the model names none). */
export function renderModel(model: ExportModel): Buffer {
  return renderers[model.format ?? 'classic'](model);
}

/** One export as a build publishes it: its bytes, how many items they hold, and the directions left out of it alone. */
export interface WrittenExport {
  name: string;
  file: string;
  bytes: Buffer;
  items: number;
  /**
   * The items as a reader of the file counts them (`ratefile check`, the monitors), when not `items`: a JSON file writes
   * a direction's cash items, one per city, as one exchange with its cities.
   */
  counted?: number;
  withheld: WithheldDirection[];
}

/**
 * Writes one export at a time, each export's garbage gone before the next. Classic files skip item objects (an object
 * per item and city, made and dropped at every build); the other formats render `exportSelector`'s items. Both
 * walk the same selection, which shares the rate text between exports with the same markup. Premium's files keep a
 * line for every direction of the config a template selects (`directions`), published or not (premium.ts).
 */
export function exportWriter(
  priced: readonly PricedDirection[],
  templates: readonly ExportTemplate[],
  directions: readonly Direction[],
): (index: number) => WrittenExport {
  const walk = exportWalker(priced, templates);
  const select = exportSelector(priced, templates, walk);
  return (index) => {
    const { name, file, format } = templates[index]!;
    // A monitor's classic file goes through the items too: its profile adapts them (select.ts).
    if (format === 'classic' && templates[index]!.monitor === undefined)
      return { name, file, ...writeClassic(templates[index]!, (visit) => walk(index, visit), priced.length) };
    if (isPremiumFormat(format)) {
      const { model, withheld } = selectPremium({ ...templates[index]!, format }, directions, (visit) =>
        walk(index, visit),
      );
      return { name, file, bytes: renderModel(model), items: premiumItems(model), withheld };
    }
    const model = select(index);
    const counted =
      format === 'json' ? new Set(model.items.map((item) => `${item.from}\u0000${item.to}`)).size : undefined;
    return {
      name,
      file,
      bytes: renderModel(model),
      items: model.items.length,
      ...(counted === undefined || counted === model.items.length ? {} : { counted }),
      withheld: model.withheld,
    };
  };
}
