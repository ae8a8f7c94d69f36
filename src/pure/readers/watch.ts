// How the expected monitors stand, from the fetch log and the clock: each fetched within its window, or silent, or
// last answered with something other than a rate file; as problems for the alerts and as rows for the dashboard. Pure.
import { age } from '../../base/words.js';
import type { MonitorConfig } from '../../model/readers.js';
import { fetchProblem, type Fetch, type FetchLog, type Tally } from './fetches.js';

export type MonitorState = 'ok' | 'waiting' | 'silent' | 'failing';

/** One expected monitor on one export it reads (`export` absent: any export). */
export interface MonitorWatch {
  monitor: string;
  export?: string;
  state: MonitorState;
  windowMs: number;
  lastAt?: number;
  /** The latest answer it got, when that was not a rate file. */
  failure?: { at: number; status: number; why: string; export: string };
}

/** The latest of the fetches in these tallies. */
function latest(tallies: readonly Tally[]): Fetch | undefined {
  let found: Fetch | undefined;
  for (const tally of tallies) {
    const last = tally.recent.at(-1);
    if (last && (!found || last.at >= found.at)) found = last;
  }
  return found;
}

/**
 * Each expected monitor on each export it reads. `since`: when watching began (a monitor never seen is silent once
 * its window has passed since then).
 */
export function watchMonitors(
  monitors: readonly MonitorConfig[],
  log: FetchLog,
  since: number,
  now: number,
): MonitorWatch[] {
  const all = log.all();
  return monitors.flatMap((monitor) => {
    const own = all.filter((tally) => tally.monitor === monitor.name);
    const targets: readonly (string | undefined)[] = monitor.exports ?? [undefined];
    return targets.map((file) => {
      const exports = own.filter((tally) => (file === undefined ? tally.export !== 'other' : tally.export === file));
      const lastAt = latest(exports)?.at;
      // Its latest request of anything, a wrong path included, says whether it gets a rate file.
      const last = latest(file === undefined ? own : exports);
      const why = last ? fetchProblem(last) : undefined;
      const silent = now - (lastAt ?? since) > monitor.windowMs;
      const state: MonitorState = why ? 'failing' : silent ? 'silent' : lastAt === undefined ? 'waiting' : 'ok';
      return {
        monitor: monitor.name,
        ...(file === undefined ? {} : { export: file }),
        state,
        windowMs: monitor.windowMs,
        ...(lastAt === undefined ? {} : { lastAt }),
        ...(last && why
          ? { failure: { at: last.at, status: last.status, why, export: last.path ?? last.export } }
          : {}),
      };
    });
  });
}

export interface MonitorProblem {
  key: string;
  text: string;
  /**
   * How bad it is, for the alert's level (health does not count monitors): a silent monitor may be the monitor's
   * own outage, so degraded; one answered with no rate file delists us for a fault of ours, so failing.
   */
  level: 'degraded' | 'failing';
}

/** Silent and failing monitors as alert problems: each starts when it begins and ends when the monitor fetches fine. */
export function monitorProblems(watches: readonly MonitorWatch[], since: number, now: number): MonitorProblem[] {
  return watches.flatMap((watch) => {
    const where = watch.export ?? 'any export';
    const key = `${watch.monitor}${watch.export === undefined ? '' : `:${watch.export}`}`;
    const problems: MonitorProblem[] = [];
    const silentFor = now - (watch.lastAt ?? since);
    if (silentFor > watch.windowMs)
      problems.push({
        key: `monitor-silent:${key}`,
        level: 'degraded',
        text:
          watch.lastAt === undefined
            ? `monitor ${watch.monitor} has not fetched ${where} in the ${age(silentFor / 1000)} since ratefile began watching (window ${age(watch.windowMs / 1000)})`
            : `monitor ${watch.monitor} has not fetched ${where} for ${age(silentFor / 1000)} (window ${age(watch.windowMs / 1000)}), last at ${new Date(watch.lastAt).toISOString()}`,
      });
    if (watch.failure)
      problems.push({
        key: `monitor-answer:${key}`,
        level: 'failing',
        text: `monitor ${watch.monitor} was answered ${watch.failure.why} for ${watch.failure.export} at ${new Date(watch.failure.at).toISOString()}`,
      });
    return problems;
  });
}

/**
 * What ends each monitor problem that is not one now, by its key: the fetch that ended the silence and how long
 * the silence was (the longest gap over the window among the recent fetches, or since watching began), and the
 * rate file a monitor got again. An alert's end then says what happened, not the problem's last text.
 */
export function monitorRecoveries(watches: readonly MonitorWatch[], log: FetchLog, since: number): Map<string, string> {
  const recoveries = new Map<string, string>();
  const all = log.all();
  for (const watch of watches) {
    if (watch.lastAt === undefined) continue;
    const where = watch.export ?? 'any export';
    const key = `${watch.monitor}${watch.export === undefined ? '' : `:${watch.export}`}`;
    const times = all
      .filter(
        (t) =>
          t.monitor === watch.monitor &&
          (watch.export === undefined ? t.export !== 'other' : t.export === watch.export),
      )
      .flatMap((t) => t.recent.map((fetch) => fetch.at))
      .sort((a, b) => a - b);
    let gap: { from: number; to: number; first: boolean } | undefined;
    times.forEach((at, i) => {
      const from = i === 0 ? since : times[i - 1]!;
      if (at - from > watch.windowMs) gap = { from, to: at, first: i === 0 };
    });
    const again = gap
      ? `monitor ${watch.monitor} fetched ${where} again at ${new Date(gap.to).toISOString()}, after ${age((gap.to - gap.from) / 1000)} ${gap.first ? 'since ratefile began watching' : 'without a fetch'} (window ${age(watch.windowMs / 1000)})`
      : `monitor ${watch.monitor} fetched ${where} again, last at ${new Date(watch.lastAt).toISOString()}`;
    // Read only for a problem that has ended: set for every watch with a fetch.
    recoveries.set(`monitor-silent:${key}`, again);
    recoveries.set(
      `monitor-answer:${key}`,
      `monitor ${watch.monitor} got a rate file again for ${where}, last at ${new Date(watch.lastAt).toISOString()}`,
    );
  }
  return recoveries;
}
