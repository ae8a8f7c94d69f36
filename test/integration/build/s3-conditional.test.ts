// Issue 45, item 5: every upload of an export is conditional on the version the publisher last uploaded (If-Match;
// a first one If-None-Match: *), so a store that honours the headers refuses an old leader's late upload itself.
// s3rver (test/integration/build/s3.test.ts) ignores both headers on PUT (it answers 200 to a stale If-Match), so
// here a loopback stand-in answers as a conditional store would, and records what it was sent; the real refusal
// by Ceph's radosgw runs in `npm run test:sql` (test/sql/ha-s3.test.ts).
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { S3Publisher } from '../../../src/io/hosting/s3.js';

interface Seen {
  method: string;
  ifMatch?: string;
  ifNoneMatch?: string;
}

/** One object per key; `ceph`: If-Match compared with the bare ETag (as Ceph RGW 16 does). */
async function conditionalStore(options: { ceph?: boolean } = {}) {
  const objects = new Map<string, { etag: string; body: string }>();
  const seen: Seen[] = [];
  const bodyOf = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const server: Server = createServer(async (request, response) => {
    const key = (request.url ?? '').split('?')[0]!;
    const body = await bodyOf(request);
    const ifMatch = request.headers['if-match'] as string | undefined;
    const ifNoneMatch = request.headers['if-none-match'] as string | undefined;
    seen.push({
      method: request.method ?? '',
      ...(ifMatch === undefined ? {} : { ifMatch }),
      ...(ifNoneMatch === undefined ? {} : { ifNoneMatch }),
    });
    const now = objects.get(key);
    if (request.method === 'HEAD') {
      response.writeHead(now ? 200 : 404, now ? { ETag: now.etag } : {});
      return response.end();
    }
    const compared = options.ceph ? now?.etag.replaceAll('"', '') : now?.etag;
    const refused = (ifNoneMatch === '*' && now) || (ifMatch !== undefined && ifMatch !== compared);
    if (refused) {
      response.writeHead(412, { 'Content-Type': 'application/xml' });
      return response.end(
        '<Error><Code>PreconditionFailed</Code><Message>At least one of the preconditions you specified did not hold</Message></Error>',
      );
    }
    const etag = `"${createHash('md5').update(body).digest('hex')}"`;
    objects.set(key, { etag, body });
    response.writeHead(200, { ETag: etag });
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    objects,
    seen,
    /** Another writer's object (an old leader's late upload, a hand edit). */
    replace: (key: string, body: string) =>
      objects.set(key, { etag: `"${createHash('md5').update(body).digest('hex')}"`, body }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let stateDir: string;
const stores: Awaited<ReturnType<typeof conditionalStore>>[] = [];
beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'ratefile-s3-conditional-'));
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: 'KEY',
    AWS_SECRET_ACCESS_KEY: 'SECRET',
    AWS_EC2_METADATA_DISABLED: 'true',
  });
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await rm(stateDir, { recursive: true, force: true });
});

const file = (text: string) => [{ file: 'parserfile.xml', bytes: Buffer.from(`<rates>${text}</rates>`) }];
const key = '/exports/rates/parserfile.xml';

async function publisherOn(options: { ceph?: boolean } = {}) {
  const store = await conditionalStore(options);
  stores.push(store);
  const target = {
    bucket: 'exports',
    prefix: 'rates/',
    forcePathStyle: true,
    cacheControl: 'no-cache',
    endpoint: store.endpoint,
    region: 'us-east-1',
  };
  return { store, publisher: new S3Publisher(target, stateDir) };
}

it('a first upload is If-None-Match: *, every next one If-Match on the ETag the store gave the last', async () => {
  const { store, publisher } = await publisherOn();
  try {
    await publisher.upload(file('one'));
    const first = store.objects.get(key)!.etag;
    await publisher.upload(file('two'));
    expect(store.seen.filter((s) => s.method === 'PUT')).toEqual([
      { method: 'PUT', ifNoneMatch: '*' },
      { method: 'PUT', ifMatch: first },
    ]);
    expect(store.objects.get(key)!.body).toBe('<rates>two</rates>');
  } finally {
    publisher.destroy();
  }
});

it("refused over another writer's version: read, asked again, written over that version; or given up when refused", async () => {
  const { store, publisher } = await publisherOn();
  try {
    await publisher.upload(file('mine'));
    store.replace(key, '<rates>an old leader</rates>');
    const theirs = store.objects.get(key)!.etag;
    // Still the holder: asked before the first write and again after the refusal, then written over theirs.
    let asked = 0;
    const holds = async () => {
      asked++;
      return undefined;
    };
    expect((await publisher.upload(file('newer'), { beforePut: holds })).uploaded).toEqual(['parserfile.xml']);
    expect(asked).toBe(2);
    expect(store.seen.slice(-3)).toEqual([
      { method: 'PUT', ifMatch: expect.any(String) as string },
      { method: 'HEAD' },
      { method: 'PUT', ifMatch: theirs },
    ]);
    expect(store.objects.get(key)!.body).toBe('<rates>newer</rates>');
    // An old holder: its first check said yes (before a pause), the store refuses its write, the lock then says no.
    store.replace(key, '<rates>the new leader</rates>');
    let checks = 0;
    const lost = async () => (++checks === 1 ? undefined : 'this instance no longer holds the lock');
    const late = await publisher.upload(file('old build'), { beforePut: lost });
    expect(late).toMatchObject({
      uploaded: [],
      failed: [],
      warnings: ['s3 upload of parserfile.xml skipped: this instance no longer holds the lock'],
    });
    expect(store.objects.get(key)!.body).toBe('<rates>the new leader</rates>');
  } finally {
    publisher.destroy();
  }
});

it('a store that compares If-Match with the bare ETag (Ceph RGW 16) is answered so from its first refusal on', async () => {
  const { store, publisher } = await publisherOn({ ceph: true });
  try {
    await publisher.upload(file('one'));
    const first = store.objects.get(key)!.etag;
    // Refused with the quoted ETag the object still carries: the same condition again, bare.
    expect((await publisher.upload(file('two'))).uploaded).toEqual(['parserfile.xml']);
    const second = store.objects.get(key)!.etag;
    await publisher.upload(file('three'));
    const bare = (etag: string) => etag.replaceAll('"', '');
    expect(store.seen.filter((s) => s.method !== 'HEAD').slice(1)).toEqual([
      { method: 'PUT', ifMatch: first },
      { method: 'PUT', ifMatch: bare(first) },
      { method: 'PUT', ifMatch: bare(second) },
    ]);
    expect(store.objects.get(key)!.body).toBe('<rates>three</rates>');
  } finally {
    publisher.destroy();
  }
});
