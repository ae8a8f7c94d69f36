// The warm standby with no database: `ha: { lock: { s3: … } }`, a lease object renewed by conditional writes, against
// a real S3 store that honours them (Ceph's RADOS Gateway, test/sql/radosgw.ts). First the store's own answers (412
// to a stale If-Match), then the lease's contract in-process, then two `ratefile start` processes publishing to the
// same store: the holder publishes and uploads, the other waits; the holder killed, the other takes over within
// the lease time plus a build; the holder paused past its lease and resumed, its next upload is refused.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { haLockStore } from '../../src/io/ha/lock.js';
import { uploadFence } from '../../src/io/ha/placed.js';
import type { PublishGate } from '../../src/io/ha/standby.js';
import { S3Publisher } from '../../src/io/hosting/s3.js';
import { lockTiming } from '../../src/pure/ha/role.js';
import { makeProject, sampleConfig, type Project } from '../support/project.js';
import { spawnRatefile, stopAll, type RatefileProcess } from '../support/process.js';
import { startStallProxy } from '../support/stall-proxy.js';
import { leaderAndStandby, publishes, startQuotes } from './ha-suite.js';
import { requireRadosgw, startRadosgw, type S3Store } from './radosgw.js';

const PERIOD = 4_000;
const region = 'us-east-1';

