// S3 publishing with the real AWS SDK against a real S3-protocol server (s3rver) on 127.0.0.1: what lands in
// the bucket, what is not uploaded twice, what happens when the store fails, and that credentials stay out of logs.
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/io/config/load.js';
import { summarize } from '../../../src/pure/status/cycle-lines.js';
import { runCycle } from '../../../src/io/build/cycle.js';
import { S3Publisher, s3StateFile } from '../../../src/io/hosting/s3.js';
import { uploadProblems } from '../../../src/io/hosting/s3-report.js';
import type { OutputFile, S3Target } from '../../../src/model/config.js';
import { rawRequest } from '../../support/http.js';
import { offlineFetch, runRatefile, type Outcome } from '../../support/run-cli.js';
import { makeProject, sampleConfig, sampleQuotes, writeSampleQuotes, type Project } from '../../support/project.js';
import { assertBuilt, spawnRatefile, stopAll } from '../../support/process.js';
import { xmlErrors } from '../../support/xml.js';

const exportFiles = ['affiliatefile.xml', 'parserfile.xml', 'reffile.xml'];
const now = () => new Date('2026-11-21T12:00:30Z');
/** s3rver knows one account: access key S3RVER (it checks the key, not the v4 signature). */
const credentials = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER-secret-never-logged' };

let store: S3rver;
let storeDir: string;
let port: number;
let endpoint: string;
let reader: S3Client;
const savedEnv = new Map<string, string | undefined>();
const projects: Project[] = [];

function setEnv(values: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(values)) {
    if (!savedEnv.has(key)) savedEnv.set(key, process.env[key]);
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}

async function startStore(atPort = 0): Promise<number> {
  store = new S3rver({ address: '127.0.0.1', port: atPort, silent: true, directory: storeDir });
  return (await store.run()).port;
}

