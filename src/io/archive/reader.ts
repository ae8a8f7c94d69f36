// Reading the archive back: the record in force at a moment (the newest whose files were in place by then), any
// stream rebuilt as that record had it, and a direction's published rate over the window from the state lines of
// the whole records (one per segment start, every 200 records and every 15 minutes).
import { readState } from '../../pure/archive/state.js';
import type { RecordHeader } from '../../pure/archive/record.js';
import { liveStreams, rebuildStream, STATE_STREAM, streamEntry } from './rebuild.js';
import type { ArchiveStore, SegmentInfo, StoredRecord } from './store.js';

export interface RecordAt {
  records: readonly StoredRecord[];
  index: number;
  record: StoredRecord;
}

/** One point of a direction's series: when, and its published rate and market (`in:out`), or null while held back. */
export interface SeriesPoint {
  at: number;
  rate: string | null;
  market: string | null;
}

export class ArchiveReader {
  private scanned = new Map<string, { bytes: number; records: StoredRecord[] }>();

  private constructor(
    readonly store: ArchiveStore,
    readonly segments: readonly SegmentInfo[],
  ) {}

  static async open(store: ArchiveStore): Promise<ArchiveReader> {
    return new ArchiveReader(store, await store.segments());
  }

  /** The records of a segment, read once per reader. */
  async records(segment: SegmentInfo): Promise<StoredRecord[]> {
    const known = this.scanned.get(segment.name);
    if (known && known.bytes === segment.bytes) return known.records;
    const { records } = await this.store.records(segment.name);
    this.scanned.set(segment.name, { bytes: segment.bytes, records });
    return records;
  }

  get first(): RecordHeader | undefined {
    return this.segments.find((segment) => segment.first)?.first;
  }

  /** The record in force at `time` (ms): the newest whose files were in place by then; undefined before the first. */
  async recordAt(time: number): Promise<RecordAt | undefined> {
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const segment = this.segments[i]!;
      if (!segment.first || Date.parse(segment.first.published) > time) continue;
      const records = await this.records(segment);
      const index = records.findLastIndex((record) => Date.parse(record.header.published) <= time);
      if (index >= 0) return { records, index, record: records[index]! };
    }
    return undefined;
  }

  /** The newest record. */
  async last(): Promise<RecordAt | undefined> {
    const segment = this.segments.at(-1);
    if (!segment) return undefined;
    const records = await this.records(segment);
    return records.length > 0 ? { records, index: records.length - 1, record: records.at(-1)! } : undefined;
  }

  /** A stream's bytes as the record had it (checked against its SHA-256); undefined when it was not published then. */
  async stream(at: RecordAt, stream: string): Promise<Buffer | undefined> {
    return (await rebuildStream(this.store, at.records, at.index, stream))?.bytes;
  }

  /** The state lines as the record had them. */
  async state(at: RecordAt): Promise<ReturnType<typeof readState> | undefined> {
    const bytes = await this.stream(at, STATE_STREAM);
    return bytes ? readState(bytes.toString('utf8')) : undefined;
  }

  /**
   * A direction's rate over [from, to] from whole records (each segment's first, then those inside the newest
   * segments while fewer than `points` are found and at most 100,000 headers were read), at most `points` of them
   * evenly spread, and the record in force at `to`: the chart of the window without replaying every build.
   */
  async series(direction: string, from: number, to: number, points = 200): Promise<SeriesPoint[]> {
    const inRange = (header: RecordHeader) => {
      const at = Date.parse(header.published);
      return at >= from && at <= to;
    };
    const segments = this.segments.filter((segment) => segment.first && Date.parse(segment.first.published) <= to);
    const found = new Map<RecordHeader, RecordAt | SegmentInfo>();
    for (const segment of segments) if (inRange(segment.first!)) found.set(segment.first!, segment);
    let read = 0;
    for (let i = segments.length - 1; i >= 0 && found.size < points && read < 100_000; i--) {
      const records = await this.records(segments[i]!);
      read += records.length;
      records.forEach((record, index) => {
        if (record.header.state?.how === 'key' && inRange(record.header))
          found.set(record.header, { records, index, record });
      });
    }
    const chosen = [...found.entries()].sort(([a], [b]) => a.seq - b.seq).map(([, at]) => at);
    const step = Math.max(1, Math.ceil(chosen.length / points));
    const sampled = chosen.filter((_, index) => index % step === 0);
    const end = await this.recordAt(to);
    const series: SeriesPoint[] = [];
    for (const entry of [...sampled, ...(end ? [end] : [])]) {
      const at = 'records' in entry ? entry : await this.firstOf(entry);
      if (!at) continue;
      const line = (await this.state(at))?.directions.get(direction);
      series.push({ at: Date.parse(at.record.header.published), rate: line?.r ?? null, market: line?.m ?? null });
    }
    return series;
  }

  /** A segment's first record alone (whole: it rebuilds by itself). */
  private async firstOf(segment: SegmentInfo): Promise<RecordAt | undefined> {
    const { records } = await this.store.records(segment.name, 1);
    return records[0] ? { records, index: 0, record: records[0] } : undefined;
  }

  /** The exports a record lists as served. */
  static exportsOf(header: RecordHeader): string[] {
    return liveStreams(header).filter((stream) => stream !== STATE_STREAM);
  }

  static entry = streamEntry;
}
