// The archive's writer: after each build that published, a record of what changed (make.ts), appended to the store.
// Never throws and never fails a build: a record that cannot be appended (a full disk) is kept in memory and
// appended before the next, up to a bound; past it the builds in between are a gap, said in the next record, which
// is whole. `open` picks up where the store ends (open-end.ts); `reconcile` records files found on disk that the
// archive does not have (a build killed between its renames and its record) as found.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError } from '../../base/errors.js';
import type { Logger } from '../../base/log.js';
import type { RecordHeader } from '../../pure/archive/record.js';
import type { SegmentSize } from '../../pure/archive/retention.js';
import type { SigningKey } from './key.js';
import { type ArchiveBuild, type Base, baseOf, bytesOf, changes, makeRecord, type Made, type Tip } from './make.js';
import { firstOf, openEnd, sizeOf, tipOf } from './open-end.js';
import { STATE_STREAM } from './rebuild.js';
import type { ArchiveStore, StoredRecord } from './store.js';

/** Records kept in memory while the store refuses them, at most this many bytes. */
const PENDING_BYTES = 64 * 2 ** 20;

export interface RecorderOptions {
  windowMs: number;
  budgetBytes: number;
  key?: SigningKey | undefined;
  log: Pick<Logger, 'warn' | 'info'>;
}

/** What one build's recording came to: the record's seq and hash, or the warning to log. */
export interface RecordOutcome {
  recorded?: { seq: number; hash: string };
  warning?: string;
}

export interface RecorderState {
  /** The newest record in the store, and the segments with their sizes. */
  last?: RecordHeader;
  segments: readonly SegmentSize[];
  /** Records made but not yet in the store, and the last failure to append. */
  pending: number;
  problem?: string;
}

export class Recorder {
  private bases = new Map<string, Base>();
  private tip: Tip | undefined;
  private written: { tip?: Tip | undefined; header?: RecordHeader | undefined } = {};
  private pending: Made[] = [];
  private notes: NonNullable<RecordHeader['notes']> = {};
  private whole = false;
  private segments: SegmentSize[] = [];
  private problem: string | undefined;
  private lost: { builds: number; from: string; to: string } | undefined;

  private constructor(
    readonly store: ArchiveStore,
    private readonly options: RecorderOptions,
  ) {}

  /** The recorder of a store: its end repaired, its streams rebuilt from its newest segment. */
  static async open(store: ArchiveStore, options: RecorderOptions): Promise<Recorder> {
    const recorder = new Recorder(store, options);
    const end = await openEnd(store, options.log);
    recorder.segments = end.segments;
    recorder.notes = end.notes;
    recorder.bases = end.bases;
    recorder.whole = end.whole;
    if (end.head) {
      recorder.tip = end.head.tip;
      recorder.written = { tip: end.head.tip, header: end.head.header };
    }
    return recorder;
  }

  /**
   * The exports served now that the archive does not have (a build killed after its renames, before its record):
   * recorded as found, at their files' modification time.
   */
  async reconcile(outDir: string, declared: readonly string[], now: Date): Promise<RecordOutcome | undefined> {
    const found = await Promise.all(
      declared.map(async (file) => {
        const path = join(outDir, file);
        const [bytes, info] = await Promise.all([
          readFile(path).catch(() => undefined),
          stat(path).catch(() => undefined),
        ]);
        return bytes && info ? [{ file, bytes, mtime: info.mtimeMs }] : [];
      }),
    );
    const files = found.flat();
    const build = { at: now, published: now, id: '', files, removed: [] };
    if (files.length === 0 || !changes(this.bases, build)) return undefined;
    const newest = Math.max(...files.map((file) => file.mtime), this.tip?.published ?? 0);
    const published = new Date(Math.min(newest, now.getTime()));
    this.notes.found = files
      .filter((file) => this.bases.get(file.file)?.sha256 !== baseOf(file.bytes).sha256)
      .map((f) => f.file);
    this.options.log.warn(
      `archive: ${this.notes.found.join(', ')} on disk not in the archive (a build stopped before its record): recorded as found`,
    );
    return this.record({ ...build, at: published, published, id: `found@${published.toISOString()}` });
  }

  /** Record a build that published; never throws. */
  async record(build: ArchiveBuild): Promise<RecordOutcome> {
    try {
      // A build that changed nothing is no record, but the records a refused append left waiting go in now: the
      // market may stay still long after the disk has room again.
      if (!changes(this.bases, build)) return this.pending.length > 0 ? await this.flush(build) : {};
      const made = await makeRecord({
        tip: this.tip,
        bases: this.bases,
        build,
        whole: this.whole,
        notes: this.takeNotes(),
        segments: this.segments,
        windowMs: this.options.windowMs,
        budgetBytes: this.options.budgetBytes,
        key: this.options.key,
      });
      this.bases = made.bases;
      this.tip = made.tip;
      this.whole = false;
      this.pending.push(made);
      return await this.flush(build);
    } catch (error) {
      return { warning: this.failed(error) };
    }
  }

