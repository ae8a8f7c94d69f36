// The watch from outside, for `ratefile start` with a `watch:` block: every `every`, each export's public copy is
// fetched as a monitor fetches it (probe's client: plain headers, a new connection, bounded in time and size) and
// judged against the versions this instance published (src/pure/watch/judge.ts). The state of each copy goes to the
// dashboard, /metrics, the alerts (`outside:<file>`) and `.ratefile/outside.json` (read by `ratefile status`).
import type { Gauge as GaugeType, Registry } from 'prom-client';
import { Gauge } from 'prom-client';
import { describeError } from '../../base/errors.js';
import type { Logger } from '../../base/log.js';
import { redactSecrets } from '../../base/secrets.js';
import type { WatchConfig } from '../../model/watch.js';
import { fetchOnce } from '../../io/probe/fetch.js';
import { loadProfiles } from '../../io/monitors/load.js';
import { readOutside, writeOutside, type OutsideSaved } from '../../io/watch/store.js';
import { contentTypeRules, type ContentTypeRule } from '../../pure/probe/classify.js';
import {
  copyAgeSeconds,
  judgeOutside,
  nextCheck,
  outsideProblems,
  outsideStates,
  rememberVersion,
  type OutsideCheck,
} from '../../pure/watch/judge.js';

/** What the dashboard shows of the watch. */
export interface OutsideView {
  everyMs: number;
  userAgent: string;
  slowAfterMs: number;
  /** Per watched export: its last check, or only its URL while none was made. */
  copies: (Pick<OutsideCheck, 'file' | 'url'> & Partial<OutsideCheck> & { ageSeconds?: number })[];
}

export interface OutsideWatch {
  /** After a build that published: each export's bytes now in the output folder, the latest version if new. */
  published(files: readonly { file: string; bytes: Uint8Array }[], at: Date): void;
  /** Fetch every public copy now (the timer does it every `every`; tests call it). */
  checkNow(): Promise<void>;
  view(now: Date): OutsideView;
  /** The copies other than `same` for `alertAfter` or longer. */
  problems(now: Date): { key: string; text: string; level: 'degraded' }[];
  stop(): Promise<void>;
}

interface Watching {
  config: WatchConfig;
  stateDir: string;
  log: Logger;
  now: () => Date;
  saved: OutsideSaved;
  /** The Content-Types the monitors' robots accept (the profiles' `contentType`). */
  contentTypes: readonly ContentTypeRule[];
  running: Promise<void> | undefined;
  saving: Promise<void>;
  stopped: boolean;
}

export async function openOutsideWatch(options: {
  config: WatchConfig;
  stateDir: string;
  log: Logger;
  now: () => Date;
  registry: Registry;
  /** false: no timer (tests call checkNow). Default true. */
  timer?: boolean;
}): Promise<OutsideWatch> {
  const { config } = options;
  const saved = await readOutside(options.stateDir);
  if (saved.problem) options.log.warn(saved.problem, { event: 'outside' });
  const watching: Watching = {
    config,
    stateDir: options.stateDir,
    log: options.log,
    now: options.now,
    saved: { versions: saved.versions, checks: saved.checks },
    contentTypes: contentTypeRules((await loadProfiles()).values()),
    running: undefined,
    saving: Promise.resolve(),
    stopped: false,
  };
  registerGauges(options.registry, watching);
  const round = () => (watching.running ??= checkAll(watching).finally(() => (watching.running = undefined)));
  // A round asked for while one runs waits for it and makes its own: what it finds is from after the asking.
  const checkNow = async () => {
    await watching.running;
    await round();
  };
  const timer = options.timer === false ? undefined : setInterval(() => void round(), config.everyMs);
  timer?.unref();
  return {
    published(files, at) {
      let changed = false;
      for (const { file, bytes } of files) {
        if (!(file in config.exports)) continue;
        const before = watching.saved.versions[file] ?? [];
        const after = rememberVersion(before, bytes, at.toISOString(), config.keep);
        if (after.length !== before.length || after.at(-1)?.sha256 !== before.at(-1)?.sha256) {
          watching.saved.versions[file] = after;
          changed = true;
        }
      }
      if (changed) save(watching);
    },
    checkNow,
    view: (now) => outsideView(watching, now),
    problems: (now) =>
      outsideProblems(currentChecks(watching), config.alertAfterMs, now).map((problem) => ({
        ...problem,
        text: redactSecrets(problem.text),
      })),
    async stop() {
      watching.stopped = true;
      clearInterval(timer);
      await watching.running;
      await watching.saving;
    },
  };
}

