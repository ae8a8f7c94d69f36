// Issues 33 and 45, measured: three `ratefile start` instances with `ha:` on one lock (real PostgreSQL, MariaDB, or
// the S3 lease on Ceph's radosgw), 2,000 directions, a period of 3 s; each trial pauses whichever leads, for
// HA_PAUSE_MS (9 s, three periods: a takeover takes about 1.5), at one of these moments (HA_PAUSE_MODE):
// - `rename`: inside the rename of parserfile.xml into the shared output folder, after its last lock check (an
//   LD_PRELOAD shim, test/sql/pause-rename.c: the main thread sleeps there, as in a freeze). Its old file lands
//   after the takeover, whatever the lock says: no lock fences a shared folder. Measured: how soon the new leader
//   puts its own back (the repair), and whether the old leader, resumed, alerts about the new leader's files.
// - `upload`: each instance writes a folder of its own and uploads to one bucket; its PUT of parserfile.xml is held
//   by a proxy while the instance is stopped (SIGSTOP), then sent as it resumes (SIGCONT). Measured: whether the
//   bucket takes that old build after the takeover (a conditional PUT is refused, 412).
// - `sigstop`: issue 33's: SIGSTOP the moment a temporary export appears in the shared folder (before the checks).
// Each instance marks its exports by the host of their `url` (https://i1.example/…; the configs differ only there,
// so `ha.allowConfigMismatch` lets them take over from each other). Env: HA_PAUSE_TRIALS (20), HA_PAUSE_BACKEND
// (postgres,mariadb,s3), HA_PAUSE_MODE (rename), HA_PAUSE_MS, HA_PAUSE_PERIOD_MS (3000, whole seconds),
// HA_PAUSE_DIRECTIONS (2000), RATEFILE_BIN (another build's bin/ratefile.js).
// `CI=1 npx vitest run --config test/sql/vitest.pause.config.ts` after `npm run build`; gcc for `rename`.
import { existsSync, watch } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  backendFor,
  launch,
  lastTakeover,
  markOf,
  projectFor,
  type Instance,
  type Landing,
  type PauseProject,
} from './pause-run.js';
import { buildPauseShim } from './pause-tools.js';
import { requireServer } from './servers.js';
import { requireRadosgw } from './radosgw.js';

const TRIALS = Number(process.env.HA_PAUSE_TRIALS ?? 20);
const PAUSE_MS = Number(process.env.HA_PAUSE_MS ?? 9_000);
const PERIOD = Number(process.env.HA_PAUSE_PERIOD_MS ?? 3_000);
const mode = (process.env.HA_PAUSE_MODE ?? 'rename') as 'rename' | 'upload' | 'sigstop';
const backends = (process.env.HA_PAUSE_BACKEND ?? 'postgres,mariadb,s3').split(',') as (
  | 'postgres'
  | 'mariadb'
  | 's3'
)[];
const temporary = /^\..+\.[0-9a-f]{12}\.tmp$/;

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

/** One trial's outcome: old-build files landed after the takeover, and how long each stayed. */
interface Trial {
  row: string;
  stale: number;
  /** Per old file landed: ms until the new leader's file replaced it (undefined: never, within the trial). */
  repairs: (number | undefined)[];
  /** Lines of the paused instance saying another writer replaced its files (after it resumed). */
  falseAlerts: number;
  /** Lines of the new leader saying so (its repair's alert). */
  alerts: number;
}

const lines = (log: string, since: number, pattern: RegExp) =>
  log
    .split('\n')
    .filter((line) => line.startsWith('{') && pattern.test(line))
    .filter((line) => Date.parse((JSON.parse(line) as { time: string }).time) > since).length;