  private takeNotes(): NonNullable<RecordHeader['notes']> {
    const notes = this.notes;
    this.notes = {};
    if (this.lost) notes.gap = { ...this.lost, why: this.problem ?? 'the store refused them' };
    return notes;
  }

  /** Append what waits, in order; on a failure keep it (within the bound) and say so. */
  private async flush(build: ArchiveBuild): Promise<RecordOutcome> {
    while (this.pending.length > 0) {
      const made = this.pending[0]!;
      const seen: { head?: StoredRecord | undefined; moved?: true } = {};
      try {
        const stored = await this.store.append(async (head) => {
          if (head?.header.hash === this.written.header?.hash) return made;
          Object.assign(seen, { head, moved: true });
          return undefined;
        });
        if (!stored) {
          if (!seen.moved) throw new Error('the store wrote nothing');
          await this.rebase(seen.head, build);
          continue;
        }
      } catch (error) {
        return { warning: this.refused(error) };
      }
      this.pending.shift();
      this.committed(made);
      await this.dropSegments(made.drop);
    }
    if (this.problem) this.options.log.info('archive: records are appended again');
    this.problem = undefined;
    this.lost = undefined;
    const last = this.written.header!;
    return { recorded: { seq: last.seq, hash: last.hash } };
  }

  private committed(made: Made): void {
    this.written = { tip: made.tip, header: made.header };
    const segment = this.segments.find((entry) => entry.name === made.header.segment);
    if (segment) segment.bytes = made.tip.segmentBytes;
    else this.segments.push({ name: made.header.segment, bytes: made.tip.segmentBytes, ...firstOf(made.header) });
  }

  private async dropSegments(names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    await this.store
      .drop(names)
      .catch((error: unknown) => this.options.log.warn(`archive: cannot remove old segments: ${describeError(error)}`));
    this.segments = this.segments.filter((segment) => !names.includes(segment.name));
  }

  /** Another writer appended (`ratefile build` by hand beside `start`): what waits is made again, whole, after its record. */
  private async rebase(head: StoredRecord | undefined, build: ArchiveBuild): Promise<void> {
    const waiting = this.pending.map((made) => made.header.published);
    this.pending = [];
    if (head) {
      this.tip = tipOf(head, (await this.store.records(head.segment)).records);
      this.written = { tip: this.tip, header: head.header };
    } else this.tip = this.written.tip = this.written.header = undefined;
    this.segments = (await this.store.segments()).map(sizeOf);
    // The newest of them is the record made now, whole; the others are a gap.
    if (waiting.length > 1) this.lost = { builds: waiting.length - 1, from: waiting[0]!, to: waiting.at(-2)! };
    const files = [...this.bases].flatMap(([file, base]) =>
      file === STATE_STREAM ? [] : [{ file, bytes: bytesOf(base) }],
    );
    const state = this.bases.get(STATE_STREAM);
    const made = await makeRecord({
      tip: this.tip,
      bases: new Map(),
      build: { ...build, files, removed: [], ...(state ? { state: bytesOf(state).toString('utf8') } : {}) },
      whole: true,
      notes: this.takeNotes(),
      segments: this.segments,
      windowMs: this.options.windowMs,
      budgetBytes: this.options.budgetBytes,
      key: this.options.key,
    });
    this.bases = made.bases;
    this.tip = made.tip;
    this.pending.push(made);
  }

  /** The store refused a record: kept for the next build, or past the bound given up as a gap. */
  private refused(error: unknown): string {
    this.problem = describeError(error);
    const bytes = this.pending.reduce((sum, made) => sum + made.bytes.length, 0);
    const warning = `archive: cannot append a record (${this.problem}); the export is published, the record waits (${this.pending.length} waiting)`;
    if (bytes <= PENDING_BYTES) return warning;
    const first = this.pending[0]!.header;
    const last = this.pending.at(-1)!.header;
    this.lost = {
      builds: (this.lost?.builds ?? 0) + this.pending.length,
      from: this.lost?.from ?? first.published,
      to: last.published,
    };
    this.pending = [];
    this.tip = this.written.tip;
    this.whole = true;
    return `archive: cannot append a record (${this.problem}); ${this.lost.builds} builds since ${this.lost.from} are not kept (the next record says so)`;
  }

  private failed(error: unknown): string {
    this.problem = describeError(error);
    this.whole = true;
    return `archive: this build is not recorded: ${this.problem}`;
  }

  state(): RecorderState {
    return {
      ...(this.written.header ? { last: this.written.header } : {}),
      segments: this.segments,
      pending: this.pending.length,
      ...(this.problem ? { problem: this.problem } : {}),
    };
  }

  /** The bytes of a stream as last recorded (the quote reads the export served now from here). */
  current(stream: string): Buffer | undefined {
    const base = this.bases.get(stream);
    return base && bytesOf(base);
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}
