// Upload the exports to an S3 bucket: only what changed since the last successful upload, remembered in the state folder,
// each upload conditional on the version last uploaded (If-Match), so the store refuses it over another writer's;
// objects it uploaded for exports no longer declared are deleted.
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import type { OutputFile, S3Target } from '../../model/config.js';
import { contentTypeOf, exportFileName } from '../../model/formats.js';
import { describeTarget, describeUploadError, uploadDeadlineMs, uploadHost, type UploadResult } from './s3-report.js';
import { conditionUnsupported, EtagForm, putOver, statusOf } from './s3-conditional.js';
import { keepUploaded, readUploaded, type Memory, type Uploaded } from './s3-state.js';

export { s3StateFile } from './s3-state.js';

export interface UploadOptions {
  /** Upload every file even when the state says the bucket already has its bytes. */
  force?: boolean;
  /**
   * Every export the config declares: an object this publisher uploaded under the prefix for any other file is
   * deleted. Only objects the state file remembers are touched; a failed deletion stays remembered and is retried.
   */
  declared?: readonly string[];
  /**
   * Asked right before each object is put (a warm standby's lock and build age): a reason skips that upload. With
   * it, an object the state calls unchanged is also looked at (HEAD): one another writer replaced is uploaded again.
   */
  beforePut?: (file: string) => Promise<string | undefined>;
}

/** One object of one store: the key the state file remembers it by. */
const objectId = (target: S3Target, key: string): string => `${target.endpoint ?? 'aws'} ${target.bucket}/${key}`;

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

export class S3Publisher {
  readonly target: S3Target;
  private readonly stateDir: string;
  private readonly deadlineMs: number;
  /** The SDK and its client, loaded on the first upload: the SDK is large, and a config without S3 never loads it. */
  private connection?: Promise<{ sdk: typeof import('@aws-sdk/client-s3'); client: S3Client }>;
  /** Kept in memory too, so a state folder that cannot be written costs re-uploads only after a restart. */
  private readonly memory: Memory = new Map();
  /** How the store compares If-Match (Ceph RGW 16: the bare ETag). */
  private readonly form = new EtagForm();
  /** The store answered 501 to a conditional write: uploads go without a condition from then on (said once). */
  private unfenced: 'no' | 'unsaid' | 'said' = 'no';

