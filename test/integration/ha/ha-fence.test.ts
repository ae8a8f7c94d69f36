// Issue 33, item 1: under `ha:` each file is confirmed on the lock right before it is put in place, and a build a
// period old or more is never put in place. Real config, real builds and files; the lock is a gate that answers as
// told (the real lock runs against PostgreSQL and MariaDB in `npm run test:sql`).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/base/log.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { runCycle, type CycleDeps } from '../../../src/io/build/cycle.js';
import { isRatefileError } from '../../../src/base/errors.js';
import { guardPlaced, watchPlaced } from '../../../src/io/ha/placed-watch.js';
import type { PublishGate } from '../../../src/io/ha/standby.js';
import { publishFiles, writeFileAtomic } from '../../../src/io/build/publish.js';
import type { HaStatus } from '../../../src/pure/status/report.js';
import { makeProject, sampleConfig, type Project } from '../../support/project.js';
import { offlineFetch, runRatefile } from '../../support/run-cli.js';

const projects: Project[] = [];
afterEach(async () => {
  await Promise.all(projects.splice(0).map((made) => made.remove()));
});

const T = Date.parse('2026-11-21T12:00:30Z');

/** A lock that is held while `holds()` says so; every question is counted. */
function gate(holds: (asked: number) => boolean): PublishGate & { asked: number; publishAsked: number } {
  let role: HaStatus['role'] = 'leader';
  let slowBuild: HaStatus['slowBuild'];
  const self = {
    asked: 0,
    publishAsked: 0,
    sharedGuard: async () => undefined,
    mayPublish: async () => {
      self.publishAsked++;
      slowBuild = undefined;
      return true;
    },
    tooSlow: (buildMs: number, at: Date) => {
      slowBuild = { buildMs, at: at.toISOString() };
    },
    stillHolds: async () => {
      const held = holds(++self.asked);
      if (!held) role = 'standby';
      return held;
    },
    published: async () => undefined,
    overwritten: () => undefined,
    status: (): HaStatus => ({
      role,
      instance: 'a',
      configHash: '0123456789abcdef',
      lastPublish: { by: 'a', at: new Date(T).toISOString() },
      ...(slowBuild ? { slowBuild } : {}),
    }),
  };
  return self;
}

/** Every file of the output folder with its bytes (temporaries included, by name). */
async function folder(out: string): Promise<Map<string, string>> {
  const names = (await readdir(out)).sort();
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(out, name), 'hex')] as const)));
}

/** A project published once by a holder at T, then given another margin, so every file of the next build differs. */
async function publishedOnce(): Promise<{ made: Project; out: string; before: Map<string, string> }> {
  const made = await makeProject({
    'ratefile.config.yaml': `${sampleConfig}ha: { lock: { env: LOCK }, instance: a }\n`,
  });
  projects.push(made);
  const out = join(made.dir, 'public');
  const deps: CycleDeps = { now: () => new Date(T), fetch: offlineFetch, ha: gate(() => true) };
  await runCycle(await loadConfig(made.configPath), out, deps);
  await made.write(
    'ratefile.config.yaml',
    `${sampleConfig.replace('margin: 1.5%', 'margin: 1.6%')}ha: { lock: { env: LOCK }, instance: a }\n`,
  );
  return { made, out, before: await folder(out) };
}

it('the lock lost between two files: the first is in place, no other file is', async () => {
  const { made, out, before } = await publishedOnce();
  expect(before.size).toBe(9);
  const config = await loadConfig(made.configPath);
  const lock = gate((asked) => asked === 1);
  const cycle = await runCycle(config, out, { now: () => new Date(T + 30_000), fetch: offlineFetch, ha: lock });
  expect(cycle.standby).toBe(true);
  expect(cycle.warnings).toEqual([
    expect.stringMatching(/^ha: \S+ not put in place: this instance no longer holds the lock$/),
  ]);
  const after = await folder(out);
  // Nine files, no temporary left; exactly one (the one renamed while the lock was confirmed) holds the new build.
  expect([...after.keys()]).toEqual([...before.keys()]);
  expect([...after].filter(([name, bytes]) => before.get(name) !== bytes)).toHaveLength(1);
  // Asked once per file that got as far as its rename, never once per publish.
  expect(lock.asked).toBeGreaterThan(1);
});

