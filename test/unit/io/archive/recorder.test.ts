// The recorder and the reader on real files: every recorded version of every export is rebuilt byte for byte at
// its moment; a restart picks up where the files end; a torn end is repaired and said; a store that refuses an
// append never fails the build and the record is appended once the store takes it; the window and the budget drop the
// oldest whole segments and nothing else, every moment of the window stays rebuildable, and the chain still verifies.
import { mkdtemp, readdir, rm, stat, truncate, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileStore, realDisk, type ArchiveDisk } from '../../../../src/io/archive/files.js';
import { ArchiveReader } from '../../../../src/io/archive/reader.js';
import { Recorder } from '../../../../src/io/archive/recorder.js';
import { verifyArchive } from '../../../../src/io/archive/verify.js';
import type { ArchiveBuild } from '../../../../src/io/archive/make.js';
import { random, type Next } from '../../../support/random.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
const stateDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-archive-'));
  dirs.push(dir);
  return dir;
};

const quiet = { warn: () => undefined, info: () => undefined };
const options = { windowMs: 30 * 86_400_000, budgetBytes: 1 << 30, log: quiet };

const item = (code: string, rate: string) =>
  `\n  <item>\n    <from>BTC</from>\n    <to>${code}</to>\n    <in>1</in>\n    <out>${rate}</out>\n    <amount>100</amount>\n  </item>`;
