// One renderer per export format, each a pure function from the selected export model to the file's bytes.
import { renderEref } from './eref.js';
import type { ExportFormat } from './formats.js';
import { renderJson } from './json.js';
import { renderExport } from './render.js';
import type { ExportModel } from './select.js';

const renderers: Record<ExportFormat, (model: ExportModel) => Buffer> = { classic: renderExport, 'eref-1.1': renderEref, json: renderJson };

/** The bytes of an export in its template's format (classic when the model names none). */
export function renderModel(model: ExportModel): Buffer {
  return renderers[model.format ?? 'classic'](model);
}
