// The recorder and the reader on real files: every recorded version of every export is rebuilt byte for byte at
// its moment; a restart picks up where the files end; a torn end is repaired and said; a store that refuses an
// append never fails the build and the record is appended once the store takes it.
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

function builds(next: Next, count: number, start: number, moves = 0.7): ArchiveBuild[] {
  let parser = xml(next, 5);
  let ref = xml(next, 3);
  return Array.from({ length: count }, (_, i) => {
    if (next() < moves) parser = xml(next, 4 + Math.floor(next() * 3));
    if (next() < 0.3) ref = xml(next, 3);
    const at = new Date(start + i * 60_000);
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
    let full = false;
    const disk: ArchiveDisk = {
      write: async (path, bytes) => {
        if (full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return realDisk.write(path, bytes);
      },
    };
    const all = builds(random(9), 8, Date.parse('2026-12-02T10:00:00Z'), 1);
    const recorder = await Recorder.open(fileStore(dir, disk), options);
    await recorder.record(all[0]!);
    full = true;
    for (const build of all.slice(1, 5))
      expect((await recorder.record(build)).warning).toMatch(/ENOSPC.*published, the record waits/);
    expect(recorder.state().pending).toBe(4);
    full = false;
    for (const build of all.slice(5)) expect((await recorder.record(build)).warning).toBeUndefined();
    const reader = await ArchiveReader.open(fileStore(dir));
    for (const build of all) {
      const at = await reader.recordAt(build.published.getTime());
      expect((await reader.stream(at!, 'parserfile.xml'))?.equals(build.files[0]!.bytes)).toBe(true);
    }
    expect((await verifyArchive(fileStore(dir))).problems).toEqual([]);
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
