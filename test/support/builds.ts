// How many builds a running `ratefile start` has run and when, from what it serves and keeps: its log has a build
// line only when a build changed something, so its lines do not count builds.
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
 * When each build of a `ratefile start` ended, in ms, from the dashboard's history (`/dashboard.json`'s `builds`:
 * one point per build, one per second at most for the last ten minutes).
 */
export async function buildTimes(base: string): Promise<number[]> {
  const response = await fetch(new URL('dashboard.json', base)).catch(() => undefined);
  if (!response?.ok) return [];
  const body = (await response.json()) as { builds?: [number, number, number][] };
  return (body.builds ?? []).map(([at]) => at);
}
