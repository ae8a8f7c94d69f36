// The fetches of the exports, whoever served them (the built-in server or nginx, by its access log): per export and
// monitor, the counts, the last fetch, the last failed one and a ring of the latest few. Bounded by the config
// (exports × monitors, each ring RING_SIZE long), never by the traffic. Pure: every time comes with its fetch.

/** One answered request for an export (or, from a monitor, for another path: export `other`). */
export interface Fetch {
  /** When it was answered (ms since the epoch). */
  at: number;
  /** The export's file name; `other` for a monitor's request of a path that is no export (its `path` says which). */
  export: string;
  path?: string;
  address: string;
  agent: string;
  status: number;
  /** The whole file (200, 206), a 304, or no body (HEAD, an error page). */
  body: 'full' | 'not-modified' | 'none';
  /** Body bytes sent. */
  bytes: number;
  /** The monitor it came from, by the config's patterns; absent: no monitor matched. */
  monitor?: string;
}

/** What a monitor was answered that is not a rate file, or undefined when it got the file (or a 304). */
export function fetchProblem(fetch: Pick<Fetch, 'status' | 'body' | 'bytes' | 'export'>): string | undefined {
  if (fetch.export === 'other') return `HTTP ${fetch.status}, not an export`;
  if (fetch.status === 304) return undefined;
  if (fetch.status === 200 || fetch.status === 206)
    return fetch.body === 'full' && fetch.bytes === 0 ? 'an empty body' : undefined;
  return `HTTP ${fetch.status}`;
}

export interface Tally {
  monitor?: string;
  export: string;
  fetches: number;
  /** Answered with the file, with 304, and with something else (fetchProblem). */
  full: number;
  notModified: number;
  failed: number;
  lastAt?: number;
  lastFailure?: { at: number; status: number; why: string };
  /** The latest fetches, oldest first, at most RING_SIZE. */
  recent: Fetch[];
}

export const RING_SIZE = 20;
const MAX_AGENT = 256;
const MAX_ADDRESS = 64;
const MAX_PATH = 200;

const keyOf = (monitor: string | undefined, file: string) => `${monitor ?? ''}\n${file}`;
const bounded = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

export class FetchLog {
  private readonly tallies = new Map<string, Tally>();
  private readonly exports: ReadonlySet<string>;
  private readonly monitors: ReadonlySet<string>;

  /** Only these exports and monitors are kept (plus `other` paths for monitors): the bound. */
  constructor(exports: Iterable<string>, monitors: Iterable<string>) {
    this.exports = new Set(exports);
    this.monitors = new Set(monitors);
  }

  /** Whether a fetch of this export by this monitor (undefined: none) is kept. */
  keeps(file: string, monitor: string | undefined): boolean {
    if (monitor !== undefined && !this.monitors.has(monitor)) return false;
    return this.exports.has(file) || (file === 'other' && monitor !== undefined);
  }

  /** Counts a fetch; false when it is of nothing kept. */
  record(input: Fetch): boolean {
    if (!this.keeps(input.export, input.monitor)) return false;
    const fetch: Fetch = {
      ...input,
      agent: bounded(input.agent, MAX_AGENT),
      address: bounded(input.address, MAX_ADDRESS),
      ...(input.path === undefined ? {} : { path: bounded(input.path, MAX_PATH) }),
    };
    const key = keyOf(fetch.monitor, fetch.export);
    const tally = this.tallies.get(key) ?? {
      ...(fetch.monitor === undefined ? {} : { monitor: fetch.monitor }),
      export: fetch.export,
      fetches: 0,
      full: 0,
      notModified: 0,
      failed: 0,
      recent: [],
    };
    const problem = fetchProblem(fetch);
    tally.fetches += 1;
    if (problem !== undefined) {
      tally.failed += 1;
      if (tally.lastFailure === undefined || fetch.at >= tally.lastFailure.at)
        tally.lastFailure = { at: fetch.at, status: fetch.status, why: problem };
    } else if (fetch.status === 304) tally.notModified += 1;
    else tally.full += 1;
    tally.lastAt = Math.max(tally.lastAt ?? fetch.at, fetch.at);
    tally.recent.push(fetch);
    if (tally.recent.length > RING_SIZE) tally.recent.splice(0, tally.recent.length - RING_SIZE);
    this.tallies.set(key, tally);
    return true;
  }

