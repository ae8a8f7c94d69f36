// Issue 33, item 1, measured: three `ratefile start` instances with `ha:` on one lock (real PostgreSQL, then
// MariaDB) and one shared output folder, 2,000 directions, a period of 3 s. The moment a temporary export file
// appears in the folder (the leader is mid-publish), the leader gets SIGSTOP; after HA_PAUSE_MS (default 9 s, three
// periods: the takeover takes about 1.5) it gets SIGCONT. Every export file put in place in the folder after the
// takeover is read as it lands: one carrying the paused leader's mark is a file of an older build written after a
// takeover. Each instance marks its exports by the host of their `url` (https://i1.example/…; the configs differ only
// there, so `ha.allowConfigMismatch` lets them take over from each other). The instances run on through the trials:
// each trial pauses whichever leads. Env: HA_PAUSE_TRIALS (30), HA_PAUSE_DB (postgres,mariadb), HA_PAUSE_MS,
// RATEFILE_BIN (another build's bin/ratefile.js, e.g. main's, to compare).
import { spawn, type ChildProcess } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
// @ts-expect-error: a plain .js module without types (the bench's generator).
import { writeBenchProject } from '../../bench/generate.js';
import { binPath, childEnv } from '../support/process.js';
import { locker } from './ha-suite.js';
import { requireServer, startMariadb, startPostgres, type DatabaseServer } from './servers.js';

const TRIALS = Number(process.env.HA_PAUSE_TRIALS ?? 30);
const PAUSE_MS = Number(process.env.HA_PAUSE_MS ?? 9_000);
const PERIOD = 3_000;
const bin = process.env.RATEFILE_BIN ?? binPath;
const databases = (process.env.HA_PAUSE_DB ?? 'postgres,mariadb').split(',');
const temporary = /^\..+\.[0-9a-f]{12}\.tmp$/;

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

interface Instance {
  name: string;
  child: ChildProcess;
  log: () => string;
}

