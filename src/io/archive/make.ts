// Making one record from a build and the streams as last recorded: each export (and the state lines) as a keyframe,
// a diff or unchanged, the blobs compressed, the segments the budget and window drop named, the header hashed and
// signed. Writes nothing: recorder.ts appends what this makes.
import { isUtf8 } from 'node:buffer';
import { applyDiff, diffSegments, type DiffOp } from '../../pure/archive/diff.js';
import { segmentsOf } from '../../pure/archive/segments.js';
import { sha256Hex, type RecordHeader, type StreamEntry, type UnhashedHeader } from '../../pure/archive/record.js';
import { segmentLimit, segmentsToDrop, type SegmentSize } from '../../pure/archive/retention.js';
import type { OutputFile } from '../../model/config.js';
import { frameRecord, packBlob } from './frame.js';
import type { SigningKey } from './key.js';
import { STATE_STREAM } from './rebuild.js';
import { segmentName, segmentParts } from './store.js';

/** A whole record (every stream a keyframe) at least every this many records, and this often. */
export const KEY_EVERY = 200;
export const KEY_MAX_AGE_MS = 15 * 60_000;
/** A segment holds at most this many records: reading one back scans at most this many headers. */
export const SEGMENT_RECORDS = 5000;

/** What a build gives the archive: its files as served now, the exports it removed, its state lines. */
export interface ArchiveBuild {
  at: Date;
  published: Date;
  id: string;
  config?: string;
  instance?: string;
  ms?: number;
  counts?: { published: number; withheld: number };
  files: readonly OutputFile[];
  removed: readonly string[];
  /** The state lines (src/pure/archive/state.ts); absent: as last recorded. */
  state?: string;
}

/** A stream as last recorded: its digest and what the next record diffs against. */
export interface Base {
  sha256: string;
  bytes: number;
  /** Its segments, when its bytes are UTF-8 text; else `raw`. */
  segments?: string[];
  raw?: Buffer;
}

/** The newest record made, and where the next one goes. */
export interface Tip {
  seq: number;
  hash: string;
  segment: string;
  published: number;
  /** The size of its segment with it, and its records. */
  segmentBytes: number;
  segmentRecords: number;
  /** Records since the last whole one, and when that was (ms). */
  sinceKey: number;
  keyAt: number;
}

export interface Made {
  header: RecordHeader;
  bytes: Buffer;
  bases: Map<string, Base>;
  tip: Tip;
  drop: string[];
}

export interface MakeInput {
  tip: Tip | undefined;
  bases: ReadonlyMap<string, Base>;
  build: ArchiveBuild;
  /** Every stream a keyframe (after a gap, or another writer's records). */
  whole: boolean;
  notes: NonNullable<RecordHeader['notes']>;
  segments: readonly SegmentSize[];
  windowMs: number;
  budgetBytes: number;
  key: SigningKey | undefined;
}

/** Valid UTF-8 decodes and encodes back to the same bytes: such a stream is diffed as text, any other kept whole. */
export const baseOf = (bytes: Buffer, sha256 = sha256Hex(bytes)): Base =>
  isUtf8(bytes)
    ? { sha256, bytes: bytes.length, segments: segmentsOf(bytes.toString('utf8')) }
    : { sha256, bytes: bytes.length, raw: bytes };

export const bytesOf = (base: Base): Buffer => base.raw ?? Buffer.from(base.segments!.join(''), 'utf8');

/** Whether the build changes anything the archive keeps: an export's bytes, or an export removed. */
export function changes(bases: ReadonlyMap<string, Base>, build: ArchiveBuild): boolean {
  return (
    build.removed.some((file) => bases.has(file)) ||
    build.files.some((file) => bases.get(file.file)?.sha256 !== sha256Hex(file.bytes))
  );
}

