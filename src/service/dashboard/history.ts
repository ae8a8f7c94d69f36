// Rate history for the dashboard's charts: what each build published, kept 24 hours. Pure: lines in, series
// out, and the trim and downsampling that bound its size. Nothing is written: on start it is read back from the
// archive (archive-history.ts), which keeps every build.

/** One line of the history: a build, and the directions whose rates changed in it. */
export interface HistoryLine {
  /** When the build started (ISO). */
  t: string;
  /** Build duration (ms), directions published and withheld; absent on a line written by a compaction alone. */
  ms?: number;
  n?: number;
  w?: number;
  /** Direction id → [published, market] in the published form (`in:out`), or null: not published from then on. */
  r?: Record<string, RatePair | null>;
}

export type RatePair = readonly [published: string, market: string];

export interface BuildPoint {
  at: number;
  durationMs: number;
  published: number;
  withheld: number;
}

export interface RatePoint {
  at: number;
  /** Null while the direction is not published. */
  value: RatePair | null;
}

export const HISTORY_MS = 24 * 60 * 60 * 1000;
/** Points within this of the newest build stay one per minute; older ones one per 15 minutes (a day is 96 of them). */
const RECENT_MS = 10 * 60 * 1000;
const MINUTE_MS = 60 * 1000;
const BUCKET_MS = 15 * 60 * 1000;
/** Builds within RECENT_MS stay one per second (the finest schedule), older ones one per 30 seconds. */
const SECOND_MS = 1000;
const BUILD_BUCKET_MS = 30 * 1000;
/** The history is compacted in memory after this much build time or this many lines, whichever comes first. */
const COMPACT_AFTER_MS = 60 * 1000;
const COMPACT_AFTER_LINES = 120;

/**
 * What the history holds at most, whatever the schedule: builds one per 30 s for the day, one per second for
 * the recent ten minutes, plus what is added between two compactions in memory; a direction's series one per
 * 15 minutes for the day, one per minute for the recent ten, the cut, and what is added between compactions.
 */
export const HISTORY_BOUND = {
  builds: HISTORY_MS / BUILD_BUCKET_MS + RECENT_MS / SECOND_MS + COMPACT_AFTER_LINES + 2,
  pointsPerDirection: HISTORY_MS / BUCKET_MS + RECENT_MS / MINUTE_MS + COMPACT_AFTER_LINES + 2,
} as const;

const same = (a: RatePair | null | undefined, b: RatePair | null | undefined) =>
  a === b || (!!a && !!b && a[0] === b[0] && a[1] === b[1]);

export class History {
  readonly builds: BuildPoint[] = [];
  readonly series = new Map<string, RatePoint[]>();
  private compactedAt = -Infinity;
  private linesSinceCompact = 0;

  /**
   * Take a build's line in as it happens, and compact in memory once a minute of builds or 120 lines have
   * come in: what the history holds is bounded by HISTORY_BOUND, not by the schedule.
   */
  add(line: HistoryLine): void {
    this.apply(line);
    const at = Date.parse(line.t);
    this.linesSinceCompact += 1;
    if (at - this.compactedAt >= COMPACT_AFTER_MS || this.linesSinceCompact >= COMPACT_AFTER_LINES) {
      this.compact(new Date(at));
    }
  }

  /** The line a build adds: its figures, and only the directions whose published or market rate changed. */
  lineFor(
    at: Date,
    build: { durationMs: number; published: number; withheld: number },
    rates: ReadonlyMap<string, RatePair>,
  ): HistoryLine {
    const changed: Record<string, RatePair | null> = {};
    for (const [id, pair] of rates) if (!same(this.series.get(id)?.at(-1)?.value, pair)) changed[id] = pair;
    for (const [id, points] of this.series) if (!rates.has(id) && points.at(-1)?.value !== null) changed[id] = null;
    const line: HistoryLine = { t: at.toISOString(), ms: build.durationMs, n: build.published, w: build.withheld };
    return Object.keys(changed).length > 0 ? { ...line, r: changed } : line;
  }

  /** Take a line in (from the file on start, or from lineFor); a line older than the newest is out of order and ignored. */
  apply(line: HistoryLine): void {
    const at = Date.parse(line.t);
    if (Number.isNaN(at)) return;
    if (line.ms !== undefined && line.n !== undefined) {
      if ((this.builds.at(-1)?.at ?? -Infinity) < at)
        this.builds.push({ at, durationMs: line.ms, published: line.n, withheld: line.w ?? 0 });
    }
    for (const [id, value] of Object.entries(line.r ?? {})) {
      const points = this.series.get(id) ?? this.series.set(id, []).get(id)!;
      if ((points.at(-1)?.at ?? -Infinity) > at) continue;
      points.push({ at, value });
    }
  }

  /**
   * Forget what is older than 24 hours before `now` (a direction's last value before the cut is kept at the
   * cut, so its line starts there), and thin older points: the last value per minute in the recent ten minutes,
   * per 15 minutes before that. The builds are kept one per second in the recent ten minutes and one per 30
   * seconds before (the slowest of each: 2,880 a day, one per build at a 30-second schedule).
   */
  compact(now: Date): void {
    this.compactedAt = now.getTime();
    this.linesSinceCompact = 0;
    const cut = now.getTime() - HISTORY_MS;
    const recent = now.getTime() - RECENT_MS;
    const builds: BuildPoint[] = [];
    for (const build of this.builds) {
      if (build.at < cut) continue;
      const width = build.at >= recent ? SECOND_MS : BUILD_BUCKET_MS;
      const last = builds.at(-1);
      if (last && Math.floor(last.at / width) === Math.floor(build.at / width)) {
        if (build.durationMs > last.durationMs) builds[builds.length - 1] = build;
      } else builds.push(build);
    }
    this.builds.splice(0, this.builds.length, ...builds);
    for (const [id, points] of this.series) {
      // The value the direction had at the cut starts its line there; it is never merged with what follows.
      const before = points.filter((point) => point.at <= cut).at(-1);
      const thinned: RatePoint[] = before ? [{ at: cut, value: before.value }] : [];
      const fixed = thinned.length;
      for (const point of points) {
        if (point.at <= cut) continue;
        const width = point.at >= recent ? MINUTE_MS : BUCKET_MS;
        const last = thinned.at(-1);
        // Same bucket as the point before: the later value replaces it (at the earlier time, so the line keeps its start).
        if (last && thinned.length > fixed && Math.floor(last.at / width) === Math.floor(point.at / width))
          last.value = point.value;
        else thinned.push({ at: point.at, value: point.value });
      }
      // Drop repeats the thinning made, and a direction not published for the whole day.
      const kept = thinned.filter((point, index) => index === 0 || !same(thinned[index - 1]!.value, point.value));
      if (kept.every((point) => point.value === null)) this.series.delete(id);
      else this.series.set(id, kept);
    }
  }
}
