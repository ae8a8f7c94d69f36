// Who reads the exports, for `ratefile start`: each fetch the built-in server answers, and each one nginx logs when
// `accessLog:` names its log, recorded (fetches.ts), attributed to the configured monitors, counted in /metrics, saved
// in the state folder (store.ts) and judged (watch.ts) for the alerts and the dashboard. service.ts only calls it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename } from 'node:path';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../../base/log.js';
import { redactSecrets } from '../../base/secrets.js';
import type { Config } from '../../model/config.js';
import type { MonitorConfig } from '../../model/readers.js';
import { monitorMatcher, plainAddress } from '../../pure/readers/addresses.js';
import { parseCombinedLine } from '../../pure/readers/combined.js';
import { FetchLog, type Fetch } from '../../pure/readers/fetches.js';
import { AccessLogReader } from '../../io/readers/nginx-log.js';
import { readReaders, SAVE_EVERY_MS, writeReaders } from '../../io/readers/store.js';
import { readersView, type ReadersView } from '../../pure/readers/view.js';
import { monitorProblems, monitorRecoveries, watchMonitors, type MonitorProblem } from '../../pure/readers/watch.js';

/** How often nginx's access log is read. */
export const LOG_READ_EVERY_MS = 2_000;

export type { ReadersView } from '../../pure/readers/view.js';

export interface Readers {
  /** Called for each request of the built-in server: an export (`file`), or another path that is no page (`file` undefined). */
  served(request: IncomingMessage, response: ServerResponse, path: string, file: string | undefined): void;
  /** The silent and failing monitors now (nginx's log read first), and what ended those that are not (by key). */
  problems(now: Date): Promise<{ problems: MonitorProblem[]; recoveries: Map<string, string> }>;
  view(now: Date): ReadersView;
  /** Reads nginx's log now (tests, and before a judgement). */
  readLog(): Promise<void>;
  stop(): Promise<void>;
}

const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

/** What the tracker keeps between calls: the fetches recorded and where nginx's log was read to. */
interface Tracker {
  config: Config;
  log: Logger;
  now: () => Date;
  monitors: readonly MonitorConfig[];
  /** The export files, as nginx's log lines name them (without the leading slash). */
  files: ReadonlySet<string>;
  fetches: FetchLog;
  attribute: (address: string, agent: string) => string | undefined;
  /** When watching began (ms): silence is judged from here. */
  since: number;
  reader: AccessLogReader | undefined;
  counted: Counter;
  /** Fetches recorded (or the log's offset moved) since the last save. */
  dirty: boolean;
  /** Why nginx's access log cannot be read now; undefined while it can. */
  logProblem: string | undefined;
  reading: Promise<void>;
  saving: Promise<void>;
}

export async function openReaders(options: {
  config: Config;
  log: Logger;
  now: () => Date;
  registry: Registry;
  /** Whether the built-in server answers (false: `--no-serve`). */
  serving: boolean;
}): Promise<Readers> {
  const tracker = await openTracker(options);
  await readLog(tracker);
  const timers = [
    setInterval(() => void save(tracker), SAVE_EVERY_MS),
    ...(tracker.reader ? [setInterval(() => void readLog(tracker), LOG_READ_EVERY_MS)] : []),
  ];
  for (const timer of timers) timer.unref();
  return {
    served: (request, response, path, file) => recordServed(tracker, request, response, path, file),
    problems: (now) => problems(tracker, now),
    view: (now) =>
      readersView(tracker.monitors, tracker.fetches, tracker.since, now, {
        sources: [...(options.serving ? ['server'] : []), ...(tracker.reader ? ['nginx'] : [])],
        ...(tracker.logProblem === undefined || !tracker.config.accessLog
          ? {}
          : { logProblem: `${basename(tracker.config.accessLog)}: ${tracker.logProblem}` }),
      }),
    readLog: () => readLog(tracker),
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await readLog(tracker);
      await save(tracker);
      await tracker.saving;
      await tracker.reader?.close();
    },
  };
}

/** The fetches saved in the state folder read back, nginx's log reopened where it was left, the metrics registered. */
async function openTracker(options: { config: Config; log: Logger; now: () => Date; registry: Registry }) {
  const { config, log } = options;
  const monitors = config.monitors ?? [];
  const files = config.exports.map((e) => e.file);
  const fetches = new FetchLog(
    files,
    monitors.map((m) => m.name),
  );
  const since = options.now().getTime();
  const saved = await readReaders(config.stateDir, fetches);
  if (saved.problem) log.warn(saved.problem, { event: 'readers' });
  const accessLog = config.accessLog;
  const tracker: Tracker = {
    config,
    log,
    now: options.now,
    monitors,
    files: new Set(files),
    fetches,
    attribute: monitorMatcher(monitors),
    since,
    reader: accessLog
      ? new AccessLogReader(accessLog, saved.position?.path === accessLog ? saved.position : undefined)
      : undefined,
    counted: fetchCounter(options.registry),
    // Saved once after start even with no fetch: `ratefile status` judges silence from this `since`.
    dirty: monitors.length > 0,
    logProblem: undefined,
    reading: Promise.resolve(),
    saving: Promise.resolve(),
  };
  monitorGauges(tracker, options.registry);
  return tracker;
}

function fetchCounter(registry: Registry): Counter {
  return new Counter({
    name: 'ratefile_export_fetches_total',
    help: 'Fetches of the exports seen (built-in server and nginx access log), by file, monitor (other: none matched) and status class.',
    labelNames: ['file', 'monitor', 'class'],
    registers: [registry],
  });
}