export async function makeRecord(input: MakeInput): Promise<Made> {
  const { tip, build } = input;
  const published = build.published.getTime();
  const place = placeOf(tip, build.published, segmentLimit(input.budgetBytes));
  const whole =
    place.fresh || input.whole || !tip || tip.sinceKey + 1 >= KEY_EVERY || published - tip.keyAt >= KEY_MAX_AGE_MS;
  const next = new Map(input.bases);
  const entries: Record<string, StreamEntry> = {};
  const blobs: Promise<Buffer>[] = [];
  const add = (stream: string, base: Base, previous: Base | undefined) => {
    const entry = entryOf(base, previous, whole, blobs);
    if (stream !== STATE_STREAM) entries[stream] = entry;
    return entry;
  };
  for (const file of build.removed) if (next.delete(file)) entries[file] = { how: 'gone' };
  for (const file of build.files) next.set(file.file, sameOrNew(input.bases.get(file.file), file.bytes));
  if (build.state !== undefined)
    next.set(STATE_STREAM, sameOrNew(input.bases.get(STATE_STREAM), Buffer.from(build.state)));
  let state: StreamEntry | undefined;
  for (const [stream, base] of next) {
    const entry = add(stream, base, input.bases.get(stream));
    if (stream === STATE_STREAM) state = entry;
  }
  const packed = await Promise.all(blobs);
  const size = packed.reduce((sum, blob) => sum + blob.length, 4096);
  const retention = segmentsToDrop(input.segments, size, published, input.windowMs, input.budgetBytes);
  const notes = { ...input.notes };
  if (retention.why && retention.kept)
    notes.dropped = { through: retention.kept.seq - 1, hash: retention.kept.prev, why: retention.why };
  const unhashed: Omit<UnhashedHeader, 'blobs' | 'key'> = {
    v: 1,
    seq: tip ? tip.seq + 1 : 0,
    prev: tip ? tip.hash : '0'.repeat(64),
    segment: place.segment,
    at: build.at.toISOString(),
    published: build.published.toISOString(),
    build: buildFields(build),
    exports: entries,
    ...(state ? { state } : {}),
    ...(Object.keys(notes).length > 0 ? { notes } : {}),
  };
  const { header, bytes } = frameRecord(unhashed, packed, input.key);
  const segmentBytes = (place.fresh ? 0 : (tip?.segmentBytes ?? 0)) + bytes.length;
  const nextTip: Tip = {
    seq: header.seq,
    hash: header.hash,
    segment: place.segment,
    published,
    segmentBytes,
    segmentRecords: (place.fresh ? 0 : (tip?.segmentRecords ?? 0)) + 1,
    sinceKey: whole ? 0 : tip!.sinceKey + 1,
    keyAt: whole ? published : tip!.keyAt,
  };
  return { header, bytes, bases: next, tip: nextTip, drop: retention.drop };
}

/** The segment a record goes in: the tip's, or a new one on a new UTC day or once the tip's is full. */
function placeOf(tip: Tip | undefined, published: Date, limit: number): { segment: string; fresh: boolean } {
  const day = published.toISOString().slice(0, 10);
  const parts = tip ? segmentParts(tip.segment) : undefined;
  if (!tip || !parts || parts.day < day) return { segment: segmentName(published, 1), fresh: true };
  // A clock set back keeps the day it is in: segments never go back in time.
  if (tip.segmentBytes >= limit || tip.segmentRecords >= SEGMENT_RECORDS)
    return { segment: `${parts.day}-${parts.number + 1}`, fresh: true };
  return { segment: tip.segment, fresh: false };
}

const sameOrNew = (previous: Base | undefined, bytes: Buffer): Base => {
  const sha256 = sha256Hex(bytes);
  return previous?.sha256 === sha256 ? previous : baseOf(bytes, sha256);
};

/** A stream's entry: unchanged, a diff that rebuilds it exactly (checked here), or its whole bytes. */
function entryOf(base: Base, previous: Base | undefined, whole: boolean, blobs: Promise<Buffer>[]): StreamEntry {
  const facts = { sha256: base.sha256, bytes: base.bytes };
  if (!whole && previous?.sha256 === base.sha256) return { how: 'same', ...facts };
  const ops =
    !whole && previous?.segments && base.segments ? diffSegments(previous.segments, base.segments) : undefined;
  const text = ops && JSON.stringify(ops);
  // A diff larger than half the export is no saving (a reordered config): the whole file is kept instead.
  if (ops && text && text.length < base.bytes / 2 && rebuilds(previous!.segments!, ops, base.segments!)) {
    blobs.push(packBlob(text));
    return { how: 'diff', ...facts, blob: blobs.length - 1 };
  }
  blobs.push(packBlob(bytesOf(base)));
  return { how: 'key', ...facts, blob: blobs.length - 1 };
}

/** Whether the operations turn the old segments into exactly the new ones (a check of every diff before it is kept). */
function rebuilds(old: readonly string[], ops: DiffOp[], next: readonly string[]): boolean {
  const made = applyDiff(old, ops);
  return made.length === next.length && made.every((segment, index) => segment === next[index]);
}

function buildFields(build: ArchiveBuild): RecordHeader['build'] {
  return {
    id: build.id,
    ...(build.config ? { config: build.config } : {}),
    ...(build.instance ? { instance: build.instance } : {}),
    ...(build.ms === undefined ? {} : { ms: Math.round(build.ms) }),
    ...(build.counts ? { published: build.counts.published, withheld: build.counts.withheld } : {}),
  };
}