const xml = (next: Next, count: number) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<rates>${Array.from({ length: count }, (_, i) => item(`C${i}X`, (1000 + next() * 10).toFixed(2))).join('')}\n</rates>\n`;

function builds(next: Next, count: number, start: number, moves = 0.7, stepMs = 60_000): ArchiveBuild[] {
  let parser = xml(next, 5);
  let ref = xml(next, 3);
  return Array.from({ length: count }, (_, i) => {
    if (next() < moves) parser = xml(next, 4 + Math.floor(next() * 3));
    if (next() < 0.3) ref = xml(next, 3);
    const at = new Date(start + i * stepMs);
    return {
      at,
      published: new Date(at.getTime() + 500),
      id: at.toISOString(),
      files: [
        { file: 'parserfile.xml', bytes: Buffer.from(parser) },
        { file: 'reffile.xml', bytes: Buffer.from(ref) },
      ],
      removed: [],
      state: `{"d":"BTC>C0X","r":"1:${i}"}\n`,
    };
  });
}

/** A real disk that refuses every write with ENOSPC while it is full. */
function diskThatFills(): { disk: ArchiveDisk; fill: (full: boolean) => void } {
  let full = false;
  const disk: ArchiveDisk = {
    write: async (path, bytes) => {
      if (full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return realDisk.write(path, bytes);
    },
  };
  return { disk, fill: (value) => (full = value) };
}

describe('the recorder', () => {
  it('rebuilds every version of every export at its moment, across a restart, and the chain verifies', async () => {
    const dir = await stateDir();
    const start = Date.parse('2026-12-01T22:00:00Z');
    const all = builds(random(7), 400, start);
    let recorder = await Recorder.open(fileStore(dir), options);
    for (const [index, build] of all.entries()) {
      if (index === 150) recorder = await Recorder.open(fileStore(dir), options);
      const outcome = await recorder.record(build);
      expect(outcome.warning).toBeUndefined();
    }
    const reader = await ArchiveReader.open(fileStore(dir));
    // 400 builds a minute apart from 22:00: two UTC days, and whole records every 15 minutes.
    expect(reader.segments.map((s) => s.name)).toEqual(['2026-12-01-1', '2026-12-02-1']);
    for (const build of all) {
      const at = await reader.recordAt(build.published.getTime() + 1);
      for (const file of build.files) expect((await reader.stream(at!, file.file))?.equals(file.bytes)).toBe(true);
    }
    expect(await reader.recordAt(start)).toBeUndefined();
    const verified = await verifyArchive(fileStore(dir), { rebuild: true });
    expect(verified.problems).toEqual([]);
    expect(verified.records).toBeGreaterThan(300);
  });

  it('repairs a torn last record on open, keeps its bytes and says so in the next record', async () => {
    const dir = await stateDir();
    const all = builds(random(8), 6, Date.parse('2026-12-02T10:00:00Z'));
    const recorder = await Recorder.open(fileStore(dir), options);
    for (const build of all.slice(0, 5)) await recorder.record(build);
    const segment = join(dir, 'archive', '2026-12-02-1.rfa');
    const size = (await stat(segment)).size;
    await truncate(segment, size - 10);
    expect((await verifyArchive(fileStore(dir))).problems[0]?.problem).toMatch(/no whole record.*cut short/);
    const warnings: string[] = [];
    const reopened = await Recorder.open(fileStore(dir), {
      ...options,
      log: { ...quiet, warn: (w: string) => warnings.push(w) },
    });
    expect(warnings.join()).toMatch(/no whole record/);
    expect(await readdir(join(dir, 'archive', 'torn'))).toHaveLength(1);
    await reopened.record(all[5]!);
    const reader = await ArchiveReader.open(fileStore(dir));
    const last = await reader.last();
    expect(last?.record.header.notes?.repaired?.segment).toBe('2026-12-02-1');
    expect((await verifyArchive(fileStore(dir))).problems).toEqual([]);
  });

  it('never throws when the disk refuses an append, and appends the waiting records once it takes them', async () => {
    const dir = await stateDir();
    const { disk, fill } = diskThatFills();
    const all = builds(random(9), 8, Date.parse('2026-12-02T10:00:00Z'), 1);
    const recorder = await Recorder.open(fileStore(dir, disk), options);
    await recorder.record(all[0]!);
    fill(true);
    for (const build of all.slice(1, 5))
      expect((await recorder.record(build)).warning).toMatch(/ENOSPC.*published, the record waits/);
    expect(recorder.state().pending).toBe(4);
    fill(false);
    for (const build of all.slice(5)) expect((await recorder.record(build)).warning).toBeUndefined();
    const reader = await ArchiveReader.open(fileStore(dir));
    for (const build of all) {
      const at = await reader.recordAt(build.published.getTime());
      expect((await reader.stream(at!, 'parserfile.xml'))?.equals(build.files[0]!.bytes)).toBe(true);
    }
    expect((await verifyArchive(fileStore(dir))).problems).toEqual([]);
  });

  it('appends the waiting records at the next build even when that build changed nothing', async () => {
    const dir = await stateDir();
    const { disk, fill } = diskThatFills();
    const [first, second] = builds(random(13), 2, Date.parse('2026-12-02T10:00:00Z'), 1);
    const recorder = await Recorder.open(fileStore(dir, disk), options);
    await recorder.record(first!);
    fill(true);
    await recorder.record(second!);
    fill(false);
    const still = {
      ...second!,
      at: new Date(second!.at.getTime() + 60_000),
      published: new Date(second!.published.getTime() + 60_000),
    };
    expect(await recorder.record(still)).toMatchObject({ recorded: { seq: 1 } });
    expect(recorder.state().pending).toBe(0);
    const reader = await ArchiveReader.open(fileStore(dir));
    const at = await reader.recordAt(still.published.getTime());
    expect((await reader.stream(at!, 'parserfile.xml'))?.equals(second!.files[0]!.bytes)).toBe(true);
  });

  it('a record edited, removed or cut makes verify fail naming it', async () => {
    const dir = await stateDir();
    const recorder = await Recorder.open(fileStore(dir), options);
    for (const build of builds(random(10), 5, Date.parse('2026-12-02T10:00:00Z'))) await recorder.record(build);
    const segment = join(dir, 'archive', '2026-12-02-1.rfa');
    await appendFile(segment, 'x');
    const verified = await verifyArchive(fileStore(dir));
    expect(verified.problems[0]?.where).toMatch(/after seq 4/);
  });
});

describe("the archive's window and budget", () => {
  const DAY = 86_400_000;
  const segmentFiles = async (dir: string) =>
    (await readdir(join(dir, 'archive')).catch(() => [] as string[])).filter((name) => name.endsWith('.rfa')).sort();
  const bytesOnDisk = async (dir: string) => {
    let total = 0;
    for (const name of await segmentFiles(dir)) total += (await stat(join(dir, 'archive', name))).size;
    return total;
  };

  it('keeps every moment of the window and drops the whole days before it, the chain still verifying', async () => {
    const dir = await stateDir();
    const windowMs = 10 * DAY;
    // Forty days, a build every three hours: a segment a day.
    const all = builds(random(11), 320, Date.parse('2026-11-01T00:00:00Z'), 0.7, 3 * 3_600_000);
    let recorder = await Recorder.open(fileStore(dir), { ...options, windowMs });
    for (const [index, build] of all.entries()) {
      if (index === 200) recorder = await Recorder.open(fileStore(dir), { ...options, windowMs });
      // A build that changed no export is no record, and drops nothing: the window is kept from each record's moment.
      if (!(await recorder.record(build)).recorded) continue;
      const segments = (await ArchiveReader.open(fileStore(dir))).segments;
      const windowStart = build.published.getTime() - windowMs;
      // The first segment kept holds the window's start; the one after it starts inside the window (or at its start).
      expect(Date.parse(segments[0]!.first!.published)).toBeLessThanOrEqual(
        Math.max(windowStart, all[0]!.published.getTime()),
      );
      if (segments[1]) expect(Date.parse(segments[1].first!.published)).toBeGreaterThanOrEqual(windowStart);
    }
    const last = all.at(-1)!.published.getTime();
    const reader = await ArchiveReader.open(fileStore(dir));
    expect(reader.segments.length).toBeGreaterThanOrEqual(10);
    expect(reader.segments.length).toBeLessThanOrEqual(12);
    for (const build of all.filter((b) => b.published.getTime() >= last - windowMs)) {
      const at = await reader.recordAt(build.published.getTime() + 1);
      for (const file of build.files) expect((await reader.stream(at!, file.file))?.equals(file.bytes)).toBe(true);
    }
    // What is gone is gone whole: nothing from the first days is found.
    expect(await reader.recordAt(all[8]!.published.getTime() + 1)).toBeUndefined();
    expect(await segmentFiles(dir)).not.toContain('2026-11-01-1.rfa');
    const verified = await verifyArchive(fileStore(dir), { rebuild: true });
    expect(verified.problems).toEqual([]);
  });

  it('stays within its budget on disk, the oldest days first, the newest always rebuildable', async () => {
    const dir = await stateDir();
    const budgetBytes = 40_000;
    // A year's window, so only the budget drops: twenty days of a build every hour.
    const all = builds(random(12), 480, Date.parse('2026-11-01T00:00:00Z'), 0.9, 3_600_000);
    const recorder = await Recorder.open(fileStore(dir), { ...options, windowMs: 365 * DAY, budgetBytes });
    let dropped = 0;
    let largest = 0;
    for (const build of all) {
      const before = await segmentFiles(dir);
      await recorder.record(build);
      const after = await segmentFiles(dir);
      if (after[0] !== before[0] && before.length > 0) dropped++;
      // Only the newest segment is never dropped, so the budget holds whenever there are two.
      const onDisk = await bytesOnDisk(dir);
      largest = Math.max(largest, onDisk);
      if (after.length > 1) expect(onDisk).toBeLessThanOrEqual(budgetBytes);
      const reader = await ArchiveReader.open(fileStore(dir));
      const at = await reader.recordAt(build.published.getTime() + 1);
      for (const file of build.files) expect((await reader.stream(at!, file.file))?.equals(file.bytes)).toBe(true);
    }
    expect(dropped).toBeGreaterThan(5);
    expect(largest).toBeGreaterThan(budgetBytes / 2);
    const verified = await verifyArchive(fileStore(dir), { rebuild: true });
    expect(verified.problems).toEqual([]);
    expect(verified.first?.seq).toBeGreaterThan(0);
  });
});