it('a build a period old when its files are ready is never put in place', async () => {
  const { made, out, before } = await publishedOnce();
  const config = await loadConfig(made.configPath);
  // The build starts at T + 30 s; by the time its files are ready the clock says a period later (a paused process).
  let calls = 0;
  const now = () => new Date(T + 30_000 + (calls++ === 0 ? 0 : config.schedulePeriodMs));
  const lock = gate(() => true);
  const failure = await runCycle(config, out, { now, fetch: offlineFetch, ha: lock }).catch((error: unknown) => error);
  expect(isRatefileError(failure, 'E_PUBLISH')).toBe(true);
  expect((failure as Error).message).toMatch(
    new RegExp(
      `^ha: \\S+ not put in place: the build of 2026-11-21T12:01:00.000Z is ${config.schedulePeriodMs} ms old, a period \\(${config.schedulePeriodMs} ms\\) or more: another instance may have published since; the next build publishes$`,
    ),
  );
  expect(await folder(out)).toEqual(before);
});

it("a file another writer puts over the leader's is noticed at once; the leader's own publish is not", async () => {
  const made = await makeProject();
  projects.push(made);
  const out = join(made.dir, 'public');
  const files = ['parserfile.xml', 'reffile.xml'];
  await publishFiles(
    files.map((file) => ({ file, bytes: Buffer.from(`<rates>${file} new</rates>\n`) })),
    out,
  );
  const replaced: string[][] = [];
  const watch = watchPlaced({ dir: out, intervalMs: 20, onReplaced: (names: string[]) => replaced.push(names) });
  try {
    watch.settled(files);
    // This instance's next publish: busy while it writes, settled after.
    watch.busy();
    await publishFiles([{ file: 'reffile.xml', bytes: Buffer.from('<rates>newer</rates>\n') }], out);
    watch.settled(files);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(replaced).toEqual([]);
    // An old leader resumes and renames its file over ours.
    await writeFileAtomic(join(out, 'parserfile.xml'), '<rates>old build</rates>\n');
    await expect.poll(() => replaced, { timeout: 2_000 }).toEqual([['parserfile.xml']]);
  } finally {
    watch.close();
  }
});

/** A published folder, watched by guardPlaced for a gate that takes itself for the leader until the lock says. */
async function watchedOf(holds: boolean, now: () => Date = () => new Date()) {
  const made = await makeProject();
  projects.push(made);
  const out = join(made.dir, 'public');
  const mine = [{ file: 'parserfile.xml', bytes: Buffer.from('<rates>mine</rates>\n') }];
  await publishFiles(mine, out);
  const lines: string[] = [];
  const seen = { asked: 0, overwritten: [] as string[][], rebuilt: 0 };
  const lock = gate(() => holds);
  const standby: PublishGate = {
    ...lock,
    stillHolds: async () => {
      seen.asked++;
      return lock.stillHolds();
    },
    overwritten: (names) => seen.overwritten.push([...names]),
  };
  const watch = guardPlaced({
    dir: out,
    standby,
    log: createLogger({ write: (text: string) => lines.push(text) }),
    now,
    periodMs: 30_000,
    rebuild: async () => {
      seen.rebuilt++;
    },
  });
  watch.settled(mine);
  return { out, lines, seen, close: () => watch.close() };
}