/** Waits out a pause of the leader `paused` (begun at `pausedAt`) and judges what landed after the takeover. */
async function judge(
  instances: readonly Instance[],
  paused: Instance,
  pausedAt: number,
  landings: () => Landing[],
): Promise<Omit<Trial, 'row'> & { tookOver?: { name: string; at: number } }> {
  await sleep(PAUSE_MS + 2 * PERIOD + 1_000);
  const landed = landings();
  const takeover = lastTakeover(instances);
  const tookOver = takeover && takeover.name !== paused.name && takeover.at > pausedAt ? takeover : undefined;
  // Until the paused instance takes the lock again itself (a fresh build of its own, not an old one).
  const retook = lastTakeover([paused]);
  const before = retook && retook.at > pausedAt ? retook.at : Number.POSITIVE_INFINITY;
  const late = tookOver
    ? landed.filter((entry) => entry.at > tookOver.at && entry.at < before && entry.mark === paused.name)
    : [];
  const repairs = late.map((entry) => {
    const next = landed.find((other) => other.file === entry.file && other.at > entry.at && other.mark !== undefined);
    return next && next.mark !== paused.name ? next.at - entry.at : undefined;
  });
  const replaced = /"msg":"ha: [^"]* replaced by another writer while this instance leads/;
  const alerts = instances
    .filter((instance) => instance !== paused)
    .reduce((sum, instance) => sum + lines(instance.log(), pausedAt, replaced), 0);
  return {
    ...(tookOver ? { tookOver } : {}),
    stale: late.length,
    repairs,
    falseAlerts: lines(paused.log(), pausedAt, replaced),
    alerts,
  };
}

/** The leader: the last to log taking the lock, once a file carrying its mark lands (it publishes). */
async function currentLeader(instances: readonly Instance[], landed: () => readonly Landing[]): Promise<Instance> {
  const since = Date.now();
  const publishing = () => {
    const name = lastTakeover(instances)?.name;
    return landed().some((e) => e.at > since && e.mark === name) ? name : undefined;
  };
  const mark = await until('a publish by the last to take the lock', publishing, 30_000);
  return instances.find((instance) => instance.name === mark)!;
}

/** Pauses the leader as HA_PAUSE_MODE says; resolves with the moment the pause began. */
async function pauseLeader(
  leader: Instance,
  onTemporary: (handler: (() => void) | undefined) => void,
): Promise<number | undefined> {
  if (mode === 'rename') {
    await writeFile(leader.pauseFlag, '');
    const entered = await until(
      'the pause in the rename',
      () => (existsSync(`${leader.pauseFlag}.entered`) ? true : undefined),
      3 * PERIOD,
    ).catch(() => false);
    // It lost the lock meanwhile (a slow build on a loaded machine): no pause, this trial is made again.
    if (!entered) {
      await rm(leader.pauseFlag, { force: true });
      return undefined;
    }
    await rm(`${leader.pauseFlag}.entered`);
    return Date.now();
  }
  if (mode === 'upload')
    return new Promise<number>((resolve) =>
      leader.proxy!.holdNext(
        'parserfile.xml',
        PAUSE_MS,
        () => {
          leader.child.kill('SIGSTOP');
          resolve(Date.now());
        },
        () => leader.child.kill('SIGCONT'),
      ),
    );
  await new Promise<void>((resolve) =>
    onTemporary(() => {
      onTemporary(undefined);
      leader.child.kill('SIGSTOP');
      resolve();
    }),
  );
  const at = Date.now();
  setTimeout(() => leader.child.kill('SIGCONT'), PAUSE_MS);
  return at;
}

function describeTrial(trial: number, paused: Instance, pausedAt: number, outcome: Awaited<ReturnType<typeof judge>>) {
  const { tookOver, stale, repairs, falseAlerts, alerts } = outcome;
  const repaired = repairs.map((ms) => (ms === undefined ? 'never' : `${ms} ms`)).join(', ');
  // The upload held while the leader was stopped: what the store answered when it came.
  const held = paused.proxy?.forwarded
    .filter((entry) => entry.held && entry.at > pausedAt)
    .map((entry) => entry.status);
  const answered = held === undefined ? '' : `; its held upload answered ${held.join(', ') || 'nothing'}`;
  return `trial ${trial}: paused ${paused.name}; ${tookOver ? `${tookOver.name} took over after ${tookOver.at - pausedAt} ms` : 'NO TAKEOVER'}${answered}; ${stale} old-build files after the takeover${stale > 0 ? ` (replaced after ${repaired})` : ''}; ${alerts} alerts by the new leader, ${falseAlerts} by the paused one`;
}

