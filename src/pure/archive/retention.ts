// Which of the archive's segments go, before a record is added: the oldest whole segments first, while the next
// one still starts at or before the window's start (every moment of the window stays rebuildable), and while the
// records would take more than the budget. The newest segment is never dropped. Pure.

export interface SegmentSize {
  name: string;
  bytes: number;
  /** When its first record's files were in place (ms), its seq and the hash before it; absent without records. */
  firstPublished?: number;
  firstSeq?: number;
  firstPrev?: string;
}

export interface Retention {
  drop: string[];
  /** What made the last of them go, and the first record kept: the record that drops them says so, signed. */
  why?: 'window' | 'budget';
  kept?: { seq: number; prev: string };
}

/** The largest segment: small enough that dropping one gives back a sixteenth of the budget. */
export const segmentLimit = (budgetBytes: number): number =>
  Math.min(256 * 2 ** 20, Math.max(2 ** 20, Math.floor(budgetBytes / 16)));

export function segmentsToDrop(
  segments: readonly SegmentSize[],
  adding: number,
  now: number,
  windowMs: number,
  budgetBytes: number,
): Retention {
  let total = adding + segments.reduce((sum, segment) => sum + segment.bytes, 0);
  const drop: string[] = [];
  let why: Retention['why'];
  for (let i = 0; i + 1 < segments.length; i++) {
    const next = segments[i + 1]!;
    const pastWindow = next.firstPublished !== undefined && next.firstPublished <= now - windowMs;
    const overBudget = total > budgetBytes;
    if (!pastWindow && !overBudget) break;
    drop.push(segments[i]!.name);
    total -= segments[i]!.bytes;
    why = overBudget ? 'budget' : 'window';
  }
  const kept = segments[drop.length];
  if (!why || kept?.firstSeq === undefined || kept.firstPrev === undefined) return { drop };
  return { drop, why, kept: { seq: kept.firstSeq, prev: kept.firstPrev } };
}
