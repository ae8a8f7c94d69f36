// What the dashboard history's tests share: a fixed clock, one build's figures, rate maps, temp folders, a log.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { RatePair } from '../../../../src/service/dashboard/history.js';

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