  tally(monitor: string | undefined, file: string): Tally | undefined {
    return this.tallies.get(keyOf(monitor, file));
  }

  all(): Tally[] {
    return [...this.tallies.values()];
  }

  /** The tallies as saved in the state folder. */
  toJSON(): Tally[] {
    return this.all();
  }

  /** Tallies read back from the state folder: entries of another shape, or of exports and monitors no longer configured, are left out. */
  restore(data: unknown): number {
    let left = 0;
    for (const entry of Array.isArray(data) ? (data as unknown[]) : []) {
      const tally = readTally(entry);
      if (!tally || !this.keeps(tally.export, tally.monitor)) {
        left += 1;
        continue;
      }
      this.tallies.set(keyOf(tally.monitor, tally.export), tally);
    }
    return left;
  }
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isText = (value: unknown): value is string => typeof value === 'string';

function readFetch(value: unknown): Fetch | undefined {
  const f = value as Partial<Record<keyof Fetch, unknown>> | null;
  if (typeof f !== 'object' || f === null) return undefined;
  if (!isCount(f.at) || !isText(f.export) || !isText(f.address) || !isText(f.agent) || !isCount(f.status))
    return undefined;
  if (f.body !== 'full' && f.body !== 'not-modified' && f.body !== 'none') return undefined;
  if (!isCount(f.bytes) || (f.monitor !== undefined && !isText(f.monitor))) return undefined;
  if (f.path !== undefined && !isText(f.path)) return undefined;
  return {
    at: f.at,
    export: f.export,
    ...(f.path === undefined ? {} : { path: bounded(f.path, MAX_PATH) }),
    address: bounded(f.address, MAX_ADDRESS),
    agent: bounded(f.agent, MAX_AGENT),
    status: f.status,
    body: f.body,
    bytes: f.bytes,
    ...(f.monitor === undefined ? {} : { monitor: f.monitor }),
  };
}

function readTally(value: unknown): Tally | undefined {
  const t = value as Partial<Record<keyof Tally, unknown>> | null;
  if (typeof t !== 'object' || t === null || !isText(t.export)) return undefined;
  if (t.monitor !== undefined && !isText(t.monitor)) return undefined;
  if (!isCount(t.fetches) || !isCount(t.full) || !isCount(t.notModified) || !isCount(t.failed)) return undefined;
  if (t.lastAt !== undefined && !isCount(t.lastAt)) return undefined;
  const failure = t.lastFailure as { at?: unknown; status?: unknown; why?: unknown } | undefined;
  if (failure !== undefined && (!isCount(failure.at) || !isCount(failure.status) || !isText(failure.why)))
    return undefined;
  const recent = (Array.isArray(t.recent) ? (t.recent as unknown[]) : [])
    .map(readFetch)
    .filter((fetch): fetch is Fetch => fetch !== undefined && fetch.export === t.export && fetch.monitor === t.monitor)
    .slice(-RING_SIZE);
  return {
    ...(t.monitor === undefined ? {} : { monitor: t.monitor }),
    export: t.export,
    fetches: t.fetches,
    full: t.full,
    notModified: t.notModified,
    failed: t.failed,
    ...(t.lastAt === undefined ? {} : { lastAt: t.lastAt }),
    ...(failure === undefined
      ? {}
      : {
          lastFailure: {
            at: failure.at as number,
            status: failure.status as number,
            why: bounded(failure.why as string, MAX_PATH),
          },
        }),
    recent,
  };
}
