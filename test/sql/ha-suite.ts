// The warm standby (`ha:`) against a real database: the lock's contract, then two `ratefile start` processes
// sharing one lock while the leader is killed, its session is ended from the database side, or its link stalls.
// In each case the log of every publish shows no period with two publishers and a takeover within two periods.
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { lockStore } from '../../src/io/ha/lock.js';
import { lockTiming } from '../../src/pure/ha/role.js';
import { makeProject, sampleConfig, type Project } from '../support/project.js';
import { spawnRatefile, stopAll, type RatefileProcess } from '../support/process.js';
import { startStallProxy, type StallProxy } from '../support/stall-proxy.js';
import type { DatabaseServer } from './servers.js';

export const locker = { user: 'ha_locker', password: 'l0ck-S3cret!pw' };
const PERIOD = 4_000;

export interface HaDialect {
  name: string;
  scheme: 'postgres' | 'mysql';
  start(): Promise<DatabaseServer>;
  /** Statements that make the `lockdb` database and the locker user. */
  setup: string[];
  /** Ends the session holding the lock `name` from the database side. */
  killHolder(server: DatabaseServer, url: string, name: string): Promise<void>;
}

export interface Quotes {
  url: string;
  jump(): void;
  /** The next request waits for `release`; `arrived` resolves when it comes (a build waiting for its quotes). */
  holdNext(): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

/**
 * A quote server: USDT/RUB moves a little at every request (so every publish writes), BTC/USDT jumps on demand;
 * `delayMs`: each answer that late (a slow venue: builds longer than the period).
 */
export async function startQuotes({ delayMs = 0 } = {}): Promise<Quotes> {
  let count = 0;
  let jumped = false;
  let held: { arrive(): void; released: Promise<void> } | undefined;
  const server: Server = createServer(async (_request, response) => {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const hold = held;
    held = undefined;
    if (hold) {
      hold.arrive();
      await hold.released;
    }
    count++;
    // 0.05 RUB a step: every export file changes at every build, so every publish logs a build line.
    const rub = (92 + (count % 50) * 0.05).toFixed(2);
    const btc = jumped ? '130000.00' : '97012.30';
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ btc: { bid: btc, ask: btc }, rub: { bid: rub, ask: rub } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/quotes`,
    jump: () => {
      jumped = true;
    },
    holdNext: () => {
      const ends: { arrive?: () => void; release?: () => void } = {};
      const arrived = new Promise<void>((resolve) => (ends.arrive = resolve));
      const released = new Promise<void>((resolve) => (ends.release = resolve));
      held = { arrive: () => ends.arrive?.(), released };
      return { arrived, release: () => ends.release?.() };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const configFor = (quotesUrl: string, instance: string, lock: string) =>
  `${sampleConfig.replace(
    'backoffice: { type: file, path: quotes.json }',
    `venue: { type: json, url: "${quotesUrl}", pairs: { BTC/USDT: { bid: btc.bid, ask: btc.ask }, USDT/RUB: { bid: rub.bid, ask: rub.ask } } }`,
  )}schedule: "*/4 * * * * *"
guards: { maxJump: 10%, confirmBuilds: 1000 }
ha: { lock: { env: RATEFILE_LOCK_URL }, name: ${lock}, instance: ${instance} }
`;

interface Publish {
  instance: string;
  at: number;
}

/** The address an instance logged that it serves at. */
export async function servedAt(run: RatefileProcess): Promise<string> {
  return (await run.waitForLog(/serving \S+ at (http:\/\/127\.0\.0\.1:\d+\/)/))[1]!;
}

/** `a` answers /healthz 200 and `b` 503, naming itself a standby with `a` holding the lock; their addresses. */
export async function leaderAndStandby(a: RatefileProcess, b: RatefileProcess): Promise<[string, string]> {
  const [baseA, baseB] = await Promise.all([servedAt(a), servedAt(b)]);
  expect((await fetch(`${baseA}healthz`)).status).toBe(200);
  const health = await fetch(`${baseB}healthz`);
  expect(health.status).toBe(503);
  expect(((await health.json()) as { ha: unknown }).ha).toMatchObject({ role: 'standby', instance: 'b', holder: 'a' });
  return [baseA, baseB];
}

/** Every publish an instance logged: a `build` line (each build writes, the quotes move at every request). */
export function publishes(instance: string, log: string): Publish[] {
  return log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { time: string; event?: string })
    .filter((entry) => entry.event === 'build')
    .map((entry) => ({ instance, at: Date.parse(entry.time) }));
}

export function testStandby(dialect: HaDialect): void {
  let server: DatabaseServer;
  let url: string;
  let quotes: Quotes;
  const projects: Project[] = [];
  const proxies: StallProxy[] = [];

  beforeAll(async () => {
    server = await dialect.start();
    await server.admin(dialect.setup);
    url = `${dialect.scheme}://${locker.user}:${encodeURIComponent(locker.password)}@127.0.0.1:${server.port}/lockdb`;
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    await stopAll();
    await quotes?.close();
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
    await Promise.all(projects.splice(0).map((project) => project.remove()));
  });

  it('the lock: one session holds it, the record and guard state are shared, closing or silence frees it', async () => {
    const timing = lockTiming(PERIOD);
    const store = lockStore('URL', { URL: url }, 'contract', timing);
    expect(store.where).toBe(`${dialect.scheme} 127.0.0.1:${server.port}/lockdb`);
    const one = await store.open();
    const two = await store.open();
    try {
      expect(await one.take()).toBe(true);
      expect(await one.take()).toBe(true);
      expect(await one.holds()).toBe(true);
      expect(await two.take()).toBe(false);
      expect(await two.holds()).toBe(false);
      expect(await two.read()).toEqual({});
      const record = { holder: 'a', configHash: '0123456789abcdef', since: 1, publishingAt: 2 };
      await one.claim(record);
      await one.saveGuard('a', '{"published":{},"pending":{}}');
      expect(await two.read()).toEqual({ record, guard: '{"published":{},"pending":{}}' });
      // Only the named holder's guard state is kept.
      await two.saveGuard('b', '{}');
      expect((await two.read()).guard).toBe('{"published":{},"pending":{}}');
      one.close();
      // The server drops the lock with the connection.
      await expect.poll(() => two.take(), { timeout: 5_000 }).toBe(true);
      // A session that says nothing for longer than the idle timeout is ended by the server, lock and all,
      // while one that speaks now and then lives on.
      const three = await store.open();
      const pinging = setInterval(() => void three.ping().catch(() => undefined), timing.heartbeatMs);
      try {
        await new Promise((resolve) => setTimeout(resolve, timing.idleTimeoutMs + 1_500));
        expect(await three.take()).toBe(true);
        await expect(two.holds()).rejects.toThrow();
      } finally {
        clearInterval(pinging);
        three.close();
      }
    } finally {
      one.close();
      two.close();
    }
  }, 30_000);

  it('refuses a URL whose variable is unset, naming it, and never shows the password', async () => {
    expect(() => lockStore('RATEFILE_LOCK_URL', {}, 'unused', lockTiming(PERIOD))).toThrow(
      'ha.lock: environment variable RATEFILE_LOCK_URL (the lock database URL) is not set',
    );
    const store = lockStore(
      'URL',
      { URL: url.replace(encodeURIComponent(locker.password), 'wrong') },
      'unused',
      lockTiming(PERIOD),
    );
    const failure = await store.open().then(
      () => 'opened',
      (error: unknown) => store.describe(error),
    );
    expect(failure).not.toBe('opened');
    expect(failure).not.toContain(locker.password);
    // A wrong user is named (a user name is no secret; `role "***"` hid the fault), the password still is not.
    const stranger = lockStore('URL', { URL: url.replace(locker.user, 'no_such_user') }, 'unused', lockTiming(PERIOD));
    const refused = await stranger.open().then(
      () => 'opened',
      (error: unknown) => stranger.describe(error),
    );
    expect(refused).toContain('no_such_user');
    expect(refused).not.toContain(locker.password);
  });

  const instanceEnv = (lockUrl: string) => ({ RATEFILE_LOCK_URL: lockUrl });
  const start = async (
    instance: string,
    lockUrl: string,
    lock: string,
    change: (config: string) => string = (config) => config,
  ): Promise<{ made: Project; run: RatefileProcess }> => {
    const made = await makeProject({ 'ratefile.config.yaml': change(configFor(quotes.url, instance, lock)) });
    projects.push(made);
    const run = spawnRatefile(['--log-format', 'json', 'start', '--port', '0'], {
      cwd: made.dir,
      env: instanceEnv(lockUrl),
    });
    return { made, run };
  };
  const status = async (made: Project) =>
    JSON.parse(await readFile(join(made.dir, '.ratefile', 'status.json'), 'utf8')) as {
      heldBack: { direction: string; kind?: string }[];
      ha?: { role: string; holder?: string; takeover?: { from: string } };
    };

  /** The segments of an instance's archive (`.ratefile/archive/*.rfa`); none before its first record. */
  const archived = async (made: Project) =>
    (await readdir(join(made.dir, '.ratefile', 'archive')).catch(() => [] as string[])).filter((name) =>
      name.endsWith('.rfa'),
    );

  /** Two instances, `a` leading; `fault` hits it; then the log of every publish is checked. */
  let tests = 0;
  const failover = async (
    fault: (a: RatefileProcess, proxy: StallProxy, lock: string) => Promise<void>,
    { jump = false, offset = 0 }: { jump?: boolean; offset?: number } = {},
  ) => {
    // A lock of its own per test: the record of the last test's holder does not carry over.
    const lock = `failover-${++tests}`;
    quotes = await startQuotes();
    const proxy = await startStallProxy(server.port);
    proxies.push(proxy);
    const a = await start('a', url.replace(`:${server.port}/`, `:${proxy.port}/`), lock);
    await a.run.waitForLog(/"msg":"ha: took the lock[^"]*: this instance publishes"/, 30_000);
    const b = await start('b', url, lock);
    await b.run.waitForLog(/"msg":"ha: standby: a holds the lock"/, 30_000);
    // What a load balancer and a scraper see: the standby answers 503 for /healthz and the exports.
    const [baseA, baseB] = await leaderAndStandby(a.run, b.run);
    expect((await fetch(`${baseB}parserfile.xml`)).status).toBe(503);
    expect((await fetch(`${baseA}parserfile.xml`)).status).toBe(200);
    expect(await (await fetch(`${baseB}metrics`)).text()).toContain('ratefile_ha_leader{instance="b",holder="a"} 0');
    // Two more publishes by a while b is warm.
    const before = publishes('a', a.run.stderr()).length;
    await expect.poll(() => publishes('a', a.run.stderr()).length, { timeout: 4 * PERIOD }).toBeGreaterThan(before + 1);
    // The leader's records are the archive; a standby keeps none of its own.
    expect(await archived(a.made)).not.toEqual([]);
    expect(await archived(b.made)).toEqual([]);
    if (jump) {
      quotes.jump();
      await expect
        .poll(async () => (await status(a.made)).heldBack.some((h) => h.kind === 'jump'), { timeout: 4 * PERIOD })
        .toBe(true);
    }
    // The fault lands `offset` ms after one of a's publishes: right after it, or well into the period.
    const published = publishes('a', a.run.stderr()).length;
    await expect.poll(() => publishes('a', a.run.stderr()).length, { timeout: 2 * PERIOD }).toBeGreaterThan(published);
    await new Promise((resolve) => setTimeout(resolve, offset));
    const faultAt = Date.now();
    await fault(a.run, proxy, lock);
    await b.run.waitForLog(/"msg":"ha: took the lock[^"]*: this instance publishes \(took over from a\)"/, 3 * PERIOD);
    const firstByB = async () => publishes('b', b.run.stderr())[0];
    await expect.poll(firstByB, { timeout: 3 * PERIOD }).toBeDefined();
    // Two more periods: the old leader must stay quiet.
    await new Promise((resolve) => setTimeout(resolve, 2 * PERIOD));
    const log = [...publishes('a', a.run.stderr()), ...publishes('b', b.run.stderr())].sort((x, y) => x.at - y.at);
    // No period (cron ticks every 4 s, aligned to the clock) with two publishers.
    const byPeriod = new Map<number, Set<string>>();
    for (const publish of log) {
      const period = Math.floor(publish.at / PERIOD);
      byPeriod.set(period, (byPeriod.get(period) ?? new Set()).add(publish.instance));
    }
    expect([...byPeriod.values()].filter((who) => who.size > 1)).toEqual([]);
    // Publishers never interleave: a ... a, then b ... b.
    expect(
      log
        .map((p) => p.instance)
        .join('')
        .replace(/(.)\1+/g, '$1'),
    ).toBe('ab');
    const takeover = (await firstByB())!.at - faultAt;
    expect(takeover).toBeGreaterThan(0);
    expect(takeover).toBeLessThanOrEqual(2 * PERIOD);
    const after = await status(b.made);
    expect(after.ha).toMatchObject({ role: 'leader', holder: 'b', takeover: { from: 'a' } });
    const healthAfter = await fetch(`${baseB}healthz`);
    // With the jump held back, half the directions are withheld: failing (503) for that, not for the role.
    expect(healthAfter.status).toBe(jump ? 503 : 200);
    expect(((await healthAfter.json()) as { ha: unknown }).ha).toMatchObject({ role: 'leader', holder: 'b' });
    expect((await fetch(`${baseB}parserfile.xml`)).status).toBe(200);
    expect(await archived(b.made)).not.toEqual([]);
    expect(await (await fetch(`${baseB}metrics`)).text()).toContain('ratefile_ha_leader{instance="b",holder="b"} 1');
    // The lock URL's password is in no log line and no state file of either instance.
    for (const [made, run] of [
      [a.made, a.run],
      [b.made, b.run],
    ] as const) {
      expect(run.stderr()).not.toContain(locker.password);
      expect(await readFile(join(made.dir, '.ratefile', 'status.json'), 'utf8')).not.toContain(locker.password);
    }
    return { a, b, after, takeover, baseA };
  };

  it('SIGKILL of the leader: the standby takes over within two periods, and the held jump stays held', async () => {
    const { after, takeover } = await failover(
      async (a) => {
        a.child.kill('SIGKILL');
        await a.exited;
      },
      { jump: true },
    );
    // The jump a was holding back is still held back by b, which never published the old rate itself.
    expect(after.heldBack).toContainEqual(expect.objectContaining({ direction: 'BTC>SBERRUB', kind: 'jump' }));
    console.info(`${dialect.name}: SIGKILL takeover after ${takeover} ms`);
  }, 120_000);

  it("the database ends the leader's lock session: it stops, the standby takes over", async () => {
    const { a, takeover, baseA } = await failover(async (_a, _proxy, lock) => dialect.killHolder(server, url, lock), {
      offset: PERIOD / 2,
    });
    await a.run.waitForLog(/"msg":"ha: lost the lock/, 1_000);
    expect(a.run.child.exitCode).toBeNull();
    // At once, not at its next build: the old leader's server turns its readers away.
    const health = await fetch(`${baseA}healthz`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { ha: unknown }).ha).toMatchObject({ role: 'standby', holder: 'b' });
    expect((await fetch(`${baseA}parserfile.xml`)).status).toBe(503);
    console.info(`${dialect.name}: session ended, takeover after ${takeover} ms`);
  }, 120_000);

  it("the leader's lock connection stalls: it stops publishing, the server frees the lock, the standby takes over", async () => {
    const { a, takeover, baseA } = await failover(async (_a, proxy) => proxy.stall(), { offset: (PERIOD * 3) / 4 });
    await a.run.waitForLog(/"msg":"ha: lost the lock/, 1_000);
    expect((await fetch(`${baseA}healthz`)).status).toBe(503);
    console.info(`${dialect.name}: stall, takeover after ${takeover} ms`);
  }, 120_000);

  it("another writer's file over the leader's (an old leader resumed): published over at once, with an alert", async () => {
    const lock = `failover-${++tests}`;
    quotes = await startQuotes();
    const a = await start('a', url, lock);
    await a.run.waitForLog(/"msg":"ha: took the lock[^"]*: this instance publishes"/, 30_000);
    // Right after a scheduled publish (the one at start may be followed at once by a tick): a period to spare.
    await expect.poll(() => publishes('a', a.run.stderr()).length, { timeout: 3 * PERIOD }).toBeGreaterThan(1);
    const path = join(a.made.dir, 'public', 'parserfile.xml');
    const stale = '<?xml version="1.0" encoding="UTF-8"?>\n<rates></rates>\n';
    await writeFile(`${path}.tmp-old-leader`, stale);
    await rename(`${path}.tmp-old-leader`, path);
    const replacedAt = Date.now();
    await a.run.waitForLog(/"msg":"ha: parserfile\.xml replaced by another writer while this instance leads/, PERIOD);
    // Put back at once, well before the next scheduled build.
    await expect.poll(async () => (await readFile(path, 'utf8')) !== stale, { timeout: PERIOD / 2 }).toBe(true);
    const restoredMs = Date.now() - replacedAt;
    // Kept in the status by the next build.
    await expect
      .poll(async () => ((await status(a.made)).ha as { overwritten?: { files: string[] } }).overwritten, {
        timeout: 3 * PERIOD,
      })
      .toMatchObject({ files: ['parserfile.xml'] });
    console.info(`${dialect.name}: a replaced file was put back after ${restoredMs} ms`);
  }, 60_000);

  it("another writer's file over the leader's while its next build runs: put back before that build ends", async () => {
    const lock = `failover-${++tests}`;
    quotes = await startQuotes();
    const a = await start('a', url, lock);
    await a.run.waitForLog(/"msg":"ha: took the lock[^"]*: this instance publishes"/, 30_000);
    await expect.poll(() => publishes('a', a.run.stderr()).length, { timeout: 3 * PERIOD }).toBeGreaterThan(1);
    // The next build waits for its quotes until the test lets it go: the old leader's file lands meanwhile.
    const hold = quotes.holdNext();
    await hold.arrived;
    const built = publishes('a', a.run.stderr()).length;
    const path = join(a.made.dir, 'public', 'parserfile.xml');
    const stale = '<?xml version="1.0" encoding="UTF-8"?>\n<rates></rates>\n';
    await writeFile(`${path}.tmp-old-leader`, stale);
    await rename(`${path}.tmp-old-leader`, path);
    try {
      await a.run.waitForLog(/"msg":"ha: parserfile\.xml replaced by another writer while this instance leads/, PERIOD);
      // From memory, while the build still waits: not by that build's publish.
      await expect.poll(async () => (await readFile(path, 'utf8')) !== stale, { timeout: PERIOD / 2 }).toBe(true);
      expect(publishes('a', a.run.stderr()).length).toBe(built);
    } finally {
      console.info(
        a.run
          .stderr()
          .split('\n')
          .filter((l) => !l.includes('"event":"build"'))
          .slice(-15)
          .join('\n'),
      );
      hold.release();
    }
    await expect.poll(() => publishes('a', a.run.stderr()).length, { timeout: 2 * PERIOD }).toBeGreaterThan(built);
  }, 60_000);

  it('builds longer than the period: the log, status and health say so, not the lock', async () => {
    const lock = `failover-${++tests}`;
    // Every build waits 5 s for its quotes, on a 4 s period.
    quotes = await startQuotes({ delayMs: PERIOD + 1_000 });
    const a = await start('a', url, lock);
    const words = /builds take \d+(\.\d)? s, longer than the period 4 s: nothing can be published; raise the period/;
    await a.run.waitForLog(new RegExp(`"msg":"build failed, last good files kept: ${words.source}"`), 30_000);
    const base = await servedAt(a.run);
    const health = await fetch(`${base}healthz`);
    expect(health.status).toBe(503);
    const body = (await health.json()) as { level: string; reasons: string[] };
    expect(body.level).toBe('failing');
    expect(body.reasons[0]).toMatch(new RegExp(`^${words.source}$`));
    const said = spawnRatefile(['status'], { cwd: a.made.dir });
    await said.exited;
    expect(said.stdout()).toMatch(new RegExp(`^FAILING: ${words.source}`, 'm'));
    // Nothing was published, and the lock was never taken for a build that could not be published.
    expect(publishes('a', a.run.stderr())).toEqual([]);
    expect(a.run.stderr()).not.toContain('ha: took the lock');
  }, 60_000);

  it('a standby whose config differs does not take over, and says why', async () => {
    const lock = `failover-${++tests}`;
    quotes = await startQuotes();
    const a = await start('a', url, lock);
    await a.run.waitForLog(/"msg":"ha: took the lock[^"]*: this instance publishes"/, 30_000);
    const b = await start('b', url, lock, (config) => config.replace('margin: 1.5%', 'margin: 1.6%'));
    await b.run.waitForLog(
      /"msg":"ha: the config differs from a's \(hash [0-9a-f]{16}, this one [0-9a-f]{16}\)"/,
      30_000,
    );
    a.run.child.kill('SIGKILL');
    await a.run.exited;
    await b.run.waitForLog(
      /"msg":"ha: standby: not taking over from a: its config \(hash [0-9a-f]{16}\) differs/,
      3 * PERIOD,
    );
    await new Promise((resolve) => setTimeout(resolve, 2 * PERIOD));
    expect(publishes('b', b.run.stderr())).toEqual([]);
    expect((await status(b.made)).ha).toMatchObject({ role: 'standby', holder: 'a', holderHolds: false });
    // Nobody publishes: b's health turns failing (3 periods after a's last publish) and says why.
    const baseB = await servedAt(b.run);
    await expect
      .poll(async () => ((await (await fetch(`${baseB}healthz`)).json()) as { level: string }).level, {
        timeout: 4 * PERIOD,
      })
      .toBe('failing');
    const reasons = ((await (await fetch(`${baseB}healthz`)).json()) as { reasons: string[] }).reasons;
    expect(reasons[0]).toMatch(/^no instance has published for \d+ s \(limit 12 s; the last publish known is a's at /);
    // The two warnings that used to alternate at every build are each logged once.
    const log = b.run.stderr();
    expect(log.match(/"msg":"ha: the config differs from a's/g)).toHaveLength(1);
    expect(log.match(/"msg":"ha: not taking over from a/g)).toHaveLength(1);
  }, 120_000);
}
