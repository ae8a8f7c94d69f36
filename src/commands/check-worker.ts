// One file of `ratefile check FILE...`, checked in a worker thread (check-files.ts): the thread's isolate and heap
// go when it ends, so the next file starts from a small heap rather than from the one the largest file so far grew.
// The report is posted to the main thread, which alone writes to stdout, in order.
import { parentPort, workerData } from 'node:worker_threads';
import { checkTarget } from '../io/check/target.js';
import { everyWarningFails, verdictOf, writeFileReport } from '../pure/check/index.js';
import type { FileJob, FromWorker } from './check-files.js';

async function run(job: FileJob): Promise<void> {
  const post = (message: FromWorker) => parentPort?.postMessage(message);
  try {
    const checked = await checkTarget(job.target, {
      fetch: globalThis.fetch,
      cwd: job.cwd,
      timeoutMs: job.timeoutMs,
      userAgent: job.userAgent,
      ...(job.codes ? { codes: job.codes } : {}),
      ...(job.monitor ? { monitor: job.monitor } : {}),
    });
    const result = job.strict ? everyWarningFails(checked) : checked;
    writeFileReport(result, job.json, job.first, (text) => post({ text }));
    post({ verdict: verdictOf(result) });
  } catch (cause) {
    const error = cause as Error & { code?: string };
    post({ failure: { message: error.message, ...(typeof error.code === 'string' ? { code: error.code } : {}) } });
  }
}

await run(workerData as FileJob);