beforeAll(async () => {
  storeDir = await mkdtemp(join(tmpdir(), 'ratefile-s3rver-'));
  // Only the SDK's default chain supplies credentials: here, the environment. Nothing from the machine's
  // profiles, and no instance-metadata lookups (which would leave the loopback interface).
  setEnv({
    ...credentials,
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    AWS_REGION: undefined,
    AWS_CONFIG_FILE: join(storeDir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(storeDir, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  });
  port = await startStore();
  endpoint = `http://127.0.0.1:${port}`;
  reader = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
});

afterEach(async () => {
  await stopAll();
  await Promise.all(projects.splice(0).map((project) => project.remove()));
});

afterAll(async () => {
  reader.destroy();
  await store.close();
  await rm(storeDir, { recursive: true, force: true });
  for (const [key, value] of savedEnv) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

let bucketCount = 0;
/** A fresh bucket per test, so tests never see each other's objects. */
async function newBucket(create = true): Promise<string> {
  const bucket = `rates-${++bucketCount}-${process.pid}`;
  if (create) await reader.send(new CreateBucketCommand({ Bucket: bucket }));
  return bucket;
}

const publishBlock = (bucket: string, extra = '') =>
  `publish:\n  s3:\n    bucket: ${bucket}\n    prefix: exports\n    region: us-east-1\n    endpoint: "${endpoint}"\n    forcePathStyle: true\n${extra}`;

async function project(bucket: string, extra = ''): Promise<Project> {
  const created = await makeProject({ 'ratefile.config.yaml': `${sampleConfig}${publishBlock(bucket, extra)}` });
  projects.push(created);
  return created;
}

const cycle = async (dir: Project) =>
  runCycle(await loadConfig(dir.configPath), join(dir.dir, 'public'), { now, fetch: offlineFetch });

async function object(bucket: string, key: string) {
  const response = await reader.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return { ...response, bytes: Buffer.from((await response.Body?.transformToByteArray()) ?? []) };
}

const localFile = (dir: Project, file: string) => readFile(join(dir.dir, 'public', file));

function target(bucket: string, extra: Partial<S3Target> = {}): S3Target {
  return {
    bucket,
    prefix: 'x/',
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    cacheControl: 'no-cache',
    ...extra,
  };
}

const doc = (label: string): OutputFile => ({
  file: 'parserfile.xml',
  bytes: Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<rates><!-- ${label} --></rates>\n`),
});

describe('uploading after each build', () => {
  it('puts every export under the prefix with its exact bytes, application/xml and the configured Cache-Control', async () => {
    const bucket = await newBucket();
    const dir = await project(bucket, '    cacheControl: "public, max-age=15"\n');
    const result = await cycle(dir);
    expect(result.upload).toMatchObject({ uploaded: exportFiles, unchanged: [], failed: [], warnings: [] });
    expect(result.warnings).toEqual([]);
    for (const file of exportFiles) {
      const stored = await object(bucket, `exports/${file}`);
      expect(stored.bytes.equals(await localFile(dir, file))).toBe(true);
      expect(stored.ContentType).toBe('application/xml');
      expect(stored.CacheControl).toBe('public, max-age=15');
      expect(await xmlErrors(stored.bytes)).toEqual([]);
    }
    // What a CDN in front of the bucket gets over plain HTTP: the headers stored with the object.
    const plain = await rawRequest({ port, path: `/${bucket}/exports/parserfile.xml` });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('application/xml');
    expect(plain.headers['cache-control']).toBe('public, max-age=15');
    expect(plain.body.equals(await localFile(dir, 'parserfile.xml'))).toBe(true);
  });

  it('does not upload unchanged files again, in this process or the next, and uploads a changed one', async () => {
    const bucket = await newBucket();
    const dir = await project(bucket);
    await cycle(dir);
    // Overwrite an object behind ratefile's back: a re-upload would put the export back.
    const sentinel = Buffer.from('<rates><!-- not from ratefile --></rates>\n');
    await reader.send(new PutObjectCommand({ Bucket: bucket, Key: 'exports/reffile.xml', Body: sentinel }));

    const again = await cycle(dir);
    expect(again.upload).toMatchObject({ uploaded: [], unchanged: exportFiles, failed: [] });
    expect(summarize(again)).toMatch(/; s3 0 uploaded, 3 unchanged; \d+ ms$/);
    expect((await object(bucket, 'exports/reffile.xml')).bytes.equals(sentinel)).toBe(true);

    // A new process (fresh memory) reads what was uploaded from the state folder, not from the output folder.
    const config = await loadConfig(dir.configPath);
    const files = await Promise.all(exportFiles.map(async (file) => ({ file, bytes: await localFile(dir, file) })));
    const fresh = new S3Publisher(config.publish.s3!, config.stateDir);
    try {
      expect(await fresh.upload(files)).toMatchObject({ uploaded: [], unchanged: exportFiles, failed: [] });
    } finally {
      fresh.destroy();
    }
    expect((await stat(s3StateFile(config.stateDir))).isFile()).toBe(true);
    expect((await readdir(join(dir.dir, 'public'))).filter((name) => name.includes('s3'))).toEqual([]);

    // New quotes change every export: each is uploaded, the foreign bytes replaced.
    const moved = {
      quotes: sampleQuotes.quotes.map((q) => (q.pair === 'USDT/RUB' ? { ...q, bid: '93.10', ask: '93.35' } : q)),
    };
    await dir.write('quotes.json', JSON.stringify(moved));
    const changed = await cycle(dir);
    expect(changed.publish.written.length).toBeGreaterThan(0);
    expect(changed.upload?.uploaded).toEqual(changed.publish.written);
    for (const file of changed.publish.written)
      expect((await object(bucket, `exports/${file}`)).bytes.equals(await localFile(dir, file))).toBe(true);
  });

  it('uploads again when the Cache-Control setting changes, so the objects carry the new header', async () => {
    const bucket = await newBucket();
    const dir = await project(bucket);
    await cycle(dir);
    expect((await object(bucket, 'exports/parserfile.xml')).CacheControl).toBe('no-cache');
    await dir.write(
      'ratefile.config.yaml',
      `${sampleConfig}${publishBlock(bucket, '    cacheControl: "max-age=5"\n')}`,
    );
    const result = await cycle(dir);
    expect(result.upload?.uploaded).toEqual(exportFiles);
    expect((await object(bucket, 'exports/parserfile.xml')).CacheControl).toBe('max-age=5');
  });

  it('a failed upload is logged, leaves the local files written, and is retried by the next build', async () => {
    const bucket = await newBucket(false);
    const dir = await project(bucket);
    const failed = await cycle(dir);
    // The build itself succeeded: files are in the output folder.
    expect(failed.publish.written).toEqual(exportFiles);
    for (const file of exportFiles) expect(await xmlErrors(await localFile(dir, file))).toEqual([]);
    expect(failed.upload).toMatchObject({ uploaded: [], unchanged: [] });
    expect(failed.upload?.failed.map((f) => f.file)).toEqual(exportFiles);
    // The same reason for every file: one line.
    expect(failed.warnings).toHaveLength(1);
    expect(failed.warnings[0]).toMatch(
      new RegExp(
        `^s3 upload of 3 files \\(affiliatefile\\.xml, parserfile\\.xml, reffile\\.xml\\) to s3://${bucket}/exports/ at http://127\\.0\\.0\\.1:\\d+ failed \\(local files unaffected, retried on the next build\\): NoSuchBucket: `,
      ),
    );
    expect(summarize(failed)).toMatch(/; s3 0 uploaded, 0 unchanged, 3 FAILED; \d+ ms$/);

    await reader.send(new CreateBucketCommand({ Bucket: bucket }));
    const retried = await cycle(dir);
    // Locally nothing changed, yet everything is uploaded: what counts is what the bucket last got.
    expect(retried.publish.unchanged).toEqual(exportFiles);
    expect(retried.upload).toMatchObject({ uploaded: exportFiles, failed: [] });
    expect(retried.warnings).toEqual([]);
    for (const file of exportFiles)
      expect((await object(bucket, `exports/${file}`)).bytes.equals(await localFile(dir, file))).toBe(true);
  });

  it('deletes the object of an export no longer declared, and only objects ratefile uploaded', async () => {
    const bucket = await newBucket();
    const dir = await project(bucket);
    await cycle(dir);
    const foreign = Buffer.from('<rates><!-- not from ratefile --></rates>\n');
    await reader.send(new PutObjectCommand({ Bucket: bucket, Key: 'exports/legacy.xml', Body: foreign }));
    await rm(join(dir.dir, 'templates', 'reffile.yaml'));

    const result = await cycle(dir);
    expect(result.upload).toMatchObject({
      uploaded: [],
      unchanged: ['affiliatefile.xml', 'parserfile.xml'],
      removed: ['reffile.xml'],
      failed: [],
    });
    expect(summarize(result)).toMatch(
      /; removed reffile\.xml \(no template declares it any more\); s3 0 uploaded, 2 unchanged, 1 removed; \d+ ms$/,
    );
    await expect(object(bucket, 'exports/reffile.xml')).rejects.toThrow(/NoSuchKey|does not exist/);
    expect((await object(bucket, 'exports/legacy.xml')).bytes.equals(foreign)).toBe(true);
    expect((await object(bucket, 'exports/parserfile.xml')).bytes.equals(await localFile(dir, 'parserfile.xml'))).toBe(
      true,
    );
    expect(
      Object.keys(
        (
          JSON.parse(await readFile(s3StateFile((await loadConfig(dir.configPath)).stateDir), 'utf8')) as {
            objects: object;
          }
        ).objects,
      ),
    ).toHaveLength(2);
  });

  it('uploads a .json export as application/json and an EREF 1.1 .xml as application/xml, and removes an undeclared .json', async () => {
    const bucket = await newBucket();
    const stateDir = await mkdtemp(join(tmpdir(), 'ratefile-s3state-'));
    const publisher = new S3Publisher(target(bucket), stateDir);
    const json = {
      file: 'rates.json',
      bytes: Buffer.from('{"version": "1.3", "currencies": {"list": {}}, "exchange": {}}\n'),
    };
    const eref = { ...doc('eref'), file: 'rates-1.1.xml' };
    try {
      expect((await publisher.upload([json, eref])).uploaded).toEqual(['rates.json', 'rates-1.1.xml']);
      expect((await object(bucket, 'x/rates.json')).ContentType).toBe('application/json');
      expect((await object(bucket, 'x/rates-1.1.xml')).ContentType).toBe('application/xml');
      expect(await publisher.upload([eref], { declared: ['rates-1.1.xml'] })).toMatchObject({
        unchanged: ['rates-1.1.xml'],
        removed: ['rates.json'],
        failed: [],
      });
      await expect(object(bucket, 'x/rates.json')).rejects.toThrow(/NoSuchKey|does not exist/);
    } finally {
      publisher.destroy();
      await rm(stateDir, { recursive: true, force: true });
    }
  });

  it('a failed deletion is a warning and is retried by the next build', async () => {
    const bucket = await newBucket();
    const stateDir = await mkdtemp(join(tmpdir(), 'ratefile-s3state-'));
    const publisher = new S3Publisher(target(bucket), stateDir);
    const ref = { ...doc('ref'), file: 'reffile.xml' };
    try {
      expect((await publisher.upload([doc('v1'), ref])).uploaded).toEqual(['parserfile.xml', 'reffile.xml']);
      await store.close();
      let down;
      try {
        down = await publisher.upload([doc('v1')], { declared: ['parserfile.xml'] });
      } finally {
        await startStore(port);
      }
      expect(down).toMatchObject({ unchanged: ['parserfile.xml'], removed: [] });
      expect(down.failed.map((f) => [f.file, f.action])).toEqual([['reffile.xml', 'removal']]);
      expect(uploadProblems(down)[0]).toMatch(
        new RegExp(
          `^s3 removal of s3://${bucket}/x/reffile\\.xml \\(reffile\\.xml is no longer declared\\) failed \\(retried on the next build\\): `,
        ),
      );
      const again = await publisher.upload([doc('v1')], { declared: ['parserfile.xml'] });
      expect(again).toMatchObject({ removed: ['reffile.xml'], failed: [] });
      await expect(object(bucket, 'x/reffile.xml')).rejects.toThrow(/NoSuchKey|does not exist/);
    } finally {
      publisher.destroy();
      await rm(stateDir, { recursive: true, force: true });
    }
  });

  it('a store that is down fails the upload; once it is back, the next upload puts the current bytes, even bytes uploaded before', async () => {
    const bucket = await newBucket();
    const stateDir = await mkdtemp(join(tmpdir(), 'ratefile-s3state-'));
    const publisher = new S3Publisher(target(bucket), stateDir);
    try {
      expect((await publisher.upload([doc('v1')])).uploaded).toEqual(['parserfile.xml']);
      await store.close();
      let down;
      try {
        down = await publisher.upload([doc('v2')]);
      } finally {
        await startStore(port);
      }
      expect(down.failed).toHaveLength(1);
      expect(down.failed[0]?.error).toMatch(/ECONNREFUSED/);
      // Back to v1: the failed v2 may have reached the store, so v1 is not taken as already there.
      const back = await publisher.upload([doc('v1')]);
      expect(back).toMatchObject({ uploaded: ['parserfile.xml'], failed: [] });
      expect((await object(bucket, 'x/parserfile.xml')).bytes.equals(doc('v1').bytes)).toBe(true);
    } finally {
      publisher.destroy();
      await rm(stateDir, { recursive: true, force: true });
    }
  });

  it('a store that accepts connections but never answers fails the upload within the deadline', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const silentPort = typeof address === 'object' && address ? address.port : 0;
    const stateDir = await mkdtemp(join(tmpdir(), 'ratefile-s3state-'));
    const publisher = new S3Publisher(target('rates', { endpoint: `http://127.0.0.1:${silentPort}` }), stateDir, {
      deadlineMs: 1_000,
    });
    try {
      const started = Date.now();
      const result = await publisher.upload([doc('hang')]);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(result.failed).toHaveLength(1);
      // The store's host and port: a timeout says nothing of where it went otherwise.
      expect(result.failed[0]?.error).toBe(`AbortError: no answer within 1 s (127.0.0.1:${silentPort})`);
      expect(sockets.size).toBeGreaterThan(0);
    } finally {
      publisher.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
      await rm(stateDir, { recursive: true, force: true });
    }
  });

  it('--force and a new target upload everything; the state file remembers each target apart', async () => {
    const bucket = await newBucket();
    const stateDir = await mkdtemp(join(tmpdir(), 'ratefile-s3state-'));
    try {
      for (const [t, expected] of [
        [target(bucket), ['parserfile.xml']],
        [target(bucket), []],
        [target(bucket, { prefix: 'y/' }), ['parserfile.xml']],
        [target(bucket), []],
      ] as const) {
        const publisher = new S3Publisher(t, stateDir);
        expect((await publisher.upload([doc('same')])).uploaded).toEqual(expected);
        publisher.destroy();
      }
      const forced = new S3Publisher(target(bucket), stateDir);
      expect((await forced.upload([doc('same')], { force: true })).uploaded).toEqual(['parserfile.xml']);
      forced.destroy();
      // An unreadable state file costs a re-upload and a warning, never a failure.
      await writeFile(s3StateFile(stateDir), '{ torn');
      const afterTorn = new S3Publisher(target(bucket), stateDir);
      const result = await afterTorn.upload([doc('same')]);
      afterTorn.destroy();
      expect(result.uploaded).toEqual(['parserfile.xml']);
      expect(result.warnings[0]).toMatch(/s3\.json: unreadable, every file is uploaded again/);
      expect(JSON.parse(await readFile(s3StateFile(stateDir), 'utf8'))).toMatchObject({ version: 1 });
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});

describe('credentials', () => {
  it('come from the SDK chain (here the environment) and never appear in a log line', async () => {
    const bucket = await newBucket();
    const stateDir = await mkdtemp(join(tmpdir(), 'ratefile-s3state-'));
    const wrong = {
      AWS_ACCESS_KEY_ID: 'AKIAZZZZZZZZZZZZZZZZ',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI-K7MDENG-bPxRfiCYzzzzzzzzzz',
    };
    setEnv(wrong);
    const publisher = new S3Publisher(target(bucket), stateDir);
    try {
      const result = await publisher.upload([doc('creds')]);
      // The store refused the key from the environment: proof that it was the one used.
      expect(result.failed[0]?.error).toMatch(/^InvalidAccessKeyId: /);
      const logged = JSON.stringify(result);
      expect(logged).not.toContain(wrong.AWS_ACCESS_KEY_ID);
      expect(logged).not.toContain(wrong.AWS_SECRET_ACCESS_KEY);
    } finally {
      publisher.destroy();
      setEnv(credentials);
      await rm(stateDir, { recursive: true, force: true });
    }
  });

  it.each([
    ['secretAccessKey: "abc"', /publish\.s3\.secretAccessKey: credentials are never read from the config file/],
    ['accessKeyId: "AKIA"', /publish\.s3\.accessKeyId: credentials are never read from the config file/],
    [
      'endpoint: "https://key:secret@storage.example"',
      /publish\.s3\.endpoint: credentials are never read from the config file/,
    ],
  ])('a config with %s is refused (exit 2), the value never echoed', async (line, message) => {
    const dir = await makeProject({
      'ratefile.config.yaml': `${sampleConfig}publish:\n  s3:\n    bucket: rates\n    ${line}\n`,
    });
    projects.push(dir);
    const { code, stderr } = await cli(['build'], dir.dir);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toContain('secret@');
    await expect(stat(join(dir.dir, 'public'))).rejects.toThrow(/ENOENT/);
  });
});

/** `ratefile ...args` in-process, offline, at the test clock. */
function cli(args: readonly string[], cwd: string): Promise<Outcome> {
  return runRatefile(args, cwd, { now, waitForStop: () => new Promise(() => undefined) });
}

describe('ratefile publish', () => {
  it('uploads the output folder: changed files only, all with --force; exit 1 when an upload fails', async () => {
    const bucket = await newBucket();
    const dir = await project(bucket);
    const before = await cli(['publish'], dir.dir);
    expect(before.code).toBe(1);
    const missing = (file: string) => `cannot read public/${file}: missing (run \`ratefile build\` first)`;
    expect(before.stderr).toContain(
      `ratefile: ${['affiliatefile.xml', 'parserfile.xml', 'reffile.xml'].map(missing).join('; ')}\n`,
    );

    expect((await cli(['build'], dir.dir)).code).toBe(0);
    await rm(s3StateFile(join(dir.dir, '.ratefile')));
    await reader.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'exports/parserfile.xml', Body: Buffer.from('stale') }),
    );
    const first = await cli(['publish'], dir.dir);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(
      new RegExp(
        `info publish: s3://${bucket}/exports/ at ${endpoint.replace(/\./g, '\\.')}: uploaded affiliatefile\\.xml, parserfile\\.xml, reffile\\.xml; unchanged none\\n`,
      ),
    );
    expect((await object(bucket, 'exports/parserfile.xml')).bytes.equals(await localFile(dir, 'parserfile.xml'))).toBe(
      true,
    );

    const second = await cli(['publish'], dir.dir);
    expect(second.stderr).toMatch(/uploaded none; unchanged affiliatefile\.xml, parserfile\.xml, reffile\.xml\n/);
    const forced = await cli(['publish', '--force'], dir.dir);
    expect(forced.stderr).toMatch(/uploaded affiliatefile\.xml, parserfile\.xml, reffile\.xml; unchanged none\n/);

    await dir.write('ratefile.config.yaml', `${sampleConfig}${publishBlock(await newBucket(false))}`);
    const failing = await cli(['publish'], dir.dir);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toMatch(
      /warn s3 upload of 3 files \(affiliatefile\.xml, parserfile\.xml, reffile\.xml\) to s3:\/\/\S+ at http:\/\/127\.0\.0\.1:\d+ failed \(local files unaffected; run `ratefile publish` again or let the next build retry\): NoSuchBucket/,
    );
    expect(failing.stderr).not.toContain(credentials.AWS_SECRET_ACCESS_KEY);
  });

  it('exits 2 when the config has no publish.s3 block', async () => {
    const dir = await makeProject();
    projects.push(dir);
    const result = await cli(['publish'], dir.dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ratefile: nothing to publish to: ratefile\.config\.yaml has no publish\.s3 block/);
  });

  it('the one-shot `ratefile build` binary uploads, logs it, and exits promptly (no connection keeps it alive)', async () => {
    assertBuilt();
    const bucket = await newBucket();
    const dir = await project(bucket);
    const proc = spawnRatefile(['--log-format', 'json', 'build'], { cwd: dir.dir });
    // Promptly = from the build's last line to the exit: a socket kept alive would hold the process for
    // the server's keep-alive time (5 s and more); the build before that line may be slow on a loaded machine.
    await proc.waitForLog(/"event":"build"/, 60_000);
    const logged = Date.now();
    const exit = await proc.exited;
    expect(exit.code, proc.stderr()).toBe(0);
    expect(Date.now() - logged).toBeLessThan(3_000);
    const lines = proc
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event?: string; msg?: string; s3?: unknown });
    const buildLine = lines.find((line) => line.event === 'build');
    expect(buildLine?.msg).toMatch(/^build: .*; s3 3 uploaded, 0 unchanged; \d+ ms/);
    expect(buildLine?.s3).toEqual({ uploaded: exportFiles, unchanged: [], removed: [], failed: [] });
    expect(proc.stderr()).not.toContain(credentials.AWS_SECRET_ACCESS_KEY);
    // Only ratefile's JSON lines: no library warning (the SDK's NodeVersionSupportWarning on Node 20) on a line engines supports.
    expect(
      proc
        .stderr()
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('{')),
    ).toEqual([]);
    expect(
      (await object(bucket, 'exports/affiliatefile.xml')).bytes.equals(await localFile(dir, 'affiliatefile.xml')),
    ).toBe(true);
  });
});