async function measure(backend: 'postgres' | 'mariadb' | 's3'): Promise<Trial[]> {
  const root = await mkdtemp(join(tmpdir(), 'ratefile-ha-pause-'));
  const store = await backendFor(backend, mode === 'upload');
  const instances: Instance[] = [];
  let project: PauseProject | undefined;
  try {
    const shim = mode === 'rename' ? buildPauseShim(root) : undefined;
    project = await projectFor(root, store, { upload: mode === 'upload', period: PERIOD });
    for (const name of ['i1', 'i2', 'i3']) instances.push(await launch(name, project, store, shim));
    await until('a first leader', () => lastTakeover(instances), 60_000);
    const { out } = project;
    // Every export landing, with its mark: in the shared folder as it lands, or in the bucket as the store answers.
    const landed: Landing[] = [];
    let onTemporary: (() => void) | undefined;
    const watcher =
      mode === 'upload'
        ? undefined
        : watch(out, (_event, name) => {
            if (!name) return;
            if (temporary.test(name)) return onTemporary?.();
            const at = Date.now();
            void markOf(join(out, name)).then((mark) => landed.push({ at, file: name, mark }));
          });
    const uploads = () => instances.flatMap((instance) => instance.uploads());
    const trials: Trial[] = [];
    let missed = 0;
    try {
      for (let trial = 1; trial <= TRIALS; trial++) {
        const leader = await currentLeader(instances, () => (mode === 'upload' ? uploads() : landed));
        const pausedAt = await pauseLeader(leader, (handler) => (onTemporary = handler));
        if (pausedAt === undefined) {
          if (++missed > TRIALS) throw new Error(`${missed} trials could not pause a leader`);
          trial--;
          continue;
        }
        const outcome = await judge(instances, leader, pausedAt, () => (mode === 'upload' ? uploads() : landed));
        const row = describeTrial(trial, leader, pausedAt, outcome);
        console.info(`${backend} (${mode}): ${row}`);
        trials.push({ row, ...outcome });
        landed.length = 0;
      }
    } finally {
      watcher?.close();
    }
    return trials;
  } catch (error) {
    // What the instances said last, to see why a trial could not go on.
    for (const instance of instances)
      console.info(`${instance.name}:\n${instance.log().trim().split('\n').slice(-8).join('\n')}`);
    throw error;
  } finally {
    for (const instance of instances) await instance.stop();
    await project?.close();
    await store.stop();
    await rm(root, { recursive: true, force: true });
  }
}

const summary = (backend: string, trials: readonly Trial[]) => {
  const repairs = trials.flatMap((t) => t.repairs);
  const times = repairs.filter((ms): ms is number => ms !== undefined).sort((a, b) => a - b);
  const median = times.length === 0 ? undefined : times[Math.floor((times.length - 1) / 2)];
  return `${backend} (${mode}): ${trials.length} trials, ${trials.reduce((s, t) => s + t.stale, 0)} old-build files landed after a takeover (in ${trials.filter((t) => t.stale > 0).length} trials), ${repairs.length - times.length} never replaced; repair median ${median ?? '–'} ms, max ${times.at(-1) ?? '–'} ms; alerts by the new leader in ${trials.filter((t) => t.alerts > 0).length} trials, false alerts by the paused one in ${trials.filter((t) => t.falseAlerts > 0).length}`;
};

for (const backend of backends)
  it.runIf(backend === 's3' || mode === 'upload' ? requireRadosgw() : true)(
    `${backend}: ${mode} pause of the leader, what lands after a takeover`,
    async () => {
      if (backend !== 's3') expect(requireServer(backend)).toBe(true);
      const trials = await measure(backend);
      console.info(summary(backend, trials));
      // Nothing old is ever left in place, nobody alerts falsely; where the storage fences (uploads), nothing lands.
      expect(trials.flatMap((t) => t.repairs).filter((ms) => ms === undefined)).toEqual([]);
      expect(trials.filter((t) => t.falseAlerts > 0).map((t) => t.row)).toEqual([]);
      if (mode === 'upload') expect(trials.filter((t) => t.stale > 0).map((t) => t.row)).toEqual([]);
    },
  );