function monitorGauges(tracker: Tracker, registry: Registry): void {
  const { monitors, fetches, since } = tracker;
  new Gauge({
    name: 'ratefile_monitor_last_fetch_timestamp_seconds',
    help: 'When each configured monitor last fetched an export.',
    labelNames: ['monitor'],
    registers: [registry],
    collect() {
      for (const monitor of monitors) {
        const last = Math.max(
          ...fetches
            .all()
            .filter((t) => t.monitor === monitor.name && t.export !== 'other')
            .map((t) => t.lastAt ?? 0),
          0,
        );
        if (last > 0) this.set({ monitor: monitor.name }, last / 1000);
      }
    },
  });
  new Gauge({
    name: 'ratefile_monitor_ok',
    help: '1 when the monitor fetched within its window and got a rate file (or its window has not passed yet), else 0.',
    labelNames: ['monitor'],
    registers: [registry],
    collect() {
      const watches = watchMonitors(monitors, fetches, since, tracker.now().getTime());
      for (const monitor of monitors)
        this.set(
          { monitor: monitor.name },
          watches.some((w) => w.monitor === monitor.name && (w.state === 'silent' || w.state === 'failing')) ? 0 : 1,
        );
    },
  });
}

function record(tracker: Tracker, fetch: Fetch): void {
  if (!tracker.fetches.record(fetch)) return;
  tracker.dirty = true;
  tracker.counted.inc({
    file: redactSecrets(fetch.export),
    monitor: fetch.monitor ?? 'other',
    class: statusClass(fetch.status),
  });
}

/** A request of the built-in server, recorded once answered: an export, or another path a monitor asked. */
function recordServed(
  tracker: Tracker,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  file: string | undefined,
): void {
  const address = plainAddress(request.socket.remoteAddress ?? '');
  const agent = request.headers['user-agent'] ?? '';
  const monitor = tracker.attribute(address, agent);
  if (file === undefined && monitor === undefined) return;
  response.once('finish', () => {
    const status = response.statusCode;
    const head = request.method === 'HEAD';
    const length = Number(response.getHeader('content-length') ?? 0);
    record(tracker, {
      at: tracker.now().getTime(),
      export: file ?? 'other',
      ...(file === undefined ? { path } : {}),
      address,
      agent,
      status,
      body: status === 304 ? 'not-modified' : head || status >= 300 ? 'none' : 'full',
      bytes: status === 304 || head || !Number.isFinite(length) ? 0 : length,
      ...(monitor === undefined ? {} : { monitor }),
    });
  });
}

/** A line of nginx's access log, recorded when it fetched an export or a monitor sent it. */
function recordLine(tracker: Tracker, text: string): void {
  const line = parseCombinedLine(text);
  if (!line) return;
  const file = line.path.slice(1);
  const monitor = tracker.attribute(plainAddress(line.address), line.agent);
  const isExport = line.path.startsWith('/') && tracker.files.has(file);
  if (!isExport && monitor === undefined) return;
  record(tracker, {
    at: line.at,
    export: isExport ? file : 'other',
    ...(isExport ? {} : { path: line.path }),
    address: plainAddress(line.address),
    agent: line.agent,
    status: line.status,
    body: line.status === 304 ? 'not-modified' : line.method === 'HEAD' || line.status >= 300 ? 'none' : 'full',
    bytes: line.bytes,
    ...(monitor === undefined ? {} : { monitor }),
  });
}

/** nginx's new lines read (one read at a time); a log that cannot be read is logged when it starts and ends. */
function readLog(tracker: Tracker): Promise<void> {
  const { reader, log } = tracker;
  const accessLog = tracker.config.accessLog;
  if (!reader) return Promise.resolve();
  tracker.reading = tracker.reading.then(async () => {
    try {
      const before = reader.position()?.offset;
      await reader.read((text) => recordLine(tracker, text));
      // Saved when the offset moved (a rotation to an equal offset is saved with the next fetch).
      if (reader.position()?.offset !== before) tracker.dirty = true;
      if (tracker.logProblem !== undefined)
        log.info(`access log ${accessLog} is read again`, { event: 'readers', ok: true });
      tracker.logProblem = undefined;
    } catch (error) {
      const text = `${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
      if (tracker.logProblem === undefined)
        log.warn(
          `access log ${accessLog} cannot be read, fetches through nginx are not seen: ${(error as Error).message}`,
          {
            event: 'readers',
            ok: false,
          },
        );
      tracker.logProblem = text;
      await reader.close().catch(() => undefined);
    }
  });
  return tracker.reading;
}

/** The fetch records and the log's position saved when they changed (one save at a time; a failed one is retried). */
function save(tracker: Tracker): Promise<void> {
  if (!tracker.dirty) return tracker.saving;
  tracker.dirty = false;
  const { reader, config, log } = tracker;
  const accessLog = config.accessLog;
  tracker.saving = tracker.saving.then(() =>
    writeReaders(
      config.stateDir,
      tracker.fetches,
      reader && accessLog && reader.position() ? { path: accessLog, ...reader.position()! } : undefined,
      tracker.since,
    ).catch((error: unknown) => {
      tracker.dirty = true;
      log.warn(`readers: cannot save the fetch records: ${(error as Error).message}`, { event: 'readers' });
    }),
  );
  return tracker.saving;
}

async function problems(
  tracker: Tracker,
  now: Date,
): Promise<{ problems: MonitorProblem[]; recoveries: Map<string, string> }> {
  await readLog(tracker);
  const watches = watchMonitors(tracker.monitors, tracker.fetches, tracker.since, now.getTime());
  return {
    problems: monitorProblems(watches, tracker.since, now.getTime()),
    recoveries: monitorRecoveries(watches, tracker.fetches, tracker.since),
  };
}