/** The checks of the exports watched now (a file dropped from `watch:` is not shown from the saved file). */
const currentChecks = (watching: Watching): OutsideCheck[] =>
  Object.keys(watching.config.exports).flatMap((file) => watching.saved.checks[file] ?? []);

/** One round: every public copy fetched at once, each judged, the state saved; a failure is a state, never a throw. */
async function checkAll(watching: Watching): Promise<void> {
  const { config } = watching;
  await Promise.all(
    Object.entries(config.exports).map(async ([file, url]) => {
      const fetched = await fetchOnce(new URL(url), {
        userAgent: config.userAgent,
        timeoutMs: config.timeoutMs,
        maxBytes: config.maxBytes,
        maxRedirects: 3,
      });
      const versions = watching.saved.versions[file] ?? [];
      const judged = judgeOutside(fetched, versions, config.slowAfterMs, watching.contentTypes);
      const previous = watching.saved.checks[file];
      const check = nextCheck(previous, judged, { file, url }, watching.now().toISOString());
      watching.saved.checks[file] = check;
      if (previous?.state !== check.state) logChange(watching.log, check);
    }),
  );
  if (!watching.stopped) save(watching);
}

function logChange(log: Logger, check: OutsideCheck): void {
  const line = redactSecrets(`outside: ${check.file} is ${check.state}: ${check.detail} (${check.url})`);
  if (check.state === 'same') log.info(line, { event: 'outside', ok: true, file: check.file });
  else log.warn(line, { event: 'outside', ok: false, file: check.file, state: check.state });
}

/** Saves queued one after another, so an older state never lands after a newer one. */
function save(watching: Watching): void {
  watching.saving = watching.saving.then(() =>
    writeOutside(watching.stateDir, watching.saved).catch((error: unknown) =>
      watching.log.warn(`outside: ${describeError(error)}`, { event: 'outside' }),
    ),
  );
}

function outsideView(watching: Watching, now: Date): OutsideView {
  const { config } = watching;
  return {
    everyMs: config.everyMs,
    userAgent: config.userAgent,
    slowAfterMs: config.slowAfterMs,
    copies: Object.entries(config.exports).map(([file, url]) => {
      const check = watching.saved.checks[file];
      if (!check) return { file, url };
      const age = copyAgeSeconds(check, now);
      return { ...check, url, ...(age === undefined ? {} : { ageSeconds: age }) };
    }),
  };
}

/** A gauge per export and state (1 for the state now), the copy's age and the fetch's time, read at each scrape. */
function registerGauges(registry: Registry, watching: Watching): void {
  const registers = [registry];
  const each = (set: (check: OutsideCheck, file: string) => void) => {
    for (const check of currentChecks(watching)) set(check, redactSecrets(check.file));
  };
  new Gauge({
    name: 'ratefile_outside_state',
    help: 'The public copy of each watched export (watch:): 1 for its state now (same, older, challenge, error, slow), 0 for the others.',
    labelNames: ['file', 'state'],
    registers,
    collect(this: GaugeType) {
      this.reset();
      each((check, file) => {
        for (const state of outsideStates) this.set({ file, state }, state === check.state ? 1 : 0);
      });
    },
  });
  new Gauge({
    name: 'ratefile_outside_copy_age_seconds',
    help: 'Seconds since the build that made the public copy ran (absent when the copy is none of ours).',
    labelNames: ['file'],
    registers,
    collect(this: GaugeType) {
      this.reset();
      const now = watching.now();
      each((check, file) => {
        const age = copyAgeSeconds(check, now);
        if (age !== undefined) this.set({ file }, age);
      });
    },
  });
  new Gauge({
    name: 'ratefile_outside_builds_behind',
    help: 'How many builds behind the latest the public copy is (0: the latest).',
    labelNames: ['file'],
    registers,
    collect(this: GaugeType) {
      this.reset();
      each((check, file) => {
        if (typeof check.behind === 'number') this.set({ file }, check.behind);
      });
    },
  });
  new Gauge({
    name: 'ratefile_outside_fetch_seconds',
    help: 'How long the last fetch of the public copy took, body included.',
    labelNames: ['file'],
    registers,
    collect(this: GaugeType) {
      this.reset();
      each((check, file) => this.set({ file }, check.ms / 1000));
    },
  });
}
