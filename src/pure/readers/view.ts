// What the dashboard shows of who reads the exports: the configured monitors judged now, and the fetches recorded
// per monitor and export. Pure: the fetch records, the monitors and the clock in, the view out.
import type { MonitorConfig } from '../../model/readers.js';
import type { FetchLog } from './fetches.js';
import { redactValue } from '../../base/secrets.js';
import { watchMonitors, type MonitorState } from './watch.js';

export interface ReadersView {
  since: string;
  /** Where fetches are seen: `server` (the built-in one), `nginx` (its access log). */
  sources: string[];
  /** Why nginx's access log cannot be read now, if it cannot (its file name only). */
  logProblem?: string;
  monitors: {
    name: string;
    export?: string;
    state: MonitorState;
    windowSeconds: number;
    lastAt?: string;
    failure?: { at: string; status: number; why: string; export: string };
  }[];
  /** Per monitor (null: no monitor matched) and export. */
  fetches: {
    monitor: string | null;
    export: string;
    fetches: number;
    /** Share of the answers with the file or 304 that were 304 (0..1); null before any. */
    notModifiedShare: number | null;
    failed: number;
    lastAt?: string;
    lastFailure?: { at: string; status: number; why: string };
    agent?: string;
  }[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** `where`: where fetches are seen, and why nginx's log cannot be read now (if it cannot). */
export function readersView(
  monitors: readonly MonitorConfig[],
  fetches: FetchLog,
  since: number,
  now: Date,
  where: Pick<ReadersView, 'sources' | 'logProblem'>,
): ReadersView {
  const order = new Map(monitors.map((m, index) => [m.name, index]));
  const rows = fetches
    .all()
    .sort(
      (a, b) =>
        (order.get(a.monitor ?? '') ?? monitors.length) - (order.get(b.monitor ?? '') ?? monitors.length) ||
        a.export.localeCompare(b.export),
    );
  // A private export's name (a secret) and anything credential-like in a user agent are shown as ***.
  return redactValue({
    since: iso(since),
    ...where,
    monitors: watchMonitors(monitors, fetches, since, now.getTime()).map((w) => ({
      name: w.monitor,
      ...(w.export === undefined ? {} : { export: w.export }),
      state: w.state,
      windowSeconds: Math.round(w.windowMs / 1000),
      ...(w.lastAt === undefined ? {} : { lastAt: iso(w.lastAt) }),
      ...(w.failure ? { failure: { ...w.failure, at: iso(w.failure.at) } } : {}),
    })),
    fetches: rows.map((t) => {
      const answered = t.full + t.notModified;
      const last = t.recent.at(-1);
      return {
        monitor: t.monitor ?? null,
        export: t.export,
        fetches: t.fetches,
        notModifiedShare: answered === 0 ? null : t.notModified / answered,
        failed: t.failed,
        ...(t.lastAt === undefined ? {} : { lastAt: iso(t.lastAt) }),
        ...(t.lastFailure ? { lastFailure: { ...t.lastFailure, at: iso(t.lastFailure.at) } } : {}),
        ...(t.monitor !== undefined && last ? { agent: last.agent } : {}),
      };
    }),
  });
}
