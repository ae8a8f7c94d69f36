// What the dashboard history's tests share: a fixed clock, one build's figures, rate maps, temp folders, a log.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { RatePair } from '../../../../src/service/dashboard/history.js';
import { fileStore } from '../../../../src/io/archive/files.js';
import { Recorder } from '../../../../src/io/archive/recorder.js';

export const t0 = Date.parse('2026-11-21T00:00:00Z');
export const at = (ms: number) => new Date(t0 + ms);
export const figures = { durationMs: 12, published: 2, withheld: 0 };
export const rates = (entries: Record<string, RatePair>) => new Map(Object.entries(entries));

/** Temp folders removed after each test; called at a test file's top level (with `isolate: false` a module
 * imported by two files is evaluated once, so a hook registered at import would serve only the first). */
export function tempFolders(): () => Promise<string> {
  const folders: string[] = [];
  afterEach(async () => {
    await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-history-'));
    folders.push(dir);
    return dir;
  };
}
export const quiet = { warn: () => undefined, info: () => undefined };
export const quietLog = () => {
  const lines: string[] = [];
  return { lines, warn: (message: string) => void lines.push(message) };
};

/** Build i as the archive records it: A>B's rate moving, C>D paused, one export changed. */
export const archiveBuild = (i: number) => ({
  at: at(i * 1000),
  published: at(i * 1000 + 100),
  id: `b${i}`,
  ms: 12,
  counts: { published: 1, withheld: 1 },
  files: [{ file: 'parserfile.xml', bytes: Buffer.from(`<rates><item><out>${10 + i}</out></item></rates>`) }],
  removed: [],
  state: `{"d":"A>B","r":"1:1","m":"1:${10 + i}"}\n{"d":"C>D","w":"paused","why":"paused"}\n`,
});

/** An archive in `dir` with a window and budget no test reaches. */
export const recorderIn = (dir: string) =>
  Recorder.open(fileStore(dir), { windowMs: 30 * 86_400_000, budgetBytes: 1 << 30, log: quiet });
