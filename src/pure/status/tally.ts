// What a build did with each direction, counted once per direction: published by at least one export, withheld
// from all of them, or left out of some exports only. Status, health, metrics and the dashboard count from this,
// never from the list of reasons (which has one entry per export a direction is left out of). Pure.
import { isFault } from './health.js';
import type { Direction, ExportTemplate } from '../../model/config.js';
import { selects } from '../exports/select.js';
import type { DirectionTally, ExportLeftOut, ExportOmission } from './report.js';
import type { PricedDirection, WithheldDirection, WithheldKind } from '../../model/priced.js';

/** The omissions of one direction as one reason: files with the same reason share a clause. */
function omissionReason(entries: readonly { file: string; reason: string }[]): string {
  const byReason = new Map<string, string[]>();
  for (const { file, reason } of entries) {
    // Each export's reason names its file first; the clause names the files instead.
    const plain = reason.startsWith(`${file}: `) ? reason.slice(file.length + 2) : reason;
    (byReason.get(plain) ?? byReason.set(plain, []).get(plain)!).push(file);
  }
  return [...byReason].map(([reason, files]) => `left out of ${files.join(', ')}: ${reason}`).join('; ');
}

const kindOf = (kinds: readonly WithheldKind[]): WithheldKind => kinds.find(isFault) ?? kinds[0]!;

/**
 * `before`: directions withheld before any export (one entry each). `exports`: each export's omissions in export order.
 * Only directions some export left out are looked at twice, so a build without omissions pays one pass.
 */
export function tallyDirections(
  priced: readonly PricedDirection[],
  before: readonly WithheldDirection[],
  templates: readonly ExportTemplate[],
  exports: readonly ExportLeftOut[],
): DirectionTally {
  const omissions = new Map<Direction, { file: string; kind: WithheldKind; reason: string }[]>();
  for (const { file, withheld } of exports) {
    for (const w of withheld)
      (omissions.get(w.direction) ?? omissions.set(w.direction, []).get(w.direction)!).push({
        file,
        kind: w.kind,
        reason: w.reason,
      });
  }
  if (omissions.size === 0) return { published: [...priced], withheld: [...before], leftOut: [] };
  const published: PricedDirection[] = [];
  const withheld: WithheldDirection[] = [...before];
  const leftOut: ExportOmission[] = [];
  for (const p of priced) {
    const entries = omissions.get(p.direction);
    if (entries === undefined) {
      published.push(p);
      continue;
    }
    const selecting = templates.filter((template) => selects(template, p.direction.tags)).length;
    const kind = kindOf(entries.map((e) => e.kind));
    const reason = omissionReason(entries);
    if (entries.length >= selecting) withheld.push({ direction: p.direction, kind, reason });
    else {
      published.push(p);
      leftOut.push({ direction: p.direction, kind, files: entries.map((e) => e.file), reason });
    }
  }
  // Config order, as the build's reasons are (a from/to list's directions share an index; the sort is stable).
  if (withheld.length > before.length) withheld.sort((a, b) => a.direction.index - b.direction.index);
  return { published, withheld, leftOut };
}
