// build: the pipeline loadConfig → fetchQuotes → priceDirections → selectExports → render, returning files before anything is written.
import type { Config } from './model.js';
import { priceDirections, type PricedDirection, type WithheldDirection } from './pricing.js';
import { fetchQuotes, type SourceReport } from './quotes.js';
import { selectExports } from './exports/select.js';
import { renderExport } from './exports/render.js';
import type { OutputFile } from './publish.js';

export interface BuildDeps {
  /** The clock, read once per build. */
  now: () => Date;
  fetch?: typeof globalThis.fetch;
  signal?: AbortSignal;
}

export interface BuildReport {
  startedAt: Date;
  sources: SourceReport[];
  priced: PricedDirection[];
  withheld: WithheldDirection[];
  exports: { name: string; file: string; items: number }[];
}

export interface BuildResult {
  files: OutputFile[];
  report: BuildReport;
}

export async function build(config: Config, deps: BuildDeps): Promise<BuildResult> {
  const startedAt = deps.now();
  const { book, reports } = await fetchQuotes(config.sources, {
    configDir: config.dir,
    fetch: deps.fetch ?? globalThis.fetch,
    now: () => startedAt,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const { priced, withheld } = priceDirections(config.directions, book);
  const failing = reports.filter((report) => !report.ok).map((report) => report.name);
  const explained = failing.length === 0 ? withheld : withheld.map((w) => ({ ...w, reason: `${w.reason} (failing sources: ${failing.join(', ')})` }));
  const models = selectExports(priced, config.exports);
  const files = models.map((model) => ({ file: model.file, bytes: Buffer.from(renderExport(model), 'utf8') }));
  return {
    files,
    report: {
      startedAt,
      sources: reports,
      priced,
      withheld: explained,
      exports: models.map((model) => ({ name: model.name, file: model.file, items: model.items.length })),
    },
  };
}
