// The warm standby's lock without a database: a lease object in an S3 bucket. It is created with
// `If-None-Match: *` and renewed with `If-Match: <its ETag>`, so of two writers only one succeeds (the other gets
// 412); holding the lock is "the object's ETag is the one this session last wrote". Its body carries the holder,
// the expiry, and the lock's record and guard state (what the SQL drivers keep in `ratefile_ha`). A lease past its
// expiry is taken over with `If-Match` on the expired lease's ETag. Every operation on a session runs in turn: two
// renewals sent together would carry the same ETag, and the second would read as a lost lease.
import { randomBytes } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import type { LeaseTarget } from '../../model/ha.js';
import type { LockRecord, LockTiming } from '../../pure/ha/role.js';
import { LockProblem, withDeadline, type LockSession } from './session.js';
import { conditionRefused, EtagForm, statusOf, type WriteCondition } from '../hosting/s3-conditional.js';

/** The lease object's body. `expiresAt` is the holder's wall clock (ms): instances need clocks in step (NTP). */
interface Lease {
  ratefile: 'lease';
  name: string;
  /** This holder's session: an instance restarted under the same name is another session. */
  session: string;
  instance: string;
  expiresAt: number;
  record?: LockRecord;
  guard?: string;
}

type Sdk = typeof import('@aws-sdk/client-s3');

export const leaseWhere = (target: LeaseTarget): string =>
  `s3 ${target.endpoint === undefined ? '' : `${new URL(target.endpoint).host} `}${target.bucket}/${target.key}`;

function leaseOf(text: string, name: string, where: string): Lease {
  let data: Partial<Lease>;
  try {
    data = JSON.parse(text) as Partial<Lease>;
  } catch {
    data = {};
  }
  if (data.ratefile !== 'lease' || typeof data.session !== 'string' || typeof data.expiresAt !== 'number')
    throw new LockProblem(`${where} is not a ratefile lease object: not overwriting it`);
  if (data.name !== name)
    throw new LockProblem(`${where} is the lease of lock "${String(data.name)}", not "${name}": give each its own key`);
  return data as Lease;
}

export interface LeaseOptions {
  instance: string;
  now: () => Date;
}

/** One session on the lease: the `LockSession` every driver gives, over conditional PUTs instead of a connection. */
export async function openLease(
  target: LeaseTarget,
  name: string,
  timing: LockTiming,
  options: LeaseOptions,
): Promise<LockSession> {
  // Node 20's notice from the SDK: see src/io/hosting/s3.ts.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const sdk: Sdk = await import('@aws-sdk/client-s3');
  const client = new sdk.S3Client({
    ...(target.region === undefined ? {} : { region: target.region }),
    ...(target.endpoint === undefined ? {} : { endpoint: target.endpoint }),
    forcePathStyle: target.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // One try: a renewal retried after a lost answer would meet its own new ETag and read as a lost lease.
    maxAttempts: 1,
    requestHandler: { connectionTimeout: timing.queryTimeoutMs, requestTimeout: timing.queryTimeoutMs },
  });
  // The credential chain loads and resolves on the first request: here, so no lease step's deadline pays for it.
  try {
    await client.config.credentials();
  } catch (error) {
    client.destroy();
    throw error;
  }
  return new LeaseSession(sdk, client, target, name, timing, options);
}

class LeaseSession implements LockSession {
  private readonly where: string;
  private readonly session: string;
  /** The ETag of this session's last write while it holds the lease; undefined: it does not. */
  private etag: string | undefined;
  private body: Lease | undefined;
  /** Some stores (Ceph RGW 16) compare If-Match with the bare ETag, without its quotes: learnt once, then kept. */
  private readonly form = new EtagForm();
  private queue: Promise<unknown> = Promise.resolve();
  /** The running step's deadline: its requests are aborted when it passes. */
  private signal: AbortSignal | undefined;
  private closed = false;

  constructor(
    private readonly sdk: Sdk,
    private readonly client: S3Client,
    private readonly target: LeaseTarget,
    private readonly name: string,
    private readonly timing: LockTiming,
    private readonly options: LeaseOptions,
  ) {
    this.where = leaseWhere(target);
    this.session = `${options.instance}/${randomBytes(6).toString('hex')}`;
  }

