// checkTarget: read an export file from disk or over HTTP (with the HTTP facts monitors rely on), then check it with
// the pure checker (src/pure/check/bytes.ts): the reading here, the judging there.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { checkBytes, contentTypeFindings, type BytesOptions } from '../../pure/check/bytes.js';
import type { CheckResult, Finding } from '../../pure/check/findings.js';

export interface TargetDeps extends BytesOptions {
  fetch: typeof globalThis.fetch;
  cwd: string;
  /** Give up on a URL after this long (monitors' own parsers time out at about 20 s). */
  timeoutMs?: number;
  /** The User-Agent of the fetch (`ratefile/<version>`), else the fetch's own. */
  userAgent?: string;
  /** Refuse bodies larger than this: an export file is kilobytes, not megabytes. */
  maxBytes?: number;
}

const isUrl = (target: string) => /^https?:\/\//i.test(target);

async function readBody(response: Response, maxBytes: number): Promise<Uint8Array | undefined> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (!response.body) return new Uint8Array();
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * HTTP facts: status, content type, and validators for conditional polling. Errors stop the check. Also how
 * `check --links URL` reads the export (src/commands/check-links.ts): the same bounds and messages.
 */
export async function fetchTarget(url: string, deps: TargetDeps): Promise<{ bytes?: Uint8Array; findings: Finding[] }> {
  const timeoutMs = deps.timeoutMs ?? 20_000;
  const maxBytes = deps.maxBytes ?? 20 * 1024 * 1024;
  const error = (message: string): { findings: Finding[] } => ({
    findings: [{ severity: 'error', rule: 'http', message }],
  });
  let response: Response;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    response = await deps.fetch(url, {
      signal,
      redirect: 'follow',
      headers: {
        Accept: 'application/xml, application/json;q=0.9, text/xml;q=0.9, */*;q=0.1',
        ...(deps.userAgent === undefined ? {} : { 'User-Agent': deps.userAgent }),
      },
    });
  } catch (cause) {
    const reason = signal.aborted ? `no answer within ${timeoutMs / 1000} s` : describeCause(cause);
    return error(`cannot fetch: ${reason}`);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return error(`${`HTTP ${response.status} ${response.statusText}`.trim()}: monitors need 200 with the file`);
  }
  const findings: Finding[] = [];
  const warn = (message: string) => findings.push({ severity: 'warning', rule: 'http', message });
  const type = response.headers.get('content-type');
  const charset = /charset=([^;]+)/i
    .exec(type ?? '')?.[1]
    ?.trim()
    .replace(/"/g, '');
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8')
    warn(`Content-Type says charset=${charset}; the file must be UTF-8`);
  if (!response.headers.get('etag') && !response.headers.get('last-modified')) {
    warn('no ETag or Last-Modified header: monitors poll every few seconds and cannot ask for changes only');
  }
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readBody(response, maxBytes);
  } catch (cause) {
    return {
      findings: [
        ...findings,
        ...error(
          `cannot read the body: ${signal.aborted ? `no complete answer within ${timeoutMs / 1000} s` : describeCause(cause)}`,
        ).findings,
      ],
    };
  }
  if (!bytes) return { findings: [...findings, ...error(`the body is larger than ${maxBytes} bytes`).findings] };
  return { bytes, findings: [...contentTypeFindings(type, bytes), ...findings] };
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
  return `${cause.message}${inner}`;
}

/** Check a file path (relative to `cwd`) or an http(s) URL. Never throws: problems reading it are findings. */
export async function checkTarget(target: string, deps: TargetDeps): Promise<CheckResult> {
  if (isUrl(target)) {
    const fetched = await fetchTarget(target, deps);
    if (!fetched.bytes) return { target, findings: fetched.findings };
    const result = checkBytes(fetched.bytes, target, deps, false);
    return { ...result, findings: [...fetched.findings, ...result.findings] };
  }
  let bytes: Uint8Array;
  try {
    bytes = await readFile(resolve(deps.cwd, target));
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : describeCause(cause);
    return { target, findings: [{ severity: 'error', rule: 'read', message: `cannot read: ${reason}` }] };
  }
  return checkBytes(bytes, target, deps, /\.txt$/i.test(target));
}
