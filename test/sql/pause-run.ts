// The pause trials' set-up (test/sql/ha-pause.measure.ts): the lock's store (PostgreSQL, MariaDB or the S3 lease on
// radosgw, and the bucket for uploads), a project of 2,000 directions whose quotes move at every request, and the
// `ratefile start` instances, each marking its exports by the host of their `url`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
// @ts-expect-error: a plain .js module without types (the bench's generator).
import { writeBenchProject } from '../../bench/generate.js';
import { binPath, childEnv } from '../support/process.js';
import { locker } from './ha-suite.js';
import { startHoldingProxy, type HoldingProxy } from './pause-tools.js';
import { startRadosgw, type S3Store } from './radosgw.js';
import { startMariadb, startPostgres } from './servers.js';

const bin = process.env.RATEFILE_BIN ?? binPath;
const region = 'us-east-1';

/** Where the lock is (and the bucket, for uploads): `lock` is the YAML of `ha.lock`, `env` what the instances need. */
export interface Backend {
  lock: string;
  env: Record<string, string>;
  s3?: S3Store;
  stop(): Promise<void>;
}

export async function backendFor(kind: 'postgres' | 'mariadb' | 's3', uploads: boolean): Promise<Backend> {
  const s3 = kind === 's3' || uploads ? await startStore() : undefined;
  const awsEnv: Record<string, string> = s3
    ? {
        AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
        AWS_EC2_METADATA_DISABLED: 'true',
        AWS_CONFIG_FILE: '/nonexistent',
        AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
      }
    : {};
  if (kind === 's3')
    return {
      lock: `{ s3: { bucket: leases, key: pause.json, endpoint: "${s3!.endpoint}", region: ${region}, forcePathStyle: true } }`,
      env: awsEnv,
      s3: s3!,
      stop: () => s3!.stop(),
    };
  const server = await (kind === 'postgres' ? startPostgres() : startMariadb());
  await server.admin(
    kind === 'postgres'
      ? [
          `CREATE ROLE ${locker.user} LOGIN PASSWORD '${locker.password}'`,
          `CREATE DATABASE lockdb OWNER ${locker.user}`,
        ]
      : [
          'CREATE DATABASE lockdb',
          `CREATE USER '${locker.user}'@'127.0.0.1' IDENTIFIED BY '${locker.password}'`,
          `GRANT ALL ON lockdb.* TO '${locker.user}'@'127.0.0.1'`,
        ],
  );
  const scheme = kind === 'postgres' ? 'postgres' : 'mysql';
  const url = `${scheme}://${locker.user}:${encodeURIComponent(locker.password)}@127.0.0.1:${server.port}/lockdb`;
  return {
    lock: '{ env: RATEFILE_LOCK_URL }',
    env: { ...awsEnv, RATEFILE_LOCK_URL: url },
    ...(s3 ? { s3 } : {}),
    stop: async () => {
      await server.stop();
      await s3?.stop();
    },
  };
}