function launch(name: string, dir: string, lockUrl: string): Instance {
  const child = spawn(process.execPath, [bin, '--log-format', 'json', 'start', '--port', '0'], {
    cwd: dir,
    env: { ...childEnv(), RATEFILE_LOCK_URL: lockUrl },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (log += chunk));
  return { name, child, log: () => log };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until<T>(what: string, probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The instance that last logged taking the lock, and when (by its log's own clock). */
function lastTakeover(instances: readonly Instance[]): { name: string; at: number; from?: string } | undefined {
  let best: { name: string; at: number; from?: string } | undefined;
  for (const instance of instances)
    for (const line of instance.log().split('\n')) {
      if (!line.includes('"msg":"ha: took the lock')) continue;
      const entry = JSON.parse(line) as { time: string; from?: string };
      const at = Date.parse(entry.time);
      if (!best || at > best.at)
        best = { name: instance.name, at, ...(entry.from === undefined ? {} : { from: entry.from }) };
    }
  return best;
}

/** The mark (instance name) of an export file as it is now, or undefined when unreadable mid-rename. */
async function markOf(path: string): Promise<string | undefined> {
  try {
    const raw = await readFile(path);
    const text = (
      path.endsWith('.gz') ? gunzipSync(raw) : path.endsWith('.br') ? brotliDecompressSync(raw) : raw
    ).toString('utf8');
    return /https:\/\/(i\d)\.example\//.exec(text)?.[1];
  } catch {
    return undefined;
  }
}

async function measure(dialect: 'postgres' | 'mariadb'): Promise<{ trials: number; stale: number; rows: string[] }> {
  const server: DatabaseServer = await (dialect === 'postgres' ? startPostgres() : startMariadb());
  const root = await mkdtemp(join(tmpdir(), 'ratefile-ha-pause-'));
  const instances: Instance[] = [];
  let quotes: { close(): Promise<void> } | undefined;
  try {
    await server.admin(
      dialect === 'postgres'
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
    const scheme = dialect === 'postgres' ? 'postgres' : 'mysql';
    const lockUrl = `${scheme}://${locker.user}:${encodeURIComponent(locker.password)}@127.0.0.1:${server.port}/lockdb`;
    const base = join(root, 'base');
    await mkdir(base);
    const count = (await writeBenchProject(base, 2000)) as number;
    expect(count).toBe(2000);
    const fileQuotes = JSON.parse(await readFile(join(base, 'quotes.json'), 'utf8')) as {
      quotes: { pair: string; bid: string }[];
    };
    const assets = new Map(fileQuotes.quotes.map((q) => [q.pair.split('/')[0]!, Number(q.bid)]));
    const served = await startQuotes(assets);
    quotes = served;
    const pairs = [...assets.keys()]
      .map(
        (asset) =>
          `${JSON.stringify(`${asset}/USDT`)}: { bid: ${JSON.stringify(`${asset}.bid`)}, ask: ${JSON.stringify(`${asset}.ask`)} }`,
      )
      .join(', ');
    const config = (await readFile(join(base, 'ratefile.config.yaml'), 'utf8')).replace(
      '  feed: { type: file, path: quotes.json }',
      `  feed: { type: json, url: "${served.url}", pairs: { ${pairs} } }`,
    );
    const out = join(root, 'public');
    for (const name of ['i1', 'i2', 'i3']) {
      const dir = join(root, name);
      await mkdir(join(dir, 'templates'), { recursive: true });
      const url = `url: "https://${name}.example/?cur_from={from}&cur_to={to}"`;
      await writeFile(
        join(dir, 'ratefile.config.yaml'),
        `${config}output: ${out}\nschedule: "*/3 * * * * *"\nguards: { maxJump: 50% }\nha: { lock: { env: RATEFILE_LOCK_URL }, name: pause, instance: ${name}, allowConfigMismatch: true }\n`,
      );
      await writeFile(join(dir, 'templates', 'parserfile.yaml'), `description: all\n${url}\n`);
      await writeFile(join(dir, 'templates', 'reffile.yaml'), `include: { tags: [ref] }\n${url}\n`);
      await writeFile(join(dir, 'templates', 'affiliatefile.yaml'), `markup: 0.5%\n${url}\n`);
    }
    for (const name of ['i1', 'i2', 'i3']) instances.push(launch(name, join(root, name), lockUrl));
    await until('a first leader', () => lastTakeover(instances), 60_000);
    await mkdir(out, { recursive: true });

    // Every export file landing in the folder, with its mark, as it lands.
    const landed: { at: number; file: string; mark: string | undefined }[] = [];
    let onTemporary: (() => void) | undefined;
    const watcher = watch(out, (_event, name) => {
      if (!name) return;
      if (temporary.test(name)) return onTemporary?.();
      const at = Date.now();
      void markOf(join(out, name)).then((mark) => landed.push({ at, file: name, mark }));
    });
    const rows: string[] = [];
    let stale = 0;
    let trials = 0;
    try {
      for (let trial = 1; trial <= TRIALS; trial++) {
        // The leader is whoever's mark the files landing now carry (not just who logged a takeover last).
        const since = Date.now();
        const leader = await until('a publish', () => landed.findLast((e) => e.at > since && e.mark)?.mark, 30_000);
        const paused = instances.find((instance) => instance.name === leader)!;
        // The next temporary file: the leader is mid-publish.
        await new Promise<void>((resolve) => {
          onTemporary = () => {
            onTemporary = undefined;
            paused.child.kill('SIGSTOP');
            resolve();
          };
        });
        const stoppedAt = Date.now();
        await sleep(PAUSE_MS);
        const takeover = lastTakeover(instances);
        const tookOver = takeover && takeover.name !== paused.name && takeover.at > stoppedAt ? takeover : undefined;
        paused.child.kill('SIGCONT');
        const resumedAt = Date.now();
        await sleep(2 * PERIOD);
        trials++;
        // Files of the paused leader's (older) build that landed after the takeover.
        // Until the paused instance takes the lock again itself (a fresh build of its own, not an old one).
        const retook = lastTakeover([paused]);
        const before = retook && retook.at > stoppedAt ? retook.at : Number.POSITIVE_INFINITY;
        const late = tookOver
          ? landed.filter((entry) => entry.at > tookOver.at && entry.at < before && entry.mark === paused.name)
          : [];
        stale += late.length;
        rows.push(
          `trial ${trial}: paused ${paused.name} ${resumedAt - stoppedAt} ms; ${tookOver ? `${tookOver.name} took over after ${tookOver.at - stoppedAt} ms` : 'NO TAKEOVER'}; ${late.length} old-build files after the takeover${late.length > 0 ? ` (${late.map((entry) => `${entry.file} +${entry.at - resumedAt} ms`).join(', ')})` : ''}`,
        );
        console.info(`${dialect}: ${rows.at(-1)}`);
        landed.length = 0;
      }
    } finally {
      watcher.close();
    }
    return { trials, stale, rows };
  } finally {
    for (const instance of instances) {
      instance.child.kill('SIGCONT');
      instance.child.kill('SIGKILL');
    }
    await quotes?.close();
    await server.stop();
    await rm(root, { recursive: true, force: true });
  }
}

for (const dialect of databases as ('postgres' | 'mariadb')[])
  it.runIf(requireServer(dialect))(`${dialect}: SIGSTOP mid-publish, no older build after a takeover`, async () => {
    const { trials, stale } = await measure(dialect);
    console.info(`${dialect}: ${trials} trials, ${stale} files of an older build written after a takeover`);
    expect(stale).toBe(0);
  });
