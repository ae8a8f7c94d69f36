// Who reads the exports, for `ratefile start`: each fetch the built-in server answers, and each one nginx logs when
// `accessLog:` names its log, recorded (fetches.ts), attributed to the configured monitors, counted in /metrics, saved
// in the state folder (store.ts) and judged (watch.ts) for the alerts and the dashboard. service.ts only calls it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename } from 'node:path';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../log.js';
import { redactSecrets, redactValue } from '../secrets.js';
import type { Config } from '../model.js';
import { monitorMatcher, plainAddress } from './addresses.js';
import { parseCombinedLine } from './combined.js';
import { FetchLog, type Fetch } from './fetches.js';
import { AccessLogReader } from './nginx-log.js';
import { readReaders, SAVE_EVERY_MS, writeReaders } from './store.js';
import { monitorProblems, monitorRecoveries, watchMonitors, type MonitorProblem, type MonitorState } from './watch.js';

/** How often nginx's access log is read. */
export const LOG_READ_EVERY_MS = 2_000;

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
const iso = (ms: number) => new Date(ms).toISOString();

export async function openReaders(options: {
  config: Config;
  log: Logger;
  now: () => Date;
  registry: Registry;
  /** Whether the built-in server answers (false: `--no-serve`). */
  serving: boolean;
}): Promise<Readers> {
  const { config, log } = options;
  const monitors = config.monitors ?? [];
  const files = config.exports.map((e) => e.file);
  const fetches = new FetchLog(
    files,
    monitors.map((m) => m.name),
  );
  const attribute = monitorMatcher(monitors);
  const since = options.now().getTime();
  const saved = await readReaders(config.stateDir, fetches);
  if (saved.problem) log.warn(saved.problem, { event: 'readers' });
  const accessLog = config.accessLog;
  const reader = accessLog
    ? new AccessLogReader(accessLog, saved.position?.path === accessLog ? saved.position : undefined)
    : undefined;
  // Saved once after start even with no fetch: `ratefile status` judges silence from this `since`.
  let dirty = monitors.length > 0;
  let logProblem: string | undefined;

  const registers = [options.registry];
  const counted = new Counter({
    name: 'ratefile_export_fetches_total',
    help: 'Fetches of the exports seen (built-in server and nginx access log), by file, monitor (other: none matched) and status class.',
    labelNames: ['file', 'monitor', 'class'],
    registers,
  });
  new Gauge({
    name: 'ratefile_monitor_last_fetch_timestamp_seconds',
    help: 'When each configured monitor last fetched an export.',
    labelNames: ['monitor'],
    registers,
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
    registers,
    collect() {
      const watches = watchMonitors(monitors, fetches, since, options.now().getTime());
      for (const monitor of monitors)
        this.set(
          { monitor: monitor.name },
          watches.some((w) => w.monitor === monitor.name && (w.state === 'silent' || w.state === 'failing')) ? 0 : 1,
        );
    },
  });

  const record = (fetch: Fetch) => {
    if (!fetches.record(fetch)) return;
    dirty = true;
    counted.inc({
      file: redactSecrets(fetch.export),
      monitor: fetch.monitor ?? 'other',
      class: statusClass(fetch.status),
    });
  };

  const exportsByPath = new Set(files);
  const fromLine = (text: string) => {
    const line = parseCombinedLine(text);
    if (!line) return;
    const file = line.path.slice(1);
    const monitor = attribute(plainAddress(line.address), line.agent);
    const isExport = line.path.startsWith('/') && exportsByPath.has(file);
    if (!isExport && monitor === undefined) return;
    record({
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
  };

  let reading = Promise.resolve();
  const readLog = (): Promise<void> => {
    if (!reader) return Promise.resolve();
    reading = reading.then(async () => {
      try {
        const before = reader.position()?.offset;
        await reader.read(fromLine);
        // Saved when the offset moved (a rotation to an equal offset is saved with the next fetch).
        if (reader.position()?.offset !== before) dirty = true;
        if (logProblem !== undefined) log.info(`access log ${accessLog} is read again`, { event: 'readers', ok: true });
        logProblem = undefined;
      } catch (error) {
        const text = `${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
        if (logProblem === undefined)
          log.warn(
            `access log ${accessLog} cannot be read, fetches through nginx are not seen: ${(error as Error).message}`,
            {
              event: 'readers',
              ok: false,
            },
          );
        logProblem = text;
        await reader.close().catch(() => undefined);
      }
    });
    return reading;
  };

  let saving = Promise.resolve();
  const save = (): Promise<void> => {
    if (!dirty) return saving;
    dirty = false;
    saving = saving.then(() =>
      writeReaders(
        config.stateDir,
        fetches,
        reader && accessLog && reader.position() ? { path: accessLog, ...reader.position()! } : undefined,
        since,
      ).catch((error: unknown) => {
        dirty = true;
        log.warn(`readers: cannot save the fetch records: ${(error as Error).message}`, { event: 'readers' });
      }),
    );
    return saving;
  };

  await readLog();
  const timers = [
    setInterval(() => void save(), SAVE_EVERY_MS),
    ...(reader ? [setInterval(() => void readLog(), LOG_READ_EVERY_MS)] : []),
  ];
  for (const timer of timers) timer.unref();

  return {
    served(request, response, path, file) {
      const address = plainAddress(request.socket.remoteAddress ?? '');
      const agent = request.headers['user-agent'] ?? '';
      const monitor = attribute(address, agent);
      if (file === undefined && monitor === undefined) return;
      response.once('finish', () => {
        const status = response.statusCode;
        const head = request.method === 'HEAD';
        const length = Number(response.getHeader('content-length') ?? 0);
        record({
          at: options.now().getTime(),
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
    },
    async problems(now) {
      await readLog();
      const watches = watchMonitors(monitors, fetches, since, now.getTime());
      return {
        problems: monitorProblems(watches, since, now.getTime()),
        recoveries: monitorRecoveries(watches, fetches, since),
      };
    },
    view(now) {
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
        sources: [...(options.serving ? ['server'] : []), ...(reader ? ['nginx'] : [])],
        ...(logProblem === undefined || !accessLog ? {} : { logProblem: `${basename(accessLog)}: ${logProblem}` }),
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
    },
    readLog,
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await readLog();
      await save();
      await saving;
      await reader?.close();
    },
  };
}