/** radosgw with the buckets `leases` and `exports`, each written once (a fresh cluster makes its pool then). */
async function startStore(): Promise<S3Store> {
  const store = await startRadosgw();
  const client = new S3Client({
    endpoint: store.endpoint,
    region,
    forcePathStyle: true,
    credentials: store.credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  try {
    for (const Bucket of ['leases', 'exports']) {
      await client.send(new CreateBucketCommand({ Bucket }));
      await client.send(new PutObjectCommand({ Bucket, Key: 'warm-up', Body: 'warm' }));
    }
  } finally {
    client.destroy();
  }
  return store;
}

/** Every price moves a little at every request, so every publish writes every file. */
async function startQuotes(assets: Map<string, number>): Promise<{ url: string; close(): Promise<void> }> {
  let count = 0;
  const server: Server = createServer((_request, response) => {
    const factor = 1 + (++count % 40) * 0.0005;
    const body: Record<string, { bid: string; ask: string }> = {};
    for (const [asset, price] of assets)
      body[asset] = { bid: (price * factor).toFixed(6), ask: (price * factor * 1.0005).toFixed(6) };
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/quotes`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface PauseProject {
  root: string;
  /** The shared output folder (folder modes). */
  out: string;
  /** The config of every instance but its `output:`, `publish:` and `ha.instance`. */
  config: string;
  upload: boolean;
  close(): Promise<void>;
}

export async function projectFor(
  root: string,
  backend: Backend,
  options: { upload: boolean; period: number },
): Promise<PauseProject> {
  const base = join(root, 'base');
  await mkdir(base);
  const count = (await writeBenchProject(base, Number(process.env.HA_PAUSE_DIRECTIONS ?? 2000))) as number;
  const fileQuotes = JSON.parse(await readFile(join(base, 'quotes.json'), 'utf8')) as {
    quotes: { pair: string; bid: string }[];
  };
  const assets = new Map(fileQuotes.quotes.map((q) => [q.pair.split('/')[0]!, Number(q.bid)]));
  const quotes = await startQuotes(assets);
  const pairs = [...assets.keys()]
    .map(
      (a) =>
        `${JSON.stringify(`${a}/USDT`)}: { bid: ${JSON.stringify(`${a}.bid`)}, ask: ${JSON.stringify(`${a}.ask`)} }`,
    )
    .join(', ');
  const config = (await readFile(join(base, 'ratefile.config.yaml'), 'utf8')).replace(
    '  feed: { type: file, path: quotes.json }',
    `  feed: { type: json, url: "${quotes.url}", pairs: { ${pairs} } }`,
  );
  const seconds = options.period / 1000;
  const out = join(root, 'public');
  await mkdir(out, { recursive: true });
  console.info(
    `pause trials: ${count} directions, a period of ${seconds} s, lock ${backend.lock.replace(/"[^"]*"/, '…')}`,
  );
  return {
    root,
    out,
    config: `${config}schedule: "*/${seconds} * * * * *"\nguards: { maxJump: 50% }\n`,
    upload: options.upload,
    close: quotes.close,
  };
}

export interface Instance {
  name: string;
  child: ChildProcess;
  log: () => string;
  /** Created to pause the instance inside its next rename of parserfile.xml (`rename` mode). */
  pauseFlag: string;
  proxy?: HoldingProxy;
  /** The exports the store took from this instance (2xx), with their marks. */
  uploads(): Landing[];
  stop(): Promise<void>;
}

/** An export file that landed (in the shared folder, or in the bucket), with the instance its content names. */
export interface Landing {
  at: number;
  file: string;
  mark: string | undefined;
}

const markIn = (text: string) => /https:\/\/(i\d)\.example\//.exec(text)?.[1];

export async function launch(name: string, project: PauseProject, backend: Backend, shim?: string): Promise<Instance> {
  const dir = join(project.root, name);
  await mkdir(join(dir, 'templates'), { recursive: true });
  const url = `url: "https://${name}.example/?cur_from={from}&cur_to={to}"`;
  const proxy = project.upload ? await startHoldingProxy(backend.s3!.endpoint) : undefined;
  const output = proxy
    ? `output: ${join(dir, 'public')}\npublish: { s3: { bucket: exports, prefix: "pause/", endpoint: "${proxy.endpoint}", region: ${region}, forcePathStyle: true } }\n`
    : `output: ${project.out}\n`;
  await writeFile(
    join(dir, 'ratefile.config.yaml'),
    `${project.config}${output}ha: { lock: ${backend.lock}, name: pause, instance: ${name}, allowConfigMismatch: true }\n`,
  );
  await writeFile(join(dir, 'templates', 'parserfile.yaml'), `description: all\n${url}\n`);
  await writeFile(join(dir, 'templates', 'reffile.yaml'), `include: { tags: [ref] }\n${url}\n`);
  await writeFile(join(dir, 'templates', 'affiliatefile.yaml'), `markup: 0.5%\n${url}\n`);
  const pauseFlag = join(dir, 'pause-flag');
  const pausing = shim
    ? {
        LD_PRELOAD: shim,
        PAUSE_RENAME_FLAG: pauseFlag,
        PAUSE_RENAME_FILE: 'parserfile.xml',
        PAUSE_RENAME_MS: process.env.HA_PAUSE_MS ?? '9000',
      }
    : {};
  const child = spawn(process.execPath, [bin, '--log-format', 'json', 'start', '--port', '0'], {
    cwd: dir,
    env: { ...childEnv(), ...backend.env, ...pausing },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    child,
    log: () => log,
    pauseFlag,
    ...(proxy ? { proxy } : {}),
    uploads: () =>
      (proxy?.forwarded ?? [])
        .filter((entry) => entry.method === 'PUT' && entry.status >= 200 && entry.status < 300)
        .filter((entry) => entry.path.startsWith('/exports/pause/'))
        .map((entry) => ({
          at: entry.at,
          file: entry.path.split('?')[0]!.slice('/exports/pause/'.length),
          mark: markIn(entry.body.toString('utf8')),
        })),
    stop: async () => {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await exited;
      await proxy?.close();
    },
  };
}

/** The instance that last logged taking the lock, and when (by its log's own clock). */
export function lastTakeover(instances: readonly Instance[]): { name: string; at: number } | undefined {
  let best: { name: string; at: number } | undefined;
  for (const instance of instances)
    for (const line of instance.log().split('\n')) {
      if (!line.includes('"msg":"ha: took the lock')) continue;
      const at = Date.parse((JSON.parse(line) as { time: string }).time);
      if (!best || at > best.at) best = { name: instance.name, at };
    }
  return best;
}

/** The mark (instance name) of an export file as it is now, or undefined when unreadable mid-rename. */
export async function markOf(path: string): Promise<string | undefined> {
  try {
    const raw = await readFile(path);
    const text = path.endsWith('.gz') ? gunzipSync(raw) : path.endsWith('.br') ? brotliDecompressSync(raw) : raw;
    return markIn(text.toString('utf8'));
  } catch {
    return undefined;
  }
}
