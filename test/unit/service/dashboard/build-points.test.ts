// The builds chart's points across a restart: every recorded build is read back in order, a torn last line and lines
// older than 24 hours are left out (and trimmed from the file), a write that fails is said once and never throws.
// That the chart after a restart has every build, not only those the archive recorded: test/browser/dashboard.test.ts.
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildPointsPath, buildPointsWriter, readBuildPoints } from '../../../../src/service/dashboard/build-points.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
const stateDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-points-'));
  dirs.push(dir);
  return dir;
};
const start = Date.parse('2026-12-02T00:00:00Z');
const line = (seconds: number, n = 3) => ({
  t: new Date(start + seconds * 1000).toISOString(),
  ms: 40 + seconds,
  n,
  w: 1,
});
const quiet = () => {
  const said: string[] = [];
  return {
    said,
    log: { warn: (text: string) => said.push(`warn ${text}`), info: (text: string) => said.push(`info ${text}`) },
  };
};

describe('the build points', () => {
  it('are read back in order, without a torn last line', async () => {
    const dir = await stateDir();
    const { log } = quiet();
    const writer = buildPointsWriter(dir, log as never, new Date(start));
    for (let i = 0; i < 50; i++) writer.append(line(i * 30));
    await writer.idle();
    await appendFile(buildPointsPath(dir), '{"t":"2026-12-02T01:00:00.000Z","ms":4');
    const read = await readBuildPoints(dir, new Date(start + 3_600_000));
    expect(read).toEqual(Array.from({ length: 50 }, (_, i) => line(i * 30)));
  });

  it('keep 24 hours: older lines are not read, and an hour later they are gone from the file', async () => {
    const dir = await stateDir();
    const { log } = quiet();
    const writer = buildPointsWriter(dir, log as never, new Date(start));
    for (let hour = 0; hour <= 30; hour++) writer.append(line(hour * 3600));
    await writer.idle();
    const now = new Date(start + 30 * 3_600_000);
    const read = await readBuildPoints(dir, now);
    expect(read[0]).toEqual(line(6 * 3600));
    expect(read).toHaveLength(25);
    const onDisk = (await readFile(buildPointsPath(dir), 'utf8')).trim().split('\n');
    expect(onDisk.length).toBeLessThanOrEqual(26);
    expect(JSON.parse(onDisk[0]!).t >= new Date(start + 5 * 3_600_000).toISOString()).toBe(true);
  });

  it('never throw when the file cannot be written, say so once, and say when it works again', async () => {
    const dir = await stateDir();
    const { log, said } = quiet();
    const writer = buildPointsWriter(dir, log as never, new Date(start));
    // A file where the history folder should be: no one, root included, can write under it.
    await writeFile(join(dir, 'history'), '');
    for (let i = 1; i < 4; i++) writer.append(line(i));
    await writer.idle();
    await rm(join(dir, 'history'));
    writer.append(line(5));
    await writer.idle();
    expect(said).toEqual([
      expect.stringMatching(/^warn history: cannot keep the build points: .*(EEXIST|ENOTDIR)/),
      'info history: build points are written again',
    ]);
    expect(await readBuildPoints(dir, new Date(start + 60_000))).toEqual([line(5)]);
  });
});
