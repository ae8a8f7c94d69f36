// The worker thread of src/io/sources/export-read.ts: one export file read as rates (its bounds, the check, then the
// items of the directions asked for), posted back to the source. Its heap goes with it: a big file's findings and items
// never grow the service's own.
import { parentPort, workerData } from 'node:worker_threads';
import { readExportFile, type ExportReadJob } from './export-read.js';

parentPort?.postMessage(readExportFile(workerData as ExportReadJob));
