// What people read of an upload: the target, a failed upload's error with credentials taken out, and the log lines
// of an upload that went wrong in part. Kept apart from the publisher so that reading them loads no SDK.
import { hostAndPort } from '../../base/requests.js';
import type { S3Target } from '../../model/config.js';

export interface UploadFailure {
  file: string;
  /** `s3://bucket/key`. */
  url: string;
  error: string;
  /** What failed: putting the new bytes, or deleting the object of an export no longer declared. */
  action: 'upload' | 'removal';
}

export interface UploadResult {
  /** `s3://bucket/prefix` (and the endpoint when not AWS), for log lines. */
  target: string;
  uploaded: string[];
  unchanged: string[];
  /** Objects of exports no longer declared, deleted from the bucket. */
  removed: string[];
  failed: UploadFailure[];
  /** Problems that did not stop the uploads: the state file could not be read or kept. */
  warnings: string[];
}

/** Per object, all of the SDK's attempts included: a store that hangs must not hold the next build back for long. */
export const uploadDeadlineMs = 20_000;

export const describeTarget = (target: S3Target): string =>
  `s3://${target.bucket}/${target.prefix}${target.endpoint === undefined ? '' : ` at ${target.endpoint}`}`;

/**
 * One line for a failed upload, with anything that looks like a credential taken out: the SDK's
 * messages do not carry secrets, but a log line is the wrong place to find out that one did.
 */
export function describeUploadError(
  error: unknown,
  env: Record<string, string | undefined> = process.env,
  deadlineMs = uploadDeadlineMs,
  /** The store's host and port (`uploadHost`), named when no answer came and the message does not name it. */
  host?: string,
): string {
  const name = error instanceof Error ? error.name : 'Error';
  let message = error instanceof Error ? error.message : String(error);
  if (name === 'AbortError' || name === 'TimeoutError') message = `no answer within ${deadlineMs / 1000} s`;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null | undefined)?.$metadata?.httpStatusCode;
  for (const variable of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) {
    const secret = env[variable];
    if (secret !== undefined && secret.length >= 4) message = message.split(secret).join('[redacted]');
  }
  message = message.replace(/\b(AKIA|ASIA)[A-Z0-9]{16}\b/g, '[redacted]');
  const where = status === undefined && host !== undefined && !message.includes(host) ? ` (${host})` : '';
  return `${name === 'Error' ? '' : `${name}: `}${message}${where}${status === undefined ? '' : ` (HTTP ${status})`}`;
}

/** Where a target's uploads go: the endpoint's host and port, or AWS's regional endpoint when the region is set. */
export function uploadHost(target: S3Target): string | undefined {
  if (target.endpoint !== undefined) return hostAndPort(target.endpoint);
  return target.region === undefined ? undefined : `s3.${target.region}.amazonaws.com:443`;
}

/**
 * Log lines for an upload that went wrong in part; `retry` says what happens next. Files failing for the same
 * reason (missing credentials fail every file alike) share one line, so a build logs it once, not once per file.
 */
export function uploadProblems(
  result: UploadResult,
  retry = 'local files unaffected, retried on the next build',
): string[] {
  const byError = new Map<string, UploadFailure[]>();
  for (const failure of result.failed)
    if (failure.action === 'upload') byError.set(failure.error, [...(byError.get(failure.error) ?? []), failure]);
  const uploads = [...byError].map(([error, failures]) =>
    failures.length === 1
      ? `s3 upload of ${failures[0]!.file} to ${failures[0]!.url} failed (${retry}): ${error}`
      : `s3 upload of ${failures.length} files (${failures.map((f) => f.file).join(', ')}) to ${result.target} failed (${retry}): ${error}`,
  );
  const removals = result.failed
    .filter((f) => f.action !== 'upload')
    .map(
      (f) => `s3 removal of ${f.url} (${f.file} is no longer declared) failed (retried on the next build): ${f.error}`,
    );
  return [...result.warnings, ...uploads, ...removals];
}
