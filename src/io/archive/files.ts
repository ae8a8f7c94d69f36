// The archive in the state folder: `.ratefile/archive/<segment>.rfa`, one file per segment (a new one each UTC day
// and past a size), records appended whole and synced before the append returns. A crash mid-append leaves a torn
// end, found when the segment is read and cut off by `repair` (its bytes kept in `torn/`), never read as a record.
// Appends take a lock file, so `ratefile build` run by hand beside `start` appends in turn, never into each other.
import { randomBytes } from 'node:crypto';
import { link, open, readdir, readFile, rename, stat, truncate, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { STATE_FILE_MODE, stateFolder } from '../state/state-files.js';
import type { RecordHeader } from '../../pure/archive/record.js';
import { MAX_HEADER_BYTES, readFrame } from './frame.js';
import {
  compareSegments,
  segmentParts,
  type ArchiveStore,
  type SegmentEnd,
  type SegmentInfo,
  type StoredRecord,
} from './store.js';

const EXTENSION = '.rfa';
const LOCK_WAIT_MS = 10_000;

/** How the store touches the disk: tests replace `write` to fill a disk that is not full. */
export interface ArchiveDisk {
  write(path: string, bytes: Buffer): Promise<void>;
}

/** Append and sync: the record is on the disk when this resolves. */
export const realDisk: ArchiveDisk = {
  async write(path, bytes) {
    const handle = await open(path, 'a', STATE_FILE_MODE);
    try {
      await handle.write(bytes);
      await handle.datasync();
    } finally {
      await handle.close();
    }
  },
};

export const fileStore = (stateDir: string, disk: ArchiveDisk = realDisk): ArchiveStore =>
  new FileStore(stateDir, disk);

class FileStore implements ArchiveStore {
  readonly kind = 'files';
  readonly where: string;
  private readonly firsts = new Map<string, RecordHeader>();
  private head: { segment: string; size: number; record: StoredRecord | undefined } | undefined;

  constructor(
    stateDir: string,
    private readonly disk: ArchiveDisk,
  ) {
    this.where = join(stateDir, 'archive');
  }

  private pathOf(segment: string): string {
    return join(this.where, `${segment}${EXTENSION}`);
  }

  private async names(): Promise<string[]> {
    return (await readdir(this.where).catch(() => []))
      .filter((name) => name.endsWith(EXTENSION) && segmentParts(name.slice(0, -EXTENSION.length)))
      .map((name) => name.slice(0, -EXTENSION.length))
      .sort(compareSegments);
  }

  async segments(): Promise<SegmentInfo[]> {
    return Promise.all(
      (await this.names()).map(async (name): Promise<SegmentInfo> => {
        const bytes = (await stat(this.pathOf(name)).catch(() => undefined))?.size ?? 0;
        let first = this.firsts.get(name);
        if (!first && bytes > 0) {
          first = (await scanSegment(this.pathOf(name), 1)).records[0]?.header;
          if (first) this.firsts.set(name, first);
        }
        return { name, bytes, ...(first ? { first } : {}) };
      }),
    );
  }

  records(segment: string, limit = Infinity) {
    return scanSegment(this.pathOf(segment), limit, segment);
  }

  async blobs(record: StoredRecord): Promise<Buffer[]> {
    const handle = await open(this.pathOf(record.segment), 'r');
    try {
      const length = record.size - record.headerBytes - 1;
      const body = Buffer.alloc(length);
      await handle.read(body, 0, length, record.offset + record.headerBytes);
      let offset = 0;
      return record.header.blobs.map(([size]) => body.subarray(offset, (offset += size)));
    } finally {
      await handle.close();
    }
  }

  async append(make: Parameters<ArchiveStore['append']>[0]): Promise<StoredRecord | undefined> {
    await stateFolder(this.where);
    const release = await takeLock(join(this.where, 'lock'));
    try {
      const made = await make(await this.currentHead());
      if (!made) return undefined;
      const segment = made.header.segment;
      const path = this.pathOf(segment);
      const before = (await stat(path).catch(() => undefined))?.size;
      try {
        await this.disk.write(path, made.bytes);
      } catch (error) {
        // Nothing half-written stays: the segment is cut back to where it was (or the new one removed).
        await (before === undefined ? unlink(path) : truncate(path, before)).catch(() => undefined);
        this.head = undefined;
        throw error;
      }
      if (before === undefined) await syncFolder(this.where);
      const offset = before ?? 0;
      const record = {
        header: made.header,
        segment,
        offset,
        size: made.bytes.length,
        headerBytes: made.bytes.indexOf(10) + 1,
      };
      this.head = { segment, size: offset + made.bytes.length, record };
      if (offset === 0) this.firsts.set(segment, made.header);
      return record;
    } finally {
      await release();
    }
  }

  async repair(segment: string, end: SegmentEnd): Promise<string> {
    const path = this.pathOf(segment);
    const aside = join(this.where, 'torn', `${segment}-${end.offset}.bin`);
    await stateFolder(join(this.where, 'torn'));
    const handle = await open(path, 'r+');
    try {
      const bytes = Buffer.alloc(end.bytes);
      await handle.read(bytes, 0, end.bytes, end.offset);
      await writeFile(aside, bytes, { mode: STATE_FILE_MODE });
      await handle.truncate(end.offset);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    this.head = undefined;
    return aside;
  }

  async drop(segments: readonly string[]): Promise<void> {
    for (const segment of segments) {
      await unlink(this.pathOf(segment)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      this.firsts.delete(segment);
    }
    await syncFolder(this.where);
  }

  async close(): Promise<void> {}

  /** The newest record as the disk has it now (re-read only when the last segment is not as this store left it). */
  private async currentHead(): Promise<StoredRecord | undefined> {
    const last = (await this.names()).at(-1);
    if (!last) return undefined;
    const size = (await stat(this.pathOf(last))).size;
    if (this.head && this.head.segment === last && this.head.size === size) return this.head.record;
    const record = (await scanSegment(this.pathOf(last), Infinity, last)).records.at(-1);
    this.head = { segment: last, size, record };
    return record;
  }
}

/** A folder's entries made durable (a new segment's name, a dropped one's absence). */
async function syncFolder(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => undefined);
  await handle?.sync().catch(() => undefined);
  await handle?.close();
}

/**
 * The records of a segment file from its start, reading headers only (blobs are skipped by their lengths): at most
 * `limit` of them, and how it ends when its last bytes are no whole record.
 */
async function scanSegment(
  path: string,
  limit: number,
  segment = path.slice(path.lastIndexOf('/') + 1, -EXTENSION.length),
): Promise<{ records: StoredRecord[]; end?: SegmentEnd }> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return { records: [] };
  const records: StoredRecord[] = [];
  try {
    const fileSize = (await handle.stat()).size;
    let offset = 0;
    let chunk = Buffer.alloc(64 * 1024);
    while (offset < fileSize && records.length < limit) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, fileSize - offset), offset);
      const view = chunk.subarray(0, bytesRead);
      const read = headerAt(view, fileSize - offset);
      if ('more' in read) {
        if (chunk.length >= MAX_HEADER_BYTES)
          return { records, end: endAt(offset, fileSize, 'its header is too long', false) };
        chunk = Buffer.alloc(chunk.length * 4);
        continue;
      }
      if ('problem' in read) return { records, end: endAt(offset, fileSize, read.problem, read.torn) };
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, offset + read.size - 1);
      if (last[0] !== 10)
        return { records, end: endAt(offset, fileSize, 'it does not end where its header says', false) };
      records.push({ header: read.header, segment, offset, size: read.size, headerBytes: read.headerBytes });
      offset += read.size;
    }
    return { records };
  } finally {
    await handle.close();
  }
}

