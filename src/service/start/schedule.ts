// The build schedule of `start`: node-cron with ratefile's logger, so every line the process writes follows
// `--log-format` and NO_COLOR (node-cron's own logger prints coloured `[NODE-CRON]` lines to the console); and the
// runner that keeps the schedule's builds and those a changed file starts (src/service/start/source-watch.ts) one at a time.
import cron, { type Logger as CronLogger, type ScheduledTask } from 'node-cron';
import type { Logger } from '../../base/log.js';

const text = (message: string | Error) => (message instanceof Error ? message.message : message);

/** node-cron's logger interface onto ours: its debug lines are dropped, the rest keep their level. */
export function cronLogger(log: Logger): CronLogger {
  return {
    info: (message) => log.info(`schedule: ${message}`),
    warn: (message) => log.warn(`schedule: ${message}`),
    error: (message, error) => log.error(`schedule: ${text(message)}${error ? `: ${error.message}` : ''}`),
    debug: () => undefined,
  };
}

/**
 * Run `task` on `expression`. Runs missed while the process was paused or blocked (SIGSTOP, a long parse) are
 * not made up: node-cron reports each missed slot at once when the process runs again, and they are logged as one
 * warning line, so an hour's pause at one build a second is one line, not 3,600.
 */
export function scheduleBuilds(expression: string, task: () => void, log: Logger): ScheduledTask {
  const scheduled = cron.schedule(expression, task, { name: 'ratefile-build', logger: cronLogger(log) });
  let missed: Date[] = [];
  scheduled.on('execution:missed', ({ date }) => {
    // node-cron emits the slots of one catch-up synchronously: they are gathered and reported once after it.
    if (missed.push(date) > 1) return;
    setImmediate(() => {
      const [first, last] = [missed[0]!, missed.at(-1)!];
      const count = missed.length;
      missed = [];
      const when =
        count === 1 ? `due at ${first.toISOString()}` : `due from ${first.toISOString()} to ${last.toISOString()}`;
      log.warn(
        `schedule: ${count === 1 ? 'a build' : `${count} builds`} ${when} did not run (the process was paused or busy); the schedule goes on`,
        {
          event: 'schedule-missed',
          missed: count,
        },
      );
    });
  });
  return scheduled;
}

export interface BuildRunner {
  /** A build now (the schedule's, or `rebuild()`), unless one is running: then that one is awaited. */
  build(): Promise<void>;
  /** Files changed: a build for them now, or, while one runs, one after it for all files changed meanwhile. */
  changed(files: readonly string[]): void;
  /** No build starts any more; resolves once the running one is done. */
  stop(): Promise<void>;
}

/**
 * Never two builds at once. A scheduled build while one runs is skipped with a warning (the schedule is tighter
 * than a build), except behind a build a change started: that one reads the files as they are now. Changes seen
 * during a build are coalesced into one build after it, however many there were.
 */
export function buildRunner(run: (changed?: readonly string[]) => Promise<void>, log: Logger): BuildRunner {
  let running: Promise<void> | undefined;
  let byChange = false;
  const waiting = new Set<string>();
  let stopped = false;
  const start = (changed?: readonly string[]): Promise<void> => {
    byChange = changed !== undefined;
    running = run(changed).finally(() => {
      running = undefined;
      if (waiting.size > 0) startChanged();
    });
    return running;
  };
  const startChanged = () => {
    if (running || stopped) return;
    const files = [...waiting];
    waiting.clear();
    void start(files);
  };
  return {
    build() {
      if (!running) return start();
      if (!byChange) log.warn('build skipped: the previous build is still running');
      return running;
    },
    changed(files) {
      for (const file of files) waiting.add(file);
      startChanged();
    },
    async stop() {
      stopped = true;
      while (running) await running;
    },
  };
}
