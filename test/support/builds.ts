// How many builds a running `ratefile start` has run and when, from what it serves and keeps: its log has a build
// line only when a build changed something, so its lines do not count builds.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pollUntil } from './http.js';

export async function buildsRun(base: string): Promise<number> {
  const text = await (await fetch(new URL('metrics', base))).text();
  const match = /^ratefile_builds_total (\d+)$/m.exec(text);
  if (match === null) throw new Error(`no ratefile_builds_total in /metrics:\n${text}`);
  return Number(match[1]);
}

/** Wait until at least `count` builds have run; returns how many have. */
export async function waitForBuildsRun(base: string, count: number, timeoutMs = 10_000): Promise<number> {
  return await pollUntil(async () => {
    const builds = await buildsRun(base);
    return builds >= count ? builds : undefined;
  }, timeoutMs);
}

/**
 * When each build of a `ratefile start` started, in ms, from the dashboard's history in its state folder
 * (`history/history.jsonl`: one line per build, written just after it; lines without `ms` are not builds).
 */
export async function buildTimes(stateDir: string): Promise<number[]> {
  const text = await readFile(join(stateDir, 'history', 'history.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { t: string; ms?: number })
    .filter((line) => line.ms !== undefined)
    .map((line) => Date.parse(line.t));
}