describe('issue 45, item 6: only an instance that still holds the lock judges a replaced file', () => {
  it("a leader that resumed after losing the lock finds the new leader's file: no alert, no log line, no publish", async () => {
    const { out, lines, seen, close } = await watchedOf(false);
    try {
      // The new leader's publish lands over the resumed (former) leader's file.
      await writeFileAtomic(join(out, 'parserfile.xml'), '<rates>the new leader</rates>\n');
      // Until the watch acts: it asks the lock (or, without that check, judges at once).
      await expect.poll(() => seen.asked + seen.rebuilt + lines.length, { timeout: 5_000 }).toBeGreaterThan(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(seen).toEqual({ asked: 1, overwritten: [], rebuilt: 0 });
      expect(lines.join('')).not.toContain('replaced by another writer');
    } finally {
      close();
    }
  });

  it('a leader that still holds the lock alerts and puts its own file back from memory, without a build', async () => {
    const { out, lines, seen, close } = await watchedOf(true);
    try {
      await writeFileAtomic(join(out, 'parserfile.xml'), '<rates>an old leader</rates>\n');
      await expect
        .poll(() => readFile(join(out, 'parserfile.xml'), 'utf8'), { timeout: 5_000 })
        .toBe('<rates>mine</rates>\n');
      expect(seen.overwritten).toEqual([['parserfile.xml']]);
      expect(seen.rebuilt).toBe(0);
      // The lock asked before judging, then again right before the file was put back (the fence of a publish).
      expect(seen.asked).toBeGreaterThanOrEqual(2);
      expect(lines.join('')).toMatch(
        /warn ha: parserfile\.xml replaced by another writer while this instance leads \(an old leader resumed\?\): putting this instance's back at once/,
      );
      // Watched again: a second replacement is put back too.
      await writeFileAtomic(join(out, 'parserfile.xml.gz'), 'an old copy');
      await expect.poll(() => seen.overwritten.length, { timeout: 5_000 }).toBe(2);
      await expect
        .poll(async () => (await readFile(join(out, 'parserfile.xml.gz'))).length, { timeout: 5_000 })
        .not.toBe(11);
    } finally {
      close();
    }
  });
});

it('a lock answer that came too late to put the files back (a pause): a build is started instead', async () => {
  // Each look at the clock is 20 s after the last: the lock's answer "took" longer than its idle timeout (15 s).
  let clock = Date.parse('2026-11-21T12:00:00Z');
  const { out, lines, seen, close } = await watchedOf(true, () => new Date((clock += 20_000)));
  try {
    await writeFileAtomic(join(out, 'parserfile.xml'), '<rates>an old leader</rates>\n');
    await expect.poll(() => seen.rebuilt, { timeout: 5_000 }).toBe(1);
    expect(await readFile(join(out, 'parserfile.xml'), 'utf8')).toBe('<rates>an old leader</rates>\n');
    expect(lines.join('')).toMatch(
      /warn ha: parserfile\.xml not put back \(ha: parserfile\.xml\.(?:gz|br) not put back: the lock's answer took \d+ ms, its idle timeout \(15000 ms\) or more\): building now/,
    );
  } finally {
    close();
  }
});

describe('issue 45, item 8: a build longer than the period under ha: says so', () => {
  it('is not published, the lock not even asked, and the log line, status and health name the cause', async () => {
    const { made, out, before } = await publishedOnce();
    const config = await loadConfig(made.configPath);
    const period = config.schedulePeriodMs;
    // The build's own clock: it reaches its files a period and 2.5 s after it started.
    let reads = 0;
    const elapsed = () => (reads++ === 0 ? 0 : period + 2_500);
    const lock = gate(() => true);
    const at = T + 30_000;
    const failure = await runCycle(config, out, {
      now: () => new Date(at),
      elapsed,
      fetch: offlineFetch,
      ha: lock,
    }).catch((error: unknown) => error);
    const words = `builds take ${period / 1000 + 2.5} s, longer than the period ${period / 1000} s: nothing can be published; raise the period`;
    expect(isRatefileError(failure, 'E_PUBLISH')).toBe(true);
    expect((failure as Error).message).toBe(words);
    // Never asked to publish (it would take a free lock it cannot use), nothing put in place.
    expect(lock.publishAsked).toBe(0);
    expect(await folder(out)).toEqual(before);
    const status = await runRatefile(['status'], made.dir, { now: () => new Date(at + 1_000) });
    expect(status.stdout).toMatch(new RegExp(`^FAILING: ${words.replace(/[.()]/g, '\\$&')}`, 'm'));
    const json = JSON.parse(
      (await runRatefile(['status', '--json'], made.dir, { now: () => new Date(at + 1_000) })).stdout,
    ) as {
      level: string;
      reasons: string[];
      lastBuild: { ok: boolean; error: string };
      ha: { slowBuild: { buildMs: number } };
    };
    expect(json.level).toBe('failing');
    expect(json.reasons[0]).toBe(words);
    expect(json.lastBuild).toMatchObject({ ok: false, error: expect.stringContaining(words) as string });
    expect(json.ha.slowBuild.buildMs).toBe(period + 2_500);
    // A build in time publishes again, and the cause is gone from health.
    await runCycle(config, out, { now: () => new Date(at + period), fetch: offlineFetch, ha: lock });
    expect(lock.publishAsked).toBe(1);
    expect(lock.status().slowBuild).toBeUndefined();
  });
});