const endAt = (offset: number, fileSize: number, problem: string, torn: boolean): SegmentEnd => ({
  offset,
  bytes: fileSize - offset,
  problem,
  torn,
});

/** A header from the start of `view`, the segment having `left` bytes from there. */
function headerAt(
  view: Buffer,
  left: number,
): { header: RecordHeader; size: number; headerBytes: number } | { more: true } | { problem: string; torn: boolean } {
  const complete = view.length >= left;
  if (view.indexOf(10) < 0 && !complete) return { more: true };
  // The blobs are not in the view: the frame is judged by its header's lengths against what is left of the file.
  const read = readFrame(view, complete);
  if ('header' in read) return read;
  if ('torn' in read) {
    if (read.torn !== 'need more') return { problem: read.torn, torn: true };
    const header = JSON.parse(view.subarray(0, view.indexOf(10)).toString('utf8')) as RecordHeader;
    const headerBytes = view.indexOf(10) + 1;
    const size = headerBytes + header.blobs.reduce((sum, [length]) => sum + length, 0) + 1;
    if (size > left) return { problem: `it ends after ${left} of its ${size} bytes`, torn: true };
    return { header, size, headerBytes };
  }
  return { problem: read.bad, torn: false };
}

/** The lock of one append: a file naming its holder; one a dead process left is taken over. */
async function takeLock(path: string): Promise<() => Promise<void>> {
  const token = `${process.pid} ${randomBytes(6).toString('hex')}`;
  const started = Date.now();
  for (;;) {
    try {
      await writeFile(path, token, { flag: 'wx', mode: STATE_FILE_MODE });
      return async () => {
        if ((await readFile(path, 'utf8').catch(() => '')) === token) await unlink(path).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readFile(path, 'utf8').catch(() => '');
    const pid = Number(holder.split(' ')[0]);
    if (!holder || !alive(pid)) {
      // Renamed away first, so two takers of a dead holder's lock cannot both remove the other's new one.
      const aside = `${path}.${randomBytes(6).toString('hex')}.stale`;
      if (
        await rename(path, aside).then(
          () => true,
          () => false,
        )
      ) {
        // Another taker's new lock renamed by mistake goes back (link fails if a third made one meanwhile).
        if ((await readFile(aside, 'utf8').catch(() => '')) !== holder) await link(aside, path).catch(() => undefined);
        await unlink(aside).catch(() => undefined);
      }
      continue;
    }
    if (Date.now() - started > LOCK_WAIT_MS)
      throw new Error(`the archive is locked by process ${pid} (${path}) for more than ${LOCK_WAIT_MS / 1000} s`);
    await sleep(20);
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