  constructor(target: S3Target, stateDir: string, options: { deadlineMs?: number } = {}) {
    this.target = target;
    this.stateDir = stateDir;
    this.deadlineMs = options.deadlineMs ?? uploadDeadlineMs;
    // Node 20 is a line we test and support (package.json engines); the SDK's multi-line notice on it is
    // about SDK releases after January 2027, which the lockfile decides, not the operator. Its documented
    // switch keeps it out of the log unless the operator set the variable themselves.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  }

  private connect(): Promise<{ sdk: typeof import('@aws-sdk/client-s3'); client: S3Client }> {
    const { target } = this;
    this.connection ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      // Credentials: only the SDK's default chain (environment, profile, container or instance role).
      client: new sdk.S3Client({
        ...(target.region === undefined ? {} : { region: target.region }),
        ...(target.endpoint === undefined ? {} : { endpoint: target.endpoint }),
        forcePathStyle: target.forcePathStyle,
        // Content-MD5 (below) instead of the SDK's newer default checksums, which several S3-compatible stores reject.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        maxAttempts: 3,
        requestHandler: {
          connectionTimeout: Math.min(5_000, this.deadlineMs),
          requestTimeout: Math.min(10_000, this.deadlineMs),
        },
      }),
    }));
    return this.connection;
  }

  private async put(key: string, bytes: Buffer, condition: object = {}): Promise<string | undefined> {
    const { sdk, client } = await this.connect();
    const response = await client.send(
      new sdk.PutObjectCommand({
        Bucket: this.target.bucket,
        Key: key,
        Body: bytes,
        ContentType: contentTypeOf(key),
        CacheControl: this.target.cacheControl,
        ContentMD5: createHash('md5').update(bytes).digest('base64'),
        ...condition,
      }),
      { abortSignal: AbortSignal.timeout(this.deadlineMs) },
    );
    return response.ETag;
  }

  /** The object's ETag now; undefined when there is none. */
  private async current(key: string): Promise<string | undefined> {
    const { sdk, client } = await this.connect();
    try {
      const head = await client.send(new sdk.HeadObjectCommand({ Bucket: this.target.bucket, Key: key }), {
        abortSignal: AbortSignal.timeout(this.deadlineMs),
      });
      return head.ETag;
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  /**
   * Every upload is conditional on the version this publisher last uploaded (`If-Match`; a first one `If-None-Match:
   * *`), so the store itself refuses an old leader's late write over a newer one (src/io/hosting/s3-conditional.ts).
   */
  private async putFenced(
    key: string,
    bytes: Buffer,
    known: string | undefined,
    confirm: () => Promise<string | undefined>,
  ) {
    if (this.unfenced !== 'no') return { etag: await this.put(key, bytes) };
    try {
      return await putOver(known, this.form, {
        put: (fields) => this.put(key, bytes, fields),
        current: () => this.current(key),
        confirm,
      });
    } catch (error) {
      if (!conditionUnsupported(error)) throw error;
      this.unfenced = 'unsaid';
      return { etag: await this.put(key, bytes) };
    }
  }

  /** Under `ha:`, whether the object the state calls unchanged still is this publisher's upload (a HEAD). */
  private async stillOurs(key: string, last: Uploaded, options: UploadOptions): Promise<boolean> {
    if (!options.beforePut || last.etag === undefined) return true;
    const bare = (etag: string | undefined) => etag?.replaceAll('"', '');
    // A look that fails says nothing: the next build looks again.
    return this.current(key).then(
      (etag) => bare(etag) === bare(last.etag),
      () => true,
    );
  }

  /** Upload each file whose bytes or headers differ from the last successful upload; never throws. */
  async upload(files: readonly OutputFile[], options: UploadOptions = {}): Promise<UploadResult> {
    const result: UploadResult = {
      target: describeTarget(this.target),
      uploaded: [],
      unchanged: [],
      removed: [],
      failed: [],
      warnings: [],
    };
    const known = await readUploaded(this.stateDir, this.memory, result.warnings);
    const changes = new Map<string, Uploaded | undefined>();
    await Promise.all(
      files.map(async ({ file, bytes }) => {
        const key = `${this.target.prefix}${file}`;
        const id = objectId(this.target, key);
        const contentType = contentTypeOf(file);
        const entry: Uploaded = { sha256: sha256(bytes), contentType, cacheControl: this.target.cacheControl, at: '' };
        const last = known.get(id);
        if (
          !options.force &&
          last &&
          last.sha256 === entry.sha256 &&
          last.contentType === contentType &&
          last.cacheControl === entry.cacheControl &&
          (await this.stillOurs(key, last, options))
        ) {
          result.unchanged.push(file);
          return;
        }
        const confirm = async () => options.beforePut?.(file);
        const refused = await confirm();
        if (refused !== undefined) {
          result.warnings.push(`s3 upload of ${file} skipped: ${refused}`);
          return;
        }
        try {
          const put = await this.putFenced(key, bytes, last?.etag, confirm);
          if ('refused' in put) {
            // Not uploaded: the object is another writer's, and the state must not call it ours.
            changes.set(id, undefined);
            result.warnings.push(`s3 upload of ${file} skipped: ${put.refused}`);
            return;
          }
          const { etag } = put;
          changes.set(id, { ...entry, ...(etag === undefined ? {} : { etag }), at: new Date().toISOString() });
          result.uploaded.push(file);
        } catch (error) {
          // The object may or may not hold the new bytes now: forget it, so the next build uploads whatever it has.
          changes.set(id, undefined);
          result.failed.push({
            file,
            url: `s3://${this.target.bucket}/${key}`,
            error: describeUploadError(error, process.env, this.deadlineMs, uploadHost(this.target)),
            action: 'upload',
          });
        }
      }),
    );
    if (options.declared) await this.removeUndeclared(options.declared, known, changes, result);
    if (this.unfenced === 'unsaid' && options.beforePut) {
      this.unfenced = 'said';
      result.warnings.push(
        `${describeTarget(this.target)} refused a conditional upload (501): uploads go without If-Match, so the store cannot refuse an old leader's late upload`,
      );
    }
    const order = (names: string[]) =>
      names.sort((a, b) => files.findIndex((f) => f.file === a) - files.findIndex((f) => f.file === b));
    order(result.uploaded);
    order(result.unchanged);
    result.removed.sort();
    result.failed.sort((a, b) => files.findIndex((f) => f.file === a.file) - files.findIndex((f) => f.file === b.file));
    if (changes.size > 0) await keepUploaded(this.stateDir, this.memory, known, changes, result.warnings);
    return result;
  }

  /** Delete the remembered objects under the prefix whose export is not declared; failures stay remembered, so the next build retries. */
  private async removeUndeclared(
    declared: readonly string[],
    known: Map<string, Uploaded>,
    changes: Map<string, Uploaded | undefined>,
    result: UploadResult,
  ): Promise<void> {
    const under = objectId(this.target, this.target.prefix);
    const stale = [...known.keys()]
      .filter((id) => id.startsWith(under))
      .map((id) => ({ id, file: id.slice(under.length) }))
      .filter(({ file }) => exportFileName.test(file) && !declared.includes(file));
    await Promise.all(
      stale.map(async ({ id, file }) => {
        const key = `${this.target.prefix}${file}`;
        try {
          const { sdk, client } = await this.connect();
          await client.send(new sdk.DeleteObjectCommand({ Bucket: this.target.bucket, Key: key }), {
            abortSignal: AbortSignal.timeout(this.deadlineMs),
          });
          changes.set(id, undefined);
          result.removed.push(file);
        } catch (error) {
          result.failed.push({
            file,
            url: `s3://${this.target.bucket}/${key}`,
            error: describeUploadError(error, process.env, this.deadlineMs, uploadHost(this.target)),
            action: 'removal',
          });
        }
      }),
    );
  }

  /**
   * An export's object as the bucket holds it now, read to at most `maxBytes`: its bytes, when it was last
   * modified and its address; undefined when it is absent, larger, or cannot be read (the caller goes without).
   */
  async read(file: string, maxBytes: number): Promise<{ bytes: Buffer; at: Date; url: string } | undefined> {
    const key = `${this.target.prefix}${file}`;
    try {
      const { sdk, client } = await this.connect();
      const signal = AbortSignal.timeout(this.deadlineMs);
      const answer = await client.send(new sdk.GetObjectCommand({ Bucket: this.target.bucket, Key: key }), {
        abortSignal: signal,
      });
      const body = answer.Body as AsyncIterable<Uint8Array> | undefined;
      if (!body || (answer.ContentLength ?? 0) > maxBytes) return undefined;
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of body) {
        size += chunk.length;
        if (size > maxBytes) return undefined;
        chunks.push(chunk);
      }
      return {
        bytes: Buffer.concat(chunks),
        at: answer.LastModified ?? new Date(0),
        url: `s3://${this.target.bucket}/${key}`,
      };
    } catch {
      return undefined;
    }
  }

  /** Close the SDK's connections (one-shot commands; the scheduler keeps its publisher). */
  destroy(): void {
    // Nothing to close when nothing was uploaded; otherwise the client is closed as soon as it exists.
    void this.connection?.then(
      ({ client }) => client.destroy(),
      () => undefined,
    );
    delete this.connection;
  }
}

/** One publisher per process and state folder, so the scheduler keeps its connections and memory between builds. */
const publishers = new Map<string, S3Publisher>();

export function s3Publisher(target: S3Target, stateDir: string): S3Publisher {
  const existing = publishers.get(stateDir);
  if (existing && JSON.stringify(existing.target) === JSON.stringify(target)) return existing;
  existing?.destroy();
  const publisher = new S3Publisher(target, stateDir);
  publishers.set(stateDir, publisher);
  return publisher;
}
