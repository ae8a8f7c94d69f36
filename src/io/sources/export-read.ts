// The `exportfile` source's read of a file as rates, off the main thread when the file is big: another exchanger's
// file of 80,000 items inside every bound (5 MB) costs seconds of checking (each item's findings) and reading, and
// on the main thread `start` would answer neither the exports nor /healthz meanwhile. A worker thread does it, with
// its own bounded heap that goes when it ends; only the items of the directions asked for come back. A small file
// is read here (a worker costs about 0.3 s of CPU to start), and so is every file when this module runs from its
// TypeScript source (the in-process tests), where no compiled worker lies beside it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { looksLikeJson } from '../../pure/check/json.js';
import { readExportRates, type ExportRate, type WantedItem } from '../../pure/sources/export-rates.js';
import { htmlPage, looksLikeHtml, utf8 } from '../../pure/sources/http-answer.js';
import { checkJsonBounds, JsonBoundsError } from '../../pure/sources/json-bounds.js';
import { xmlBoundsProblem } from './xml.js';

export interface ExportReadJob {
  bytes: Uint8Array;
  /** Over HTTP: the answer's Content-Type and status, for the words on an HTML page. */
  contentType?: string;
  status?: number;
  /** The directions asked for, `FROM>TO` (a city after `@` is matched later, on the items read). */
  directions: readonly string[];
}

export type ExportRead = { rates: ExportRate[] } | { problem: string };

/** Files from this size on are read in a worker. */
export const OFF_THREAD_BYTES = 64 * 1024;
/** The worker's heap: a 10 MB file (the size cap) of hostile items stays well within it. */
const WORKER_HEAP_MB = 768;

const workerFile = fileURLToPath(new URL('./export-worker.js', import.meta.url));
const workerReady = import.meta.url.endsWith('.js') && existsSync(workerFile);

/** The items wanted: those whose from and to are one of the directions asked for. */
export function wantedBy(directions: readonly string[]): WantedItem {
  const pairs = new Set(directions.map((direction) => direction.split('@')[0]));
  return (from, to) => pairs.has(`${from}>${to}`);
}

/** Why the bytes are no export file to read: an HTML page, empty, or past the bounds every source's answer has. */
function fileProblem({ bytes, contentType = '', status = 200 }: ExportReadJob): string | undefined {
  const text = utf8.decode(bytes);
  if (looksLikeHtml(contentType, text) && !/^\s*(<\?xml|<rates)/i.test(text))
    return `got ${htmlPage(text)} instead of an export file (HTTP ${status})`;
  if (text.trim() === '') return 'got an empty body instead of an export file';
  if (!looksLikeJson(text)) {
    const bounds = xmlBoundsProblem(text);
    return bounds === undefined ? undefined : `refused before parsing: ${bounds}`;
  }
  try {
    checkJsonBounds(text);
    return undefined;
  } catch (error) {
    if (error instanceof JsonBoundsError) return `refused before parsing: ${error.message}`;
    throw error;
  }
}

/** The job done where it runs: the file bounded, then checked and read. */
export function readExportFile(job: ExportReadJob): ExportRead {
  const problem = fileProblem(job);
  return problem === undefined ? readExportRates(job.bytes, wantedBy(job.directions)) : { problem };
}

/** The file's rates for these directions: in a worker when the file is big, else here. */
export function readWantedRates(job: ExportReadJob, signal: AbortSignal): Promise<ExportRead> {
  if (!workerReady || job.bytes.byteLength < OFF_THREAD_BYTES) return Promise.resolve(readExportFile(job));
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerFile, {
      workerData: job,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 8 },
    });
    let answer: ExportRead | undefined;
    let failure: Error | undefined;
    const stop = () => void worker.terminate();
    signal.addEventListener('abort', stop, { once: true });
    worker.on('message', (message: ExportRead) => (answer = message));
    worker.on('error', (error: Error & { code?: string }) => {
      failure =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new Error(`reading it needs more than the ${WORKER_HEAP_MB} MB allowed`)
          : error;
    });
    worker.on('exit', (code) => {
      signal.removeEventListener('abort', stop);
      if (answer !== undefined) resolve(answer);
      else if (signal.aborted) reject(signal.reason as Error);
      else reject(failure ?? new Error(`the reading stopped (worker exit code ${code})`));
    });
  });
}
