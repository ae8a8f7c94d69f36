// What people read of one build cycle: the build line and its fields for `--log-format json`, the detail lines
// worth a log line each, and the cycle's warnings. Pure: cycle.ts hands over what happened, this says it.
import type { BuildReport } from './report.js';
import { plural } from '../../base/words.js';
import { buildReasons, summariseReasons } from './reasons.js';

/** What a cycle's lines are made of (a `CycleResult` is one). */
export interface CycleFacts {
  build: { report: BuildReport };
  publish: { written: readonly string[] };
  removed: readonly string[];
  durationMs: number;
  upload?: UploadCounts;
}

/** What an upload to `publish.s3` did, file by file. */
export interface UploadCounts {
  uploaded: readonly string[];
  unchanged: readonly string[];
  removed: readonly string[];
  failed: readonly { file: string }[];
}

/** "published 36 directions, 2 held back; parserfile.xml 41 items (written), …; 12 ms; failing sources: x". */
export function summarize(cycle: CycleFacts): string {
  const { report } = cycle.build;
  const files = report.exports
    .map(
      (e) =>
        `${e.file} ${plural(e.counted ?? e.items, 'item')} (${cycle.publish.written.includes(e.file) ? 'written' : 'unchanged'})`,
    )
    .join(', ');
  const failing = report.sources.filter((s) => !s.ok).map((s) => s.name);
  const { directions } = report;
  return [
    ...(report.maintenance ? ['MAINTENANCE: every export published empty'] : []),
    `published ${plural(directions.published.length, 'direction')}, ${directions.withheld.length} held back${directions.leftOut.length > 0 ? `, ${directions.leftOut.length} left out of some exports` : ''}`,
    files,
    ...(cycle.removed.length > 0
      ? [
          `removed ${cycle.removed.join(', ')} (no template declares ${cycle.removed.length === 1 ? 'it' : 'them'} any more)`,
        ]
      : []),
    ...(cycle.upload ? [uploadSummary(cycle.upload)] : []),
    `${cycle.durationMs} ms`,
    ...(failing.length > 0 ? [`failing sources: ${failing.join(', ')}`] : []),
  ].join('; ');
}

/** The build line's facts as fields, for `--log-format json`. */
export function buildFields(cycle: CycleFacts): Record<string, unknown> {
  const { report } = cycle.build;
  return {
    event: 'build',
    maintenance: report.maintenance,
    published: report.directions.published.length,
    heldBack: report.directions.withheld.length,
    ...(report.directions.leftOut.length > 0 ? { leftOut: report.directions.leftOut.length } : {}),
    durationMs: cycle.durationMs,
    failingSources: report.sources.filter((s) => !s.ok).map((s) => s.name),
    exports: report.exports.map((e) => ({
      file: e.file,
      items: e.counted ?? e.items,
      written: cycle.publish.written.includes(e.file),
    })),
    removed: cycle.removed,
    ...(cycle.upload
      ? {
          s3: {
            uploaded: cycle.upload.uploaded,
            unchanged: cycle.upload.unchanged,
            removed: cycle.upload.removed,
            failed: cycle.upload.failed.map((f) => f.file),
          },
        }
      : {}),
  };
}

/** "s3 2 uploaded, 1 unchanged, 1 FAILED" (and "1 removed" when exports were dropped). */
export function uploadSummary(upload: UploadCounts): string {
  const removed = upload.removed.length > 0 ? `, ${upload.removed.length} removed` : '';
  const failed = upload.failed.length > 0 ? `, ${upload.failed.length} FAILED` : '';
  return `s3 ${upload.uploaded.length} uploaded, ${upload.unchanged.length} unchanged${removed}${failed}`;
}

/**
 * Detail lines worth a separate log line: failing sources and reserve sources, rejected quotes, held-back directions;
 * many of one cause summarised (src/pure/status/reasons.ts).
 */
export function problemLines(result: { report: BuildReport }): string[] {
  return summariseReasons(buildReasons(result.report)).map((line) => line.line);
}

/** What went wrong beside a published build: none of it fails the build. */
export interface CycleProblems {
  /** The guard state could not be shared with the standbys (`ha:`). */
  guardShared: string | undefined;
  /** The `ha:` lock was lost after the local publish, before the upload. */
  lostLock: boolean;
  /** State files that could not be read, in the order read: guard, wars, listing, exports published. */
  stateRead: readonly (string | undefined)[];
  /** BestChange's code list could not be kept in the state folder. */
  liveCodes: string | undefined;
  /** The upload's problems (src/io/hosting/s3-report.ts `uploadProblems`). */
  upload: readonly string[];
}

/** The cycle's warnings, one log line each, in the order a reader meets their causes. */
export function cycleWarnings(problems: CycleProblems): string[] {
  return [
    ...(problems.guardShared ? [problems.guardShared] : []),
    ...(problems.lostLock
      ? ['ha: the lock was lost after the local publish: the S3 upload was left to the new holder']
      : []),
    ...problems.stateRead.filter((problem): problem is string => Boolean(problem)),
    ...(problems.liveCodes ? [problems.liveCodes] : []),
    ...problems.upload,
  ];
}

/** Why BestChange's code list (read only by config warnings) was not kept. */
export const liveCodesNotKept = (stateDir: string, error: unknown): string =>
  `cannot record BestChange's code list in ${stateDir}: ${(error as Error).message}`;
