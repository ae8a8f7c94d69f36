// The files of `ratefile check FILE...`, one at a time, each report written before the next file is read. One file is
// checked in this thread; with more, each is checked in a worker thread of its own (check-worker.ts) that ends
// with it. Why: V8 frees a big file's garbage lazily and keeps its heap grown after it, so in one thread the peak
// RSS climbed with the count (2.5 MB file, --monitor moneyswap: 242 MB for 1 copy, 375 for 5, 465 for 21); a
// thread's heap goes with the thread. An explicit full GC between files did not help (437 MB for 5).
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { RatefileError, type ErrorCode } from '../base/errors.js';
import type { CheckResult, Verdict } from '../pure/check/index.js';
import type { Writer } from '../base/log.js';
import type { MonitorProfile } from '../model/monitor-profile.js';

/** What a worker is given: one target and everything the check and its part of the report need. */
export interface FileJob {
  target: string;
  cwd: string;
  timeoutMs: number;
  /** The User-Agent of a URL's fetch. */
  userAgent: string;
  strict: boolean;
  json: boolean;
  /** The first file of `--json`'s `files`: written without the comma before it. */
  first: boolean;
  codes?: ReadonlySet<string>;
  monitor?: MonitorProfile;
}

/** A piece of the file's report, then its verdict; or why the check could not run. */
export type FromWorker = { text: string } | { verdict: Verdict } | { failure: { message: string; code?: string } };

export interface CheckFilesOptions extends Omit<FileJob, 'target' | 'first'> {
  fetch: typeof globalThis.fetch;
}

/** Until a stream that refused more (write gave false) wants more again, or is gone. */
function drained(stream: Writer): Promise<void> {
  const events = stream as Partial<Pick<NodeJS.EventEmitter, 'once' | 'off'>>;
  if (typeof events.once !== 'function' || typeof events.off !== 'function') return Promise.resolve();
  const { once, off } = { once: events.once.bind(stream), off: events.off.bind(stream) };
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ['drain', 'close', 'error']) off(event, done);
      resolve();
    };
    for (const event of ['drain', 'close', 'error']) once(event, done);
  });
}

// The compiled worker beside this module (dist/commands/); absent when this module runs from its TypeScript source
// (the in-process tests), where every file is checked in this thread.
const workerFile = fileURLToPath(new URL('./check-worker.js', import.meta.url));
const workerReady = import.meta.url.endsWith('.js') && existsSync(workerFile);

/**
 * Whether a target is worth a worker: a URL (its size unknown) or a file of 256 KiB or more. A smaller file grows
 * this thread's heap little, and a worker costs about 0.3 s of CPU to start (it loads the checker): `check *.xml`
 * over a thousand small files stays quick. A file that cannot be read is checked here, which says why.
 */
async function wantsWorker(target: string, cwd: string): Promise<boolean> {
  if (/^https?:\/\//i.test(target)) return true;
  try {
    return (await stat(resolve(cwd, target))).size >= 256 * 1024;
  } catch {
    return false;
  }
}

/** One file in a worker thread: its report's pieces go to `write` as they come; its verdict when it ends. */
function checkInWorker(job: FileJob, write: (text: string) => void): Promise<Verdict> {
  return new Promise((resolve, reject) => {
    let verdict: Verdict | undefined;
    let failure: Error | undefined;
    // A young generation of 8 MB, not V8's default of up to 48: the worker's isolate comes on top of this thread's,
    // and the smaller nursery is what keeps the pair near one file's peak (plain 2.5 MB file, 5 copies: 129 MB
    // against 156 with the default; 1 copy in this thread 115). Measured no slower.
    const worker = new Worker(workerFile, { workerData: job, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    worker.on('message', (message: FromWorker) => {
      if ('text' in message) write(message.text);
      else if ('verdict' in message) verdict = message.verdict;
      else
        failure =
          message.failure.code === undefined
            ? new Error(message.failure.message)
            : new RatefileError(message.failure.code as ErrorCode, message.failure.message);
    });
    worker.on('error', (error) => (failure ??= error));
    worker.on('exit', (code) => {
      if (verdict !== undefined) resolve(verdict);
      else reject(failure ?? new Error(`the check of ${job.target} stopped (worker exit code ${code})`));
    });
  });
}

/** Checks every target in order and writes the report; true when every file passes. */
export async function checkFiles(
  targets: readonly string[],
  out: Writer,
  options: CheckFilesOptions,
): Promise<boolean> {
  // The report's writer alone when workers check: the checker's modules (and the code lists) load in them only.
  const { reportWriter } = await import('../pure/check/report.js');
  // Listened for from the write that was refused: a worker's report is written from its messages, and the stream
  // can drain before that file ends; waiting for 'drain' only then would wait for nothing (and the process would
  // end with the check unfinished).
  let refused: Promise<void> | undefined;
  const write = (text: string) => {
    if (out.write(text) === false) refused ??= drained(out);
  };
  const report = reportWriter(write, options.json);
  // A fetch of its own (the in-process tests' fake network) cannot cross into a worker.
  const inWorkers = targets.length > 1 && workerReady && options.fetch === globalThis.fetch;
  const { fetch, ...shared } = options;
  for (const target of targets) {
    if (inWorkers && (await wantsWorker(target, options.cwd)))
      report.written(await checkInWorker({ ...shared, target, first: report.files() === 0 }, write));
    else {
      const [{ checkTarget }, { everyWarningFails }] = await Promise.all([
        import('../io/check/target.js'),
        import('../pure/check/index.js'),
      ]);
      const checked: CheckResult = await checkTarget(target, {
        fetch,
        cwd: options.cwd,
        timeoutMs: options.timeoutMs,
        userAgent: options.userAgent,
        ...(options.codes ? { codes: options.codes } : {}),
        ...(options.monitor ? { monitor: options.monitor } : {}),
      });
      report.add(options.strict ? everyWarningFails(checked) : checked);
    }
    // A pipe read slowly (`| less`) would otherwise queue every file's report in memory.
    if (refused) await refused;
    refused = undefined;
  }
  return report.end();
}