describe('the bucket as the last published rates (issue 44, item 3)', () => {
  it('with no guard.json and no local export, a first rate is measured from the copy in the bucket', async () => {
    const bucket = await newBucket();
    const dir = await project(bucket);
    const at = (seconds: number) => new Date(now().getTime() + seconds * 1000);
    const build = async (seconds: number, btc: string) => {
      await writeSampleQuotes(dir, at(seconds), btc);
      return runCycle(await loadConfig(dir.configPath), join(dir.dir, 'public'), {
        now: () => at(seconds),
        fetch: offlineFetch,
      });
    };
    expect((await build(0, '1')).upload?.uploaded).toEqual(exportFiles);
    // A new machine: no state folder, no output folder; only the bucket remembers what was published.
    await rm(join(dir.dir, '.ratefile'), { recursive: true });
    await rm(join(dir.dir, 'public'), { recursive: true });
    const jumped = await build(30, '40');
    expect(jumped.build.report.withheld.map((w) => [w.direction.id, w.jump?.hard])).toEqual([
      ['BTC>SBERRUB', true],
      ['BTC>USDTTRC20', true],
    ]);
    expect(jumped.build.report.withheld[0]?.reason).toMatch(
      new RegExp(
        `^rate moved ×40, \\+3900% from the last published [\\d.]+ \\(s3://${bucket}/exports/parserfile\\.xml\\) to `,
      ),
    );
    // The bucket now has the file without them, and guard.json the rates it had: the next build holds them too.
    expect((await object(bucket, 'exports/parserfile.xml')).bytes.toString()).not.toContain('<from>BTC</from>');
    expect((await build(60, '40')).build.report.withheld).toHaveLength(2);
  });
});