  /** Each step after the one before, under the query deadline (past it, the step's requests are aborted). */
  private turn<T>(what: string, step: () => Promise<T>, closing = false): Promise<T> {
    const next = this.queue.then(() => {
      if (this.closed && !closing) throw new LockProblem('the lease session is closed');
      const deadline = new AbortController();
      this.signal = deadline.signal;
      return withDeadline(step(), this.timing.queryTimeoutMs, what, () => deadline.abort());
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private sent() {
    return this.signal ? { abortSignal: this.signal } : {};
  }

  private async get(): Promise<{ etag: string; lease: Lease } | undefined> {
    try {
      const answer = await this.client.send(
        new this.sdk.GetObjectCommand({ Bucket: this.target.bucket, Key: this.target.key }),
        this.sent(),
      );
      const text = (await answer.Body?.transformToString('utf8')) ?? '';
      return { etag: answer.ETag ?? '', lease: leaseOf(text, this.name, this.where) };
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  /** Write `lease` under the condition; its new ETag, or undefined when the store refused the condition. */
  private async put(lease: Lease, condition: WriteCondition): Promise<string | undefined> {
    try {
      const answer = await this.client.send(
        new this.sdk.PutObjectCommand({
          Bucket: this.target.bucket,
          Key: this.target.key,
          Body: `${JSON.stringify(lease)}\n`,
          ContentType: 'application/json',
          CacheControl: 'no-store',
          ...this.form.fields(condition),
        }),
        this.sent(),
      );
      return answer.ETag;
    } catch (error) {
      if (!conditionRefused(error)) throw error;
      // Refused although the object may still carry that ETag: a store that wants it without quotes? Only
      // when a look right after shows the very ETag (anything else: another writer's lease, the refusal stands).
      if (await this.form.learn(condition, async () => (await this.get())?.etag)) return this.put(lease, condition);
      return undefined;
    }
  }

  private fresh(base: Partial<Lease>): Lease {
    return {
      ...base,
      ratefile: 'lease',
      name: this.name,
      session: this.session,
      instance: this.options.instance,
      expiresAt: this.options.now().getTime() + this.timing.idleTimeoutMs,
    };
  }

  /** Rewrite this session's lease (renewed, with `change`); false when it is another's now. */
  private async rewrite(change: Partial<Lease> = {}): Promise<boolean> {
    if (this.etag === undefined || this.body === undefined) return false;
    const lease = this.fresh({ ...this.body, ...change });
    const etag = await this.put(lease, { ifMatch: this.etag });
    if (etag === undefined) {
      this.etag = undefined;
      this.body = undefined;
      return false;
    }
    this.etag = etag;
    this.body = lease;
    return true;
  }

  /** Holding is renewing: a conditional write on this session's ETag, so the answer is the store's, not memory's. */
  holds(): Promise<boolean> {
    return this.turn('renewing the lease', () => this.rewrite());
  }

  take(): Promise<boolean> {
    return this.turn('taking the lease', async () => {
      if (await this.rewrite()) return true;
      const found = await this.get();
      if (found && found.lease.expiresAt > this.options.now().getTime()) return false;
      // Free or expired: the last holder's record and guard state carry over (the next publisher reads them).
      const { record, guard } = found?.lease ?? {};
      const lease = this.fresh({ ...(record ? { record } : {}), ...(guard === undefined ? {} : { guard }) });
      const etag = await this.put(lease, found ? { ifMatch: found.etag } : { ifNoneMatch: '*' });
      if (etag === undefined) return false;
      this.etag = etag;
      this.body = lease;
      return true;
    });
  }

  read(): Promise<{ record?: LockRecord; guard?: string }> {
    return this.turn('reading the lease', async () => {
      const lease = (await this.get())?.lease;
      return {
        ...(lease?.record ? { record: lease.record } : {}),
        ...(lease?.guard === undefined ? {} : { guard: lease.guard }),
      };
    });
  }

  claim(record: LockRecord): Promise<void> {
    return this.turn('recording the publish', async () => {
      if (!(await this.rewrite({ record }))) throw new LockProblem(`the lease ${this.where} is another's now`);
    });
  }

  saveGuard(holder: string, guard: string): Promise<void> {
    return this.turn('recording the guard state', async () => {
      // Only the named holder's guard state is kept (as in the SQL drivers' `WHERE holder = …`).
      if (this.body?.record?.holder !== holder) return;
      if (!(await this.rewrite({ guard }))) throw new LockProblem(`the lease ${this.where} is another's now`);
    });
  }

  /** Nothing to keep alive: a lease lives by its renewals (the holder's `holds`), not by a connection. */
  async ping(): Promise<void> {}

  /** Lets go: a held lease is rewritten as expired (best effort), so another instance takes it at its next build. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const ending = this.turn(
      'releasing the lease',
      async () => {
        if (this.etag !== undefined && this.body !== undefined)
          await this.put({ ...this.body, expiresAt: 0 }, { ifMatch: this.etag });
        this.etag = undefined;
      },
      true,
    );
    void ending.catch(() => undefined).finally(() => this.client.destroy());
  }
}
