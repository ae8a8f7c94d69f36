// What the archive keeps its records in: the state folder's segment files (files.ts, the default) or a PostgreSQL
// table (postgres.ts). Both keep the same records in segments; a segment starts with a whole record (every
// stream a keyframe), so the oldest can be dropped whole and any record is rebuilt from within its segment.
import type { RecordHeader } from '../../pure/archive/record.js';

export interface StoredRecord {
  header: RecordHeader;
  segment: string;
  /** Where it starts in its segment, and its size in bytes (header line, blobs, newline). */
  offset: number;
  size: number;
  /** Where its blobs start, from `offset`. */
  headerBytes: number;
}

export interface SegmentInfo {
  name: string;
  bytes: number;
  /** The header of its first record; absent when it has none (an empty or unreadable segment). */
  first?: RecordHeader;
}

/** The end of a segment that is no whole record: a crash mid-append (torn), or an edit (bad). */
export interface SegmentEnd {
  offset: number;
  bytes: number;
  problem: string;
  torn: boolean;
}

export interface ArchiveStore {
  /** `files` or `postgres`, and where (for status and messages: the folder, or the table and the database's host). */
  readonly kind: 'files' | 'postgres';
  readonly where: string;
  /** Segments in order, oldest first. */
  segments(): Promise<SegmentInfo[]>;
  /** The records of a segment in order (the first `limit` of them); `end` when its last bytes are no whole record. */
  records(segment: string, limit?: number): Promise<{ records: StoredRecord[]; end?: SegmentEnd }>;
  /** The blobs of a record, as stored (their SHA-256 is the reader's to check). */
  blobs(record: StoredRecord): Promise<Buffer[]>;
  /**
   * Append one record under the store's lock: `make` is given the newest record as the lock holder sees it (another
   * process may have appended) and returns the record to write, or undefined to write nothing.
   */
  append(
    make: (head: StoredRecord | undefined) => Promise<{ header: RecordHeader; bytes: Buffer } | undefined>,
  ): Promise<StoredRecord | undefined>;
  /** A segment's torn end moved aside (files) and cut off; returns where its bytes were kept. */
  repair(segment: string, end: SegmentEnd): Promise<string>;
  /** Whole segments removed (the window, the budget). */
  drop(segments: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** A segment's name: the UTC day of its first record and its number that day, `2026-12-02-1`. */
export const segmentName = (published: Date, number: number): string =>
  `${published.toISOString().slice(0, 10)}-${number}`;

/** The day and number of a segment's name; undefined for a name that is none. */
export function segmentParts(name: string): { day: string; number: number } | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})-([1-9]\d{0,8})$/.exec(name);
  return match ? { day: match[1]!, number: Number(match[2]) } : undefined;
}

/** Segments sort by day, then number. */
export function compareSegments(a: string, b: string): number {
  const pa = segmentParts(a);
  const pb = segmentParts(b);
  if (!pa || !pb) return a < b ? -1 : a > b ? 1 : 0;
  return pa.day < pb.day ? -1 : pa.day > pb.day ? 1 : pa.number - pb.number;
}
