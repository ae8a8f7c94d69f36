// select and render the exports of a build's published directions, and count what each direction came to: the end of
// build.ts's pipeline, and of a build whose late quotes are withdrawn at publish time (late-quotes.ts).
import type { Config, OutputFile } from '../../model/config.js';
import type { PricedDirection, WithheldDirection } from '../../model/priced.js';
import { exportWriter } from '../../pure/exports/renderers.js';
import { tallyDirections } from '../../pure/status/tally.js';
import type { BuildReport, ExportLeftOut } from '../../pure/status/report.js';

/** select and render: one export at a time, each export's text written and dropped before the next is selected. */
export function renderExports(
  config: Config,
  published: readonly PricedDirection[],
  onFile: ((file: OutputFile) => void) | undefined,
) {
  const write = exportWriter(published, config.exports, config.directions);
  const files: OutputFile[] = [];
  const exports: BuildReport['exports'] = [];
  // A direction whose limits fail only at one export's rate (its markup) is left out of that export alone.
  const leftOut: ExportLeftOut[] = [];
  for (let index = 0; index < config.exports.length; index++) {
    const written = write(index);
    const file = { file: written.file, bytes: written.bytes };
    files.push(file);
    onFile?.(file);
    exports.push({
      name: written.name,
      file: written.file,
      items: written.items,
      ...(written.counted === undefined ? {} : { counted: written.counted }),
    });
    if (written.withheld.length > 0) leftOut.push({ file: written.file, withheld: written.withheld });
  }
  return { files, exports, leftOut };
}

/** Every withheld direction (one entry per export one is left out of alone), and each direction counted once. */
export function tally(
  config: Config,
  published: readonly PricedDirection[],
  before: readonly WithheldDirection[],
  leftOut: readonly ExportLeftOut[],
) {
  const withheld = [...before, ...leftOut.flatMap((e) => e.withheld)].sort(byIndex);
  return { withheld, directions: tallyDirections(published, before, config.exports, leftOut) };
}

export const byIndex = (a: WithheldDirection, b: WithheldDirection) => a.direction.index - b.direction.index;
