// Reserves are read in the I/O step before pricing, like quotes: every reserve source concurrently, reused within
// its `refresh`, and a reading older than its `maxAge` is never used (not even as a stand-in for a failed read).
import type { SourceConfig } from '../../model/config.js';
import { errorText, sourceContext } from '../quotes/source-ask.js';
import { sourceMaxAgeMs, sourceRefreshMs } from '../quotes/source-options.js';
import { reserveDefinition } from './index.js';
import type { ReserveBook, ReserveReading } from '../../model/reserve-source.js';
import type { ReserveReport } from '../../pure/status/report.js';

/** Last good readings per reserve source, kept across builds by the service; `ratefile build` has none. */
export class ReserveCache {
  readonly entries = new Map<string, { fingerprint: string; reading: ReserveReading; fetchedAt: number }>();
}

export interface ReserveFetchDeps {
  configDir: string;
  fetch: typeof globalThis.fetch;
  /** The User-Agent of the reserve sources' requests (the config's `userAgent`). */
  userAgent?: string;
  now: () => Date;
  signal?: AbortSignal;
  env: Readonly<Record<string, string | undefined>>;
  schedulePeriodMs: number;
  cache?: ReserveCache;
}

const clock = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

async function readSource(
  source: SourceConfig,
  deps: ReserveFetchDeps,
): Promise<{ report: ReserveReport; result: ReserveReading | { error: string } }> {
  const report: ReserveReport = { name: source.name, type: source.type, ok: false, entries: 0 };
  const now = deps.now().getTime();
  const maxAge = sourceMaxAgeMs(source, deps.schedulePeriodMs) ?? Number.POSITIVE_INFINITY;
  const fingerprint = JSON.stringify([source.type, source.options, deps.env.RATEFILE_HTTP_URL ?? null]);
  const cached = deps.cache?.entries.get(source.name);
  const entry = cached?.fingerprint === fingerprint ? cached : undefined;
  const fresh = (reading: ReserveReading) => now - reading.time.getTime() <= maxAge;
  const use = (reading: ReserveReading, fetchedAt: number, reused?: ReserveReport['reused']) => {
    Object.assign(
      report,
      { ok: true, entries: reading.entries.size, fetchedAt: new Date(fetchedAt) },
      reused ? { reused } : {},
    );
    return { report, result: reading };
  };
  if (entry && now - entry.fetchedAt < sourceRefreshMs(source) && fresh(entry.reading))
    return use(entry.reading, entry.fetchedAt, 'refresh');

  let failure: string;
  const definition = reserveDefinition(source.type);
  if (!definition) failure = `${source.name}: unknown reserve source type ${source.type}`;
  else {
    try {
      const reading = await definition.fetchReserves(source.options, sourceContext(source.name, deps));
      if (fresh(reading)) {
        deps.cache?.entries.set(source.name, { fingerprint, reading, fetchedAt: now });
        return use(reading, now);
      }
      failure = `${source.name}: reserves dated ${clock(reading.time.getTime())} are older than its maxAge (${Math.round(maxAge / 1000)} s)`;
    } catch (error) {
      failure = errorText(error);
    }
  }
  report.error = failure;
  // The last good reading stands in only while it is younger than maxAge; never an older value.
  if (entry && fresh(entry.reading)) {
    report.error = `${failure} (using its last good reserves, fetched ${clock(entry.fetchedAt)})`;
    return use(entry.reading, entry.fetchedAt, 'fallback');
  }
  return { report, result: { error: failure } };
}

/** Read every reserve source concurrently; a failing one is reported and withholds what needs it, never thrown. */
export async function fetchReserves(
  sources: readonly SourceConfig[],
  deps: ReserveFetchDeps,
): Promise<{ book: ReserveBook; reports: ReserveReport[] }> {
  const results = await Promise.all(sources.map((source) => readSource(source, deps)));
  return {
    book: new Map(results.map(({ report, result }) => [report.name, result])),
    reports: results.map((r) => r.report),
  };
}