describe.runIf(requireRadosgw())('warm standby on an S3 lease (Ceph RADOS Gateway)', () => {
  let store: S3Store;
  let client: S3Client;
  const projects: Project[] = [];
  let quotes: Awaited<ReturnType<typeof startQuotes>> | undefined;
  const awsEnv = () => ({
    AWS_ACCESS_KEY_ID: store.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: store.credentials.secretAccessKey,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: '/nonexistent',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
  });

  beforeAll(async () => {
    store = await startRadosgw();
    client = new S3Client({
      endpoint: store.endpoint,
      region,
      forcePathStyle: true,
      credentials: store.credentials,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    for (const Bucket of ['leases', 'exports']) {
      await client.send(new CreateBucketCommand({ Bucket }));
      // A fresh cluster makes its data pool on the first write (seconds): not inside a lease step's deadline.
      await client.send(new PutObjectCommand({ Bucket, Key: 'warm-up', Body: 'warm' }));
    }
    // The lease session reads credentials from the SDK's default chain, as the service does.
    Object.assign(process.env, awsEnv());
  }, 180_000);
  afterAll(async () => {
    client?.destroy();
    await store?.stop();
  });
  afterEach(async () => {
    await stopAll();
    await quotes?.close();
    quotes = undefined;
    await Promise.all(projects.splice(0).map((project) => project.remove()));
  });

  it('the store answers 412 to If-None-Match: * on an existing object and to a stale If-Match', async () => {
    const put = async (Body: string, condition: { IfNoneMatch?: string; IfMatch?: string } = {}) => {
      try {
        return (await client.send(new PutObjectCommand({ Bucket: 'leases', Key: 'probe', Body, ...condition }))).ETag;
      } catch (error) {
        return (error as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode;
      }
    };
    const first = await put('one', { IfNoneMatch: '*' });
    expect(first).toMatch(/^"[0-9a-f]{32}"$/);
    expect(await put('two', { IfNoneMatch: '*' })).toBe(412);
    // Ceph 16 compares If-Match with the ETag without its quotes (the lease learns that once, see src/io/ha/s3.ts).
    const bare = String(first).replaceAll('"', '');
    const second = await put('three', { IfMatch: bare });
    expect(second).toMatch(/^"[0-9a-f]{32}"$/);
    expect(await put('four', { IfMatch: bare })).toBe(412);
  });

  const object = async (key: string) =>
    (
      await client.send(new GetObjectCommand({ Bucket: 'exports', Key: `${key}/parserfile.xml` }))
    ).Body!.transformToString();
  const lock = (key: string) => ({
    s3: { bucket: 'leases', key, endpoint: store.endpoint, region, forcePathStyle: true },
  });

  it('the lease: one session holds it, the record and guard state are shared, a release or an expiry frees it', async () => {
    const timing = lockTiming(PERIOD);
    const now = () => new Date();
    const first = haLockStore(lock('contract.json'), {}, 'contract', timing, { instance: 'a', now });
    const one = await first.open();
    const two = await haLockStore(lock('contract.json'), {}, 'contract', timing, { instance: 'b', now }).open();
    try {
      expect(await two.read()).toEqual({});
      expect(await one.take()).toBe(true);
      expect(await one.take()).toBe(true);
      expect(await one.holds()).toBe(true);
      expect(await two.take()).toBe(false);
      expect(await two.holds()).toBe(false);
      const record = { holder: 'a', configHash: '0123456789abcdef', since: 1, publishingAt: 2 };
      await one.claim(record);
      await one.saveGuard('a', '{"published":{},"pending":{}}');
      expect(await two.read()).toEqual({ record, guard: '{"published":{},"pending":{}}' });
      // What the body says, for an operator who looks: holder, instance, expiry, the record with the config hash.
      const body = JSON.parse(
        await (
          await client.send(new GetObjectCommand({ Bucket: 'leases', Key: 'contract.json' }))
        ).Body!.transformToString(),
      ) as Record<string, unknown>;
      expect(body).toMatchObject({ ratefile: 'lease', name: 'contract', instance: 'a', record });
      expect(body.expiresAt).toBeGreaterThan(Date.now());
      // Renewals and checks sent together run in turn: none reads the other's new ETag as a lost lease.
      expect(await Promise.all([one.holds(), one.holds(), one.claim(record).then(() => true)])).toEqual([
        true,
        true,
        true,
      ]);
      // Released: the other takes it at once, record and guard state carried over.
      one.close();
      await expect.poll(() => two.take(), { timeout: 5_000 }).toBe(true);
      expect(await two.read()).toEqual({ record, guard: '{"published":{},"pending":{}}' });
      // A holder that stops renewing loses the lease once it expires; its next renewal and claim are refused.
      const three = await haLockStore(lock('contract.json'), {}, 'contract', timing, { instance: 'c', now }).open();
      try {
        expect(await three.take()).toBe(false);
        await new Promise((resolve) => setTimeout(resolve, timing.idleTimeoutMs + 200));
        expect(await three.take()).toBe(true);
        expect(await two.holds()).toBe(false);
        await expect(two.claim({ ...record, holder: 'b' })).rejects.toThrow(/is another's now/);
        expect((await three.read()).record).toEqual(record);
        // The stale holder's upload is refused by its fence (the renewal meets three's ETag); the holder's goes.
        const fenced = async (session: typeof two) => {
          const gate = { stillHolds: () => session.holds() } as unknown as PublishGate;
          const publisher = new S3Publisher(
            {
              bucket: 'exports',
              prefix: 'fenced/',
              forcePathStyle: true,
              cacheControl: 'no-cache',
              endpoint: store.endpoint,
              region,
            },
            await mkdtemp(join(tmpdir(), 'ratefile-lease-')),
          );
          const clock = { now: () => new Date(), periodMs: PERIOD };
          const file = {
            file: 'parserfile.xml',
            bytes: Buffer.from(`<rates>${session === two ? 'stale' : 'holder'}</rates>`),
          };
          try {
            return await publisher.upload([file], { beforePut: uploadFence(gate, new Date(), clock) });
          } finally {
            publisher.destroy();
          }
        };
        const stale = await fenced(two);
        expect(stale.uploaded).toEqual([]);
        expect(stale.warnings).toEqual(['s3 upload of parserfile.xml skipped: this instance no longer holds the lock']);
        expect((await fenced(three)).uploaded).toEqual(['parserfile.xml']);
        expect(await object('fenced')).toBe('<rates>holder</rates>');
      } finally {
        three.close();
      }
    } finally {
      one.close();
      two.close();
    }
  }, 30_000);

  it("every upload is conditional: the bucket refuses an old holder's late upload over a newer one", async () => {
    const target = {
      bucket: 'exports',
      prefix: 'conditional/',
      forcePathStyle: true,
      cacheControl: 'no-cache',
      endpoint: store.endpoint,
      region,
    };
    const publisher = async () => new S3Publisher(target, await mkdtemp(join(tmpdir(), 'ratefile-upload-')));
    const file = (text: string) => [{ file: 'parserfile.xml', bytes: Buffer.from(`<rates>${text}</rates>`) }];
    const [a, b] = [await publisher(), await publisher()];
    try {
      // a uploads first (a first write: If-None-Match: *).
      expect((await a.upload(file('a, first'))).uploaded).toEqual(['parserfile.xml']);
      // b takes over: its first write meets a's object (412), reads its version, asks its lock, writes over it.
      const asked: string[] = [];
      const holder = async (name: string) => {
        asked.push(name);
        return undefined;
      };
      expect((await b.upload(file('b, the new leader'), { beforePut: holder })).uploaded).toEqual(['parserfile.xml']);
      expect(asked).toEqual(['parserfile.xml', 'parserfile.xml']);
      expect(await object('conditional')).toBe('<rates>b, the new leader</rates>');
      // a resumes after a pause: its lock check had said yes before the pause, so its PUT goes out, If-Match on
      // a's own last version. The bucket refuses it (412); asked again after that, a's lock says no.
      let checks = 0;
      const stale = async () => (++checks === 1 ? undefined : 'this instance no longer holds the lock');
      const late = await a.upload(file('a, an old build'), { beforePut: stale });
      expect(late.uploaded).toEqual([]);
      expect(late.warnings).toEqual(['s3 upload of parserfile.xml skipped: this instance no longer holds the lock']);
      expect(checks).toBe(2);
      expect(await object('conditional')).toBe('<rates>b, the new leader</rates>');
      // Another writer replaces b's object; b's next build has the same bytes as its last upload: b looks (HEAD),
      // sees the object is not its upload any more, and puts its own back, over that version.
      await client.send(
        new PutObjectCommand({ Bucket: 'exports', Key: 'conditional/parserfile.xml', Body: '<rates>by hand</rates>' }),
      );
      const again = await b.upload(file('b, the new leader'), { beforePut: holder });
      expect(again.uploaded).toEqual(['parserfile.xml']);
      expect(await object('conditional')).toBe('<rates>b, the new leader</rates>');
      // Without another writer, an unchanged file stays unchanged (one HEAD, no upload).
      expect((await b.upload(file('b, the new leader'), { beforePut: holder })).unchanged).toEqual(['parserfile.xml']);
    } finally {
      a.destroy();
      b.destroy();
    }
  });

  it('refuses to overwrite an object that is not a lease, or the lease of another lock name', async () => {
    await client.send(new PutObjectCommand({ Bucket: 'leases', Key: 'not-a-lease.json', Body: '{"hello":1}' }));
    const timing = lockTiming(PERIOD);
    const other = haLockStore(lock('not-a-lease.json'), {}, 'x', timing, { instance: 'a', now: () => new Date() });
    const session = await other.open();
    await expect(session.take()).rejects.toThrow(/is not a ratefile lease object: not overwriting it/);
    session.close();
    const first = await haLockStore(lock('named.json'), {}, 'one', timing, {
      instance: 'a',
      now: () => new Date(),
    }).open();
    expect(await first.take()).toBe(true);
    const second = await haLockStore(lock('named.json'), {}, 'two', timing, {
      instance: 'b',
      now: () => new Date(),
    }).open();
    await expect(second.take()).rejects.toThrow(/is the lease of lock "one", not "two"/);
    first.close();
    second.close();
  });

  const configFor = (quotesUrl: string, instance: string, key: string, endpoint: string, haExtra: string) =>
    `${sampleConfig.replace(
      'backoffice: { type: file, path: quotes.json }',
      `venue: { type: json, url: "${quotesUrl}", pairs: { BTC/USDT: { bid: btc.bid, ask: btc.ask }, USDT/RUB: { bid: rub.bid, ask: rub.ask } } }`,
    )}schedule: "*/4 * * * * *"
guards: { maxJump: 10%, confirmBuilds: 1000 }
publish: { s3: { bucket: exports, prefix: ${key}, endpoint: "${endpoint}", region: ${region}, forcePathStyle: true } }
ha: { lock: { s3: { bucket: leases, key: ${key}.json, endpoint: "${endpoint}", region: ${region}, forcePathStyle: true } }, instance: ${instance}${haExtra} }
`;
  const start = async (
    instance: string,
    key: string,
    endpoint = store.endpoint,
    haExtra = '',
  ): Promise<{ made: Project; run: RatefileProcess }> => {
    const made = await makeProject({
      'ratefile.config.yaml': configFor(quotes!.url, instance, key, endpoint, haExtra),
    });
    projects.push(made);
    const run = spawnRatefile(['--log-format', 'json', 'start', '--port', '0'], { cwd: made.dir, env: awsEnv() });
    return { made, run };
  };
  const status = async (made: Project) =>
    JSON.parse(await readFile(join(made.dir, '.ratefile', 'status.json'), 'utf8')) as {
      ha?: { role: string; holder?: string; takeover?: { from: string } };
    };

  /** a leads and publishes (files and uploads), b stands by; both seen from outside. */
  const pair = async (key: string, endpointOfA = store.endpoint) => {
    quotes = await startQuotes();
    const a = await start('a', key, endpointOfA);
    await a.run.waitForLog(/"msg":"ha: took the lock on s3 [^"]*: this instance publishes"/, 30_000);
    // a's store behind a proxy is another endpoint, so another config hash: b is told to take over all the same.
    const b = await start(
      'b',
      key,
      store.endpoint,
      endpointOfA === store.endpoint ? '' : ', allowConfigMismatch: true',
    );
    await b.run.waitForLog(/"msg":"ha: standby: a holds the lock"/, 30_000);
    const [baseA, baseB] = await leaderAndStandby(a.run, b.run);
    const before = publishes('a', a.run.stderr()).length;
    await expect.poll(() => publishes('a', a.run.stderr()).length, { timeout: 4 * PERIOD }).toBeGreaterThan(before + 1);
    // The holder uploads; the standby neither publishes nor uploads.
    expect(a.run.stderr()).toMatch(/"event":"build"[^\n]*"uploaded"/);
    expect(publishes('b', b.run.stderr())).toEqual([]);
    return { a, b, baseA, baseB };
  };

  it('SIGKILL of the holder: the other takes over within the lease time plus one build, and uploads', async () => {
    const { a, b, baseB } = await pair('killed');
    const published = publishes('a', a.run.stderr()).length;
    await expect.poll(() => publishes('a', a.run.stderr()).length, { timeout: 2 * PERIOD }).toBeGreaterThan(published);
    const killedAt = Date.now();
    a.run.child.kill('SIGKILL');
    await a.run.exited;
    await b.run.waitForLog(
      /"msg":"ha: took the lock on s3 [^"]*: this instance publishes \(took over from a\)"/,
      3 * PERIOD,
    );
    await expect.poll(() => publishes('b', b.run.stderr())[0], { timeout: 3 * PERIOD }).toBeDefined();
    const takeover = publishes('b', b.run.stderr())[0]!.at - killedAt;
    // The lease lasts half a period; the next build after it expires takes over.
    expect(takeover).toBeLessThanOrEqual(2 * PERIOD);
    expect((await status(b.made)).ha).toMatchObject({ role: 'leader', holder: 'b', takeover: { from: 'a' } });
    expect((await fetch(`${baseB}healthz`)).status).toBe(200);
    const uploaded = await object('killed');
    await expect.poll(() => object('killed'), { timeout: 2 * PERIOD }).not.toBe(uploaded);
    expect(b.run.stderr()).not.toContain(store.credentials.secretAccessKey);
    console.info(`S3 lease: SIGKILL takeover after ${takeover} ms`);
  }, 120_000);

  it('a holder paused past its lease: the other takes over, and the stale holder uploads nothing more', async () => {
    const { a, b } = await pair('paused');
    a.run.child.kill('SIGSTOP');
    await b.run.waitForLog(
      /"msg":"ha: took the lock on s3 [^"]*: this instance publishes \(took over from a\)"/,
      3 * PERIOD,
    );
    await expect.poll(() => publishes('b', b.run.stderr()).length, { timeout: 3 * PERIOD }).toBeGreaterThan(0);
    const byA = publishes('a', a.run.stderr()).length;
    a.run.child.kill('SIGCONT');
    // Its next renewal (the heartbeat, or the check before an upload) meets b's ETag: 412, and it stops at once.
    await a.run.waitForLog(/"msg":"ha: lost the lock on s3 [^"]*: [^"]*this instance stops publishing"/, 2 * PERIOD);
    await new Promise((resolve) => setTimeout(resolve, 2 * PERIOD));
    expect(publishes('a', a.run.stderr()).length).toBe(byA);
    expect((await status(a.made)).ha).toMatchObject({ role: 'standby', holder: 'b' });
    // b goes on publishing and uploading.
    await new Promise((resolve) => setTimeout(resolve, PERIOD));
    expect(b.run.stderr()).toMatch(/"event":"build"[^\n]*"uploaded"/);
  }, 120_000);
  it("the holder's link to the store stalls: its renewal passes the deadline, it stops, the other takes over", async () => {
    const proxy = await startStallProxy(Number(new URL(store.endpoint).port));
    try {
      const { a, b, baseA } = await pair('stalled', `http://127.0.0.1:${proxy.port}`);
      const stalledAt = Date.now();
      proxy.stall();
      // No answer at all (no RST): the renewal's deadline (a quarter period) ends the holder's lease session.
      await a.run.waitForLog(/"msg":"ha: lost the lock on s3 [^"]*this instance stops publishing"/, PERIOD);
      expect((await fetch(`${baseA}healthz`)).status).toBe(503);
      await b.run.waitForLog(/"msg":"ha: took the lock on s3 [^"]*\(took over from a\)"/, 3 * PERIOD);
      await expect.poll(() => publishes('b', b.run.stderr())[0], { timeout: 3 * PERIOD }).toBeDefined();
      const takeover = publishes('b', b.run.stderr())[0]!.at - stalledAt;
      expect(takeover).toBeLessThanOrEqual(2 * PERIOD);
      console.info(`S3 lease: stall, takeover after ${takeover} ms`);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
