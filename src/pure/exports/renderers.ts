// One entry per export format: the pure function from the selected export model to the file's bytes, and how a build
// writes that format's export from the selection (classic files straight from it, with the same writer: classic.ts).
import type { Direction, ExportTemplate } from '../../model/config.js';
import { renderClassic, writeClassic } from './classic.js';
import { renderEref } from './eref.js';
import type { ExportFormat, PremiumFormat } from '../../model/formats.js';
import { renderJson } from './json.js';
import { premiumItems, renderPremium, selectPremium } from './premium.js';
import { exportSelector, exportWalker, type ExportSelection, type PublishedVisit } from './select.js';
import type { ExportModel } from '../../model/items.js';
import type { PricedDirection, WithheldDirection } from '../../model/priced.js';

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

/** What a format's writer is given: one template, and the build's selection as that template sees it. */
interface ExportJob<Format extends ExportFormat> {
  template: ExportTemplate & { format: Format };
  /** Walks the directions the template takes, at its markup (select.ts). */
  walk: (visit: PublishedVisit) => WithheldDirection[];
  /** The template's items (select.ts), for the formats that render items. */
  select: () => ExportSelection;
  /** The config's directions: Premium keeps a line for each the template selects, published or not. */
  directions: readonly Direction[];
  /** How many directions are priced. */
  priced: number;
}

/** An export's bytes and counts, as `WrittenExport` carries them after its name and file. */
type Written = Omit<WrittenExport, 'name' | 'file'>;

interface Renderer<Format extends ExportFormat> {
  /** The file's bytes from its export model. */
  render: (model: ExportModel) => Buffer;
  /** The export as a build writes it. */
  write: (job: ExportJob<Format>) => Written;
}

/** The formats that render `exportSelector`'s items. */
function writeItems(job: ExportJob<ExportFormat>): Written {
  const model = job.select();
  return { bytes: renderModel(model), items: model.items.length, withheld: model.withheld };
}

/**
 * Classic files skip item objects (an object per item and city, made and dropped at every build). A monitor's classic
 * file goes through the items: its profile adapts them (select.ts).
 */
function writeClassicExport(job: ExportJob<'classic'>): Written {
  if (job.template.monitor !== undefined) return writeItems(job);
  return writeClassic(job.template, job.walk, job.priced);
}

/** A JSON file writes a direction's cash items, one per city, as one exchange: a reader counts exchanges. */
function writeJsonExport(job: ExportJob<'json'>): Written {
  const model = job.select();
  const counted = new Set(model.items.map((item) => `${item.from}\u0000${item.to}`)).size;
  return {
    bytes: renderModel(model),
    items: model.items.length,
    ...(counted === model.items.length ? {} : { counted }),
    withheld: model.withheld,
  };
}

/** Premium's files keep a line for every direction of the config a template selects, published or not (premium.ts). */
function writePremiumExport(job: ExportJob<PremiumFormat>): Written {
  const { model, withheld } = selectPremium(job.template, job.directions, job.walk);
  return { bytes: renderModel(model), items: premiumItems(model), withheld };
}

const renderers: { [Format in ExportFormat]: Renderer<Format> } = {
  classic: { render: renderClassic, write: writeClassicExport },
  'eref-1.1': { render: renderEref, write: writeItems },
  json: { render: renderJson, write: writeJsonExport },
  'premium-rates': { render: renderPremium, write: writePremiumExport },
  'premium-reserves': { render: renderPremium, write: writePremiumExport },
};

/** The bytes of an export in its template's format (classic when the model names none). */
export function renderModel(model: ExportModel): Buffer {
  return renderers[model.format ?? 'classic'].render(model);
}

/** A template's export written by its format's entry (the generic keeps the entry and its template's format one). */
function writeExport<Format extends ExportFormat>(job: ExportJob<Format>): Written {
  return renderers[job.template.format].write(job);
}

/**
 * Writes one export at a time, each export's garbage gone before the next, each by its format's entry. All walk the
 * same selection, which shares the rate text between exports with the same markup.
 */
export function exportWriter(
  priced: readonly PricedDirection[],
  templates: readonly ExportTemplate[],
  directions: readonly Direction[],
): (index: number) => WrittenExport {
  const walk = exportWalker(priced, templates);
  const select = exportSelector(priced, templates, walk);
  return (index) => {
    const template = templates[index]!;
    const written = writeExport({
      template,
      walk: (visit) => walk(index, visit),
      select: () => select(index),
      directions,
      priced: priced.length,
    });
    return { name: template.name, file: template.file, ...written };
  };
}
