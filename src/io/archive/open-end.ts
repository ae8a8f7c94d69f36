// Where an archive store ends, for the recorder that appends after it: a torn end moved aside (and said, in the log
// and in the next record's notes), the tip of the newest record, and each stream as that record has it, rebuilt
// from the newest segment; a stream that cannot be rebuilt makes the next record whole.
import { describeError } from '../../base/errors.js';
import type { Logger } from '../../base/log.js';
import type { RecordHeader } from '../../pure/archive/record.js';
import type { SegmentSize } from '../../pure/archive/retention.js';
import { type Base, baseOf, KEY_EVERY, type Tip } from './make.js';
import { liveStreams, rebuildStream, STATE_STREAM } from './rebuild.js';
import type { ArchiveStore, StoredRecord } from './store.js';

export interface StoreEnd {
  segments: SegmentSize[];
  /** The newest record and the tip after it; none in an empty store. */
  head?: { header: RecordHeader; tip: Tip };
  bases: Map<string, Base>;
  /** A stream could not be rebuilt: the next record keeps every stream whole. */
  whole: boolean;
  notes: NonNullable<RecordHeader['notes']>;
}

export async function openEnd(store: ArchiveStore, log: Pick<Logger, 'warn'>): Promise<StoreEnd> {
  const segments = await store.segments();
  const end: StoreEnd = { segments: segments.map(sizeOf), bases: new Map(), whole: false, notes: {} };
  const last = segments.at(-1);
  if (!last) return end;
  let { records, end: torn } = await store.records(last.name);
  if (torn) {
    const moved = await store.repair(last.name, torn);
    end.notes.repaired = {
      segment: last.name,
      offset: torn.offset,
      bytes: torn.bytes,
      moved: moved.slice(moved.lastIndexOf('/') + 1),
    };
    log.warn(
      `archive: ${last.name}: the last ${torn.bytes} bytes are no whole record (${torn.problem}${torn.torn ? ': a crash mid-append' : ''}); moved to ${moved}, the next record says so`,
    );
    end.segments.at(-1)!.bytes = torn.offset;
    ({ records } = await store.records(last.name));
  }
  const head = records.at(-1);
  if (!head) return end;
  end.head = { header: head.header, tip: tipOf(head, records) };
  await rebuildBases(store, records, end, log);
  return end;
}

/** Each stream as the newest record has it, into `end.bases`; one that cannot be rebuilt sets `end.whole`. */
async function rebuildBases(
  store: ArchiveStore,
  records: readonly StoredRecord[],
  end: StoreEnd,
  log: Pick<Logger, 'warn'>,
): Promise<void> {
  const index = records.length - 1;
  for (const stream of liveStreams(records[index]!.header)) {
    try {
      const rebuilt = await rebuildStream(store, records, index, stream);
      if (rebuilt) end.bases.set(stream, baseOf(rebuilt.bytes, rebuilt.sha256));
    } catch (error) {
      end.whole = true;
      log.warn(
        `archive: ${stream} cannot be rebuilt from the last records (${describeError(error)}); the next record keeps it whole`,
      );
    }
  }
}

/** The tip after `head`, the newest of its segment's `records`. */
export function tipOf(head: StoredRecord, records: readonly StoredRecord[]): Tip {
  const lastWhole = records.findLastIndex((record) =>
    liveStreams(record.header).every((stream) => streamHow(record.header, stream) === 'key'),
  );
  const key = records[lastWhole];
  return {
    seq: head.header.seq,
    hash: head.header.hash,
    segment: head.segment,
    published: Date.parse(head.header.published),
    segmentBytes: records.reduce((sum, record) => sum + record.size, 0),
    segmentRecords: records.length,
    sinceKey: key ? records.length - 1 - lastWhole : KEY_EVERY,
    keyAt: key ? Date.parse(key.header.published) : 0,
  };
}

const streamHow = (header: RecordHeader, stream: string) =>
  stream === STATE_STREAM ? header.state?.how : header.exports[stream]?.how;

export const firstOf = (header: RecordHeader) => ({
  firstPublished: Date.parse(header.published),
  firstSeq: header.seq,
  firstPrev: header.prev,
});

export const sizeOf = (segment: { name: string; bytes: number; first?: RecordHeader }): SegmentSize => ({
  name: segment.name,
  bytes: segment.bytes,
  ...(segment.first ? firstOf(segment.first) : {}),
});
