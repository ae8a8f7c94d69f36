// What people read of the archive: `ratefile status`'s lines (its window, size, newest and last verified record),
// a direction's published rate over the window (`status --rate`), and the alert problems. Pure.
import type { ArchiveStatus } from '../../model/archive.js';
import { age, ago } from '../../base/words.js';

/** Bytes as people read them: 1.2 GiB, 340 MiB, 12 KiB. */
export function bytesText(bytes: number): string {
  const units: [number, string][] = [
    [2 ** 40, 'TiB'],
    [2 ** 30, 'GiB'],
    [2 ** 20, 'MiB'],
    [2 ** 10, 'KiB'],
  ];
  for (const [size, unit] of units)
    if (bytes >= size) return `${(bytes / size).toFixed(bytes >= size * 10 ? 0 : 1)} ${unit}`;
  return `${bytes} bytes`;
}

/** Records over less than this say little of how fast the archive grows (its first records are whole ones). */
const GROWTH_MIN_SPAN_MS = 3_600_000;

/**
 * How long the budget keeps records at the rate the archive has grown since its oldest one, and what the window would
 * take at that rate; undefined before an hour of records. At a 1 s schedule 10,000 directions take about 6 GB a day
 * (bench/README.md), so the default 4 GiB keeps hours, not 30 days: the operator must learn it from the status.
 */
export function budgetReach(archive: ArchiveStatus, now: Date): { keepsMs: number; windowBytes: number } | undefined {
  if (!archive.oldest || archive.bytes <= 0) return undefined;
  const span = now.getTime() - Date.parse(archive.oldest);
  if (!(span >= GROWTH_MIN_SPAN_MS)) return undefined;
  const perMs = archive.bytes / span;
  return { keepsMs: archive.budgetBytes / perMs, windowBytes: perMs * archive.windowMs };
}

/** The archive's lines of `ratefile status`. */
export function archiveLines(archive: ArchiveStatus | undefined, now: Date): string {
  if (!archive) return '';
  const kept = archive.oldest ? `kept since ${archive.oldest} (${ago(archive.oldest, now)})` : 'no records yet';
  const lines = [
    `archive (${archive.store}): ${bytesText(archive.bytes)} of ${bytesText(archive.budgetBytes)}; ${kept}; window ${age(archive.windowMs / 1000)}`,
  ];
  const reach = budgetReach(archive, now);
  if (reach && reach.keepsMs < archive.windowMs)
    lines.push(
      `  at the rate it grows the budget keeps about ${age(reach.keepsMs / 1000)} of records, less than the window (${age(archive.windowMs / 1000)}): raise archive.budget to about ${bytesText(reach.windowBytes)} or shorten archive.window`,
    );
  if (archive.last)
    lines.push(
      `  newest record ${archive.last.seq}, build ${archive.last.build}, in place ${ago(archive.last.published, now)}`,
    );
  const verified = archive.verified;
  if (verified?.ok === false)
    lines.push(`  VERIFY FAILED (${ago(verified.at, now)}): ${verified.problem ?? 'a record does not verify'}`);
  else if (verified && verified.seq >= 0)
    lines.push(`  last verified record ${verified.seq} (checked ${ago(verified.at, now)})`);
  else lines.push('  not verified yet (ratefile archive verify)');
  lines.push(archive.signed ? `  signed by ${archive.publicKey}` : '  not signed (no archive.key)');
  if (archive.problem)
    lines.push(`  FAILING: cannot append records (${archive.pending ?? 0} waiting): ${archive.problem}`);
  return `${lines.join('\n')}\n`;
}

/** The archive's alert problems: records not appended, a record that does not verify. */
export function archiveProblems(archive: ArchiveStatus | undefined): { key: string; text: string }[] {
  const problems: { key: string; text: string }[] = [];
  if (archive?.problem)
    problems.push({
      key: 'archive',
      text: `archive: records cannot be appended (${archive.pending ?? 0} waiting; the exports are published): ${archive.problem}`,
    });
  if (archive?.verified?.ok === false)
    problems.push({
      key: 'archive:verify',
      text: `archive: a record does not verify: ${archive.verified.problem ?? ''}`,
    });
  return problems;
}

/** A direction's published rate over the window, one line per point where it changed. */
export function seriesLines(
  name: string,
  points: readonly { at: number; rate: string | null; market: string | null }[],
): string {
  if (points.length === 0) return `${name}: no records in the window\n`;
  const lines = [`${name}, published rate (in:out) over the archive's window, at its whole records:`];
  let last: string | null | undefined;
  for (const point of points) {
    if (point.rate === last) continue;
    last = point.rate;
    lines.push(
      `  ${new Date(point.at).toISOString()}  ${point.rate ?? 'not published'}${point.market ? `  (market ${point.market})` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
