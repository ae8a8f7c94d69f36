// Rebuilding a stream (an export, or the state lines) as it was at one record: from its last keyframe in the
// record's segment, each diff after it applied in turn, the result checked against the record's SHA-256.
import { isUtf8 } from 'node:buffer';
import { applyDiff, isDiff } from '../../pure/archive/diff.js';
import { segmentsOf } from '../../pure/archive/segments.js';
import { sha256Hex, type RecordHeader, type StreamEntry } from '../../pure/archive/record.js';
import { unpackBlob } from './frame.js';
import type { ArchiveStore, StoredRecord } from './store.js';

/** The name the state lines go by among the streams (no export file starts with `#`). */
export const STATE_STREAM = '#state';

export const streamEntry = (header: RecordHeader, stream: string): StreamEntry | undefined =>
  stream === STATE_STREAM ? header.state : header.exports[stream];

/** A stream rebuilt: its bytes and, when it is text, its segments (what the next diff applies to). */
export interface Rebuilt {
  bytes: Buffer;
  segments?: string[];
  sha256: string;
}

export class RebuildError extends Error {}

/**
 * `stream` as it was at `records[index]` (records of one segment, in order). Undefined when the stream did not
 * exist then. Throws RebuildError when the records cannot make it (a blob missing, a diff that does not apply, or
 * bytes whose SHA-256 is not the record's).
 */
export async function rebuildStream(
  store: ArchiveStore,
  records: readonly StoredRecord[],
  index: number,
  stream: string,
): Promise<Rebuilt | undefined> {
  const target = records[index];
  if (!target) throw new RebuildError('no such record');
  const entry = streamEntry(target.header, stream);
  if (!entry || entry.how === 'gone') return undefined;
  let start = index;
  while (start >= 0 && streamEntry(records[start]!.header, stream)?.how !== 'key') start--;
  if (start < 0) throw new RebuildError(`${stream}: no keyframe before record ${target.header.seq} in its segment`);
  let segments: string[] | undefined;
  let bytes: Buffer | undefined;
  for (let i = start; i <= index; i++) {
    const record = records[i]!;
    const at = streamEntry(record.header, stream);
    if (!at || at.how === 'same') continue;
    if (at.how === 'gone') throw new RebuildError(`${stream}: removed at record ${record.header.seq}`);
    const blob = await blobOf(store, record, at);
    if (at.how === 'key') {
      bytes = blob;
      segments = isUtf8(blob) ? segmentsOf(blob.toString('utf8')) : undefined;
      continue;
    }
    const ops: unknown = JSON.parse(blob.toString('utf8'));
    if (!segments || !isDiff(ops))
      throw new RebuildError(`${stream}: record ${record.header.seq} has a diff that cannot apply`);
    try {
      segments = applyDiff(segments, ops);
    } catch (error) {
      throw new RebuildError(`${stream}: record ${record.header.seq}: ${(error as Error).message}`);
    }
    bytes = undefined;
  }
  const result = bytes ?? Buffer.from(segments!.join(''), 'utf8');
  const sha256 = sha256Hex(result);
  if (sha256 !== entry.sha256)
    throw new RebuildError(`${stream}: rebuilt at record ${target.header.seq}, its SHA-256 is not the record's`);
  return { bytes: result, ...(segments ? { segments } : {}), sha256 };
}

/** The blobs of the records read last, up to 32 MiB: a record's streams are usually rebuilt together. */
const recent = new Map<StoredRecord, Promise<Buffer[]>>();
const sizes = new Map<StoredRecord, number>();
let recentBytes = 0;
const RECENT_BYTES = 32 * 2 ** 20;

async function blobOf(store: ArchiveStore, record: StoredRecord, entry: StreamEntry): Promise<Buffer> {
  let blobs = recent.get(record);
  if (!blobs) {
    blobs = store.blobs(record);
    recent.set(record, blobs);
    sizes.set(record, record.size);
    recentBytes += record.size;
    for (const [old] of recent) {
      if (recentBytes <= RECENT_BYTES || old === record) break;
      recentBytes -= sizes.get(old) ?? 0;
      recent.delete(old);
      sizes.delete(old);
    }
    blobs.catch(() => {
      if (!recent.delete(record)) return;
      recentBytes -= sizes.get(record) ?? 0;
      sizes.delete(record);
    });
  }
  const stored = (await blobs)[entry.blob ?? -1];
  const expected = record.header.blobs[entry.blob ?? -1];
  if (!stored || !expected || stored.length !== expected[0] || sha256Hex(stored) !== expected[1])
    throw new RebuildError(`record ${record.header.seq}: a blob is not the one its header names`);
  try {
    return await unpackBlob(stored);
  } catch {
    throw new RebuildError(`record ${record.header.seq}: a blob does not decompress`);
  }
}

/** The streams a record lists as present (exports not gone, and the state). */
export function liveStreams(header: RecordHeader): string[] {
  const streams = Object.entries(header.exports)
    .filter(([, entry]) => entry.how !== 'gone')
    .map(([file]) => file);
  return header.state ? [...streams, STATE_STREAM] : streams;
}

/**
 * One forward pass over records `from`…`to` of a segment: `visit` is given the stream's text at each record in that
 * range where it differs from the record before (and at `from`). Cheaper than rebuilding each record alone.
 */
export async function replayStream(
  store: ArchiveStore,
  records: readonly StoredRecord[],
  from: number,
  to: number,
  stream: string,
  visit: (index: number, text: string) => void,
): Promise<void> {
  let start = from;
  while (start >= 0 && streamEntry(records[start]!.header, stream)?.how !== 'key') start--;
  if (start < 0) throw new RebuildError(`${stream}: no keyframe before record ${records[from]?.header.seq}`);
  let segments: string[] | undefined;
  for (let i = start; i <= to; i++) {
    const record = records[i]!;
    const at = streamEntry(record.header, stream);
    const changed = at !== undefined && at.how !== 'same' && at.how !== 'gone';
    if (at?.how === 'gone') segments = undefined;
    if (changed) {
      const blob = await blobOf(store, record, at);
      if (at.how === 'key') segments = segmentsOf(blob.toString('utf8'));
      else {
        const ops: unknown = JSON.parse(blob.toString('utf8'));
        if (!segments || !isDiff(ops))
          throw new RebuildError(`${stream}: record ${record.header.seq} has a diff that cannot apply`);
        segments = applyDiff(segments, ops);
      }
    }
    if (i >= from && segments && (changed || i === from)) visit(i, segments.join(''));
  }
}
