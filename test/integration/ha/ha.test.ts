// The warm standby's pure parts (who publishes, the lock's timing, the config hash), its config block, what status,
// alerts and a standby's server say, and a one-off build refusing an unset lock URL. The lock itself runs against
// real PostgreSQL and MariaDB in `npm run test:sql` (test/sql/ha-suite.ts).
import { describe, expect, it } from 'vitest';
import { currentProblems } from '../../../src/service/alerts/problems.js';
import { loadConfig } from '../../../src/io/config/load.js';
import type { RatefileError } from '../../../src/base/errors.js';
import { configHash } from '../../../src/pure/ha/fingerprint.js';
import { decidePublish, lockTiming, type LockRecord, type PublishAsk } from '../../../src/pure/ha/role.js';
import { standbyRefusal } from '../../../src/service/ha/serve.js';
import { dashboardModel } from '../../../src/service/dashboard/model.js';
import { renderDashboard } from '../../../src/service/dashboard/page.js';
import type { HaStatus, Status } from '../../../src/pure/status/report.js';
import { createExportServer, listen } from '../../../src/service/server/server.js';
import { healthRoutes } from '../../../src/service/server/listeners.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatStatus } from '../../../src/pure/status/status.js';
import { projectsPerTest, sampleConfig } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';

const project = projectsPerTest();
const PERIOD = 30_000;
const ask: PublishAsk = {
  instance: 'b',
  configHash: 'bbbb',
  at: 1_000_000,
  periodMs: PERIOD,
  allowConfigMismatch: false,
};
const record = (overrides: Partial<LockRecord> = {}): LockRecord => ({
  holder: 'a',
  configHash: 'bbbb',
  since: 0,
  publishingAt: ask.at - PERIOD,
  ...overrides,
});

describe('decidePublish', () => {
  it.each<[string, boolean, LockRecord | undefined, Partial<PublishAsk>, ReturnType<typeof decidePublish>]>([
    [
      'not holding: standby, naming the last publisher',
      false,
      record(),
      {},
      { publish: false, release: false, reason: 'a holds the lock' },
    ],
    [
      'not holding, nobody published yet',
      false,
      undefined,
      {},
      { publish: false, release: false, reason: 'another instance holds the lock' },
    ],
    ['holding, first ever publish', true, undefined, {}, { publish: true }],
    ['holding, its own record', true, record({ holder: 'b', publishingAt: ask.at - 1 }), {}, { publish: true }],
    ['took it from a, which published a period ago', true, record(), {}, { publish: true, takeover: { from: 'a' } }],
    [
      'took it from a, which published in this period',
      true,
      record({ publishingAt: ask.at - 200 }),
      {},
      {
        publish: false,
        release: false,
        reason: 'took the lock; a published in this period, so this instance publishes from the next',
      },
    ],
    [
      'a clock ahead by less than half a period counts as this period',
      true,
      record({ publishingAt: ask.at + 5_000 }),
      {},
      { publish: false, release: false, reason: expect.stringContaining('a published in this period') as string },
    ],
    [
      'a different config: lets go of the lock',
      true,
      record({ configHash: 'aaaa' }),
      {},
      {
        publish: false,
        release: true,
        reason:
          'not taking over from a: its config (hash aaaa) differs from this one (bbbb); make them equal or set ha.allowConfigMismatch',
      },
    ],
    [
      'a different config, allowed',
      true,
      record({ configHash: 'aaaa' }),
      { allowConfigMismatch: true },
      { publish: true, takeover: { from: 'a' } },
    ],
  ])('%s', (_name, held, read, overrides, decision) => {
    expect(decidePublish(held, read, { ...ask, ...overrides })).toEqual(decision);
  });
});

describe('lockTiming', () => {
  it.each([
    [30_000, { idleTimeoutMs: 15_000, heartbeatMs: 5_000, queryTimeoutMs: 7_500 }],
    [4_000, { idleTimeoutMs: 2_000, heartbeatMs: 667, queryTimeoutMs: 1_000 }],
    [1_000, { idleTimeoutMs: 1_000, heartbeatMs: 333, queryTimeoutMs: 500 }],
    [3_600_000, { idleTimeoutMs: 60_000, heartbeatMs: 20_000, queryTimeoutMs: 30_000 }],
  ])('a period of %i ms: a stalled holder loses the lock within half a period (1 s..1 min)', (period, timing) => {
    expect(lockTiming(period)).toEqual(timing);
    // The takeover bound: the lock frees within the idle timeout, the next build on the standby takes it.
    if (period >= 2_000) expect(timing.idleTimeoutMs + period).toBeLessThanOrEqual(2 * period);
  });
});

const haConfig = (instance: string, extra = '') =>
  `${sampleConfig}${extra}ha: { lock: { env: RATEFILE_LOCK_URL }, instance: ${instance} }\n`;

describe('configHash', () => {
  it('is the same for one config in two folders of two instances, listening apart', async () => {
    const a = await project({ 'ratefile.config.yaml': haConfig('a') });
    const b = await project({ 'ratefile.config.yaml': haConfig('b', 'server: { port: 9090 }\n') });
    const [one, two] = await Promise.all([loadConfig(a.configPath), loadConfig(b.configPath)]);
    expect(one.dir).not.toBe(two.dir);
    expect(configHash(one)).toMatch(/^[0-9a-f]{16}$/);
    expect(configHash(one)).toBe(configHash(two));
  });

  it.each([
    ['a margin', (text: string) => text.replace('margin: 1.5%', 'margin: 1.6%')],
    ['a reserve', (text: string) => text.replace('BTC: { reserve: "3" }', 'BTC: { reserve: "4" }')],
    ['the guards', (text: string) => `${text}guards: { maxJump: 5% }\n`],
    ['the output folder', (text: string) => `${text}output: www\n`],
  ])('changes with %s', async (_name, change) => {
    const a = await project({ 'ratefile.config.yaml': haConfig('a') });
    const b = await project({ 'ratefile.config.yaml': change(haConfig('a')) });
    expect(configHash(await loadConfig(a.configPath))).not.toBe(configHash(await loadConfig(b.configPath)));
  });
});

describe('the ha: block', () => {
  it('defaults the lock name and refuses a mismatch unless told', async () => {
    const made = await project({ 'ratefile.config.yaml': `${sampleConfig}ha: { lock: { env: LOCK_URL } }\n` });
    expect((await loadConfig(made.configPath)).ha).toEqual({
      lock: { env: LOCK_URL_NAME },
      name: 'ratefile',
      allowConfigMismatch: false,
    });
  });

  it('names each wrong field', async () => {
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}ha: { lock: { env: "postgres://u:p@db/x" }, name: "two words", instance: "" }\n`,
    });
    const error = (await loadConfig(made.configPath).catch((caught: unknown) => caught)) as RatefileError;
    expect(error.details).toEqual([
      expect.stringMatching(/^ha\.lock\.env: expected an environment variable name like "RATEFILE_LOCK_URL"/),
      expect.stringMatching(/^ha\.name: expected a lock name of 1\.\.48 letters, digits, _ \. -/),
      expect.stringMatching(/^ha\.instance: expected an instance name of 1\.\.64 letters/),
    ]);
    expect(error.details.join('\n')).not.toContain('u:p');
  });

  it('an S3 lease instead of a database: the key defaults, wrong fields are named, no credentials in the endpoint', async () => {
    const good = await project({
      'ratefile.config.yaml': `${sampleConfig}ha: { lock: { s3: { bucket: rates-lock, endpoint: "https://s3.example" } } }\n`,
    });
    expect((await loadConfig(good.configPath)).ha?.lock).toEqual({
      s3: { bucket: 'rates-lock', key: 'ratefile-lease.json', endpoint: 'https://s3.example', forcePathStyle: false },
    });
    const bad = await project({
      'ratefile.config.yaml': `${sampleConfig}ha: { lock: { s3: { bucket: X, key: /lease, endpoint: "https://k:s@s3.example" } } }\n`,
    });
    const error = (await loadConfig(bad.configPath).catch((caught: unknown) => caught)) as RatefileError;
    expect(error.details).toEqual([
      expect.stringMatching(/^ha\.lock\.s3\.bucket: expected a bucket name like "rates-lock"/),
      expect.stringMatching(/^ha\.lock\.s3\.key: expected an object key like "ratefile\/lease\.json"/),
      expect.stringMatching(/^ha\.lock\.s3\.endpoint: credentials are never read from the config file/),
    ]);
    expect(error.details.join('\n')).not.toContain('k:s');
    const both = await project({
      'ratefile.config.yaml': `${sampleConfig}ha: { lock: { env: LOCK_URL, s3: { bucket: rates-lock } } }\n`,
    });
    const twice = (await loadConfig(both.configPath).catch((caught: unknown) => caught)) as RatefileError;
    expect(twice.details).toEqual([
      expect.stringMatching(/^ha\.lock: expected one of env \(a lock database\) or s3 \(a lease object\), not both/),
    ]);
  });

  it('a one-off build with the lock URL unset fails naming the variable, and publishes nothing', async () => {
    const made = await project({ 'ratefile.config.yaml': haConfig('a') });
    const outcome = await runRatefile(['build'], made.dir, { env: {} });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain(
      'ha.lock: environment variable RATEFILE_LOCK_URL (the lock database URL) is not set',
    );
  });
});
const LOCK_URL_NAME = 'LOCK_URL';

const at = '2026-11-21T12:00:00.000Z';
const now = new Date(at);
const status = (ha: HaStatus): Status => ({
  version: 1,
  lastBuild: { at, durationMs: 1, ok: true },
  lastSuccessAt: at,
  schedulePeriodMs: PERIOD,
  maintenance: false,
  sources: [],
  exports: [],
  published: ['A>B'],
  heldBack: [],
  ha,
});

describe('what a role looks like', () => {
  const leader: HaStatus = {
    role: 'leader',
    instance: 'b',
    holder: 'b',
    configHash: 'bbbb',
    takeover: { from: 'a', at },
    lastPublish: { by: 'b', at },
  };
  const standby: HaStatus = {
    role: 'standby',
    instance: 'b',
    holder: 'a',
    reason: 'a holds the lock',
    configHash: 'bbbb',
    holderConfigHash: 'aaaa',
    lastPublish: { by: 'a', at },
  };

  it('a failover starts an alert on the instance that took over, which ends by itself after 15 minutes', () => {
    expect(currentProblems(status(leader), now)).toEqual([
      { key: 'ha:takeover', text: `failover: b took over publishing from a at ${at}` },
    ]);
    const later = currentProblems(status(leader), new Date(now.getTime() + 15 * 60_000));
    expect(later.map((problem) => problem.key)).not.toContain('ha:takeover');
  });

  it('a config that differs from the holder is a problem on the standby', () => {
    expect(currentProblems(status(standby), now)).toEqual([
      {
        key: 'ha:config',
        text: 'the config of b (hash bbbb) differs from that of a (hash aaaa): it will not take over',
      },
    ]);
  });

  it('ratefile status names the role and the publisher', () => {
    expect(formatStatus(status(leader), now)).toContain(
      `role: leader (b); this instance publishes\n  took over from a at ${at}\n`,
    );
    const publishing: HaStatus = { ...standby, holderHolds: true, lastPublish: { by: 'a', at } };
    expect(formatStatus(status(publishing), now)).toContain(
      "role: standby (b); a publishes (last 0 s ago) — a holds the lock\n  config hash bbbb differs from the holder's aaaa\n",
    );
  });

  it('the dashboard shows the role and who publishes, escaped', () => {
    const page = (ha: HaStatus) =>
      renderDashboard(dashboardModel({ now, status: status(ha), redaction: { roots: [], secrets: [] } }));
    expect(page(leader)).toContain('Warm standby: this instance (b) is the leader; this instance publishes.');
    // The words of `ratefile status`: a holder is said to publish only while it holds the lock and publishes.
    const publishing: HaStatus = { ...standby, holderHolds: true, lastPublish: { by: 'a<b>', at } };
    expect(page(publishing)).toContain(
      'Warm standby: this instance (b) is the standby; a&lt;b&gt; publishes (last 0 s ago).',
    );
    const dead: HaStatus = { ...standby, holderHolds: false, lastPublish: { by: 'a', at: '2026-11-21T11:58:00.000Z' } };
    expect(page(dead)).toContain('is the standby; a was the last holder, last published ');
    expect(page(dead)).toContain('; its lock is free.');
    expect(renderDashboard(dashboardModel({ now, redaction: { roots: [], secrets: [] } }))).not.toContain(
      'Warm standby',
    );
  });

  it('/healthz judges the role as it is now: a leader whose first publish has not landed answers 503', () => {
    // The last build was a standby's (ok); the build running now took the lock and is still publishing.
    const { holderConfigHash: _, ...following } = standby;
    const built = status({ ...following, holderHolds: true });
    let live: HaStatus = { ...leader, leaderSince: at, lastPublish: { by: 'a', at: '2026-11-21T11:59:57.000Z' } };
    const routes = healthRoutes({ status: () => built, now: () => now, ha: () => live, shown: (value) => value });
    const answer = (route: 'full' | 'bare') => {
      const seen = { code: 0, body: '' };
      const response = {
        writeHead: (code: number) => (seen.code = code),
        end: (body: string) => (seen.body = body),
      } as unknown as ServerResponse;
      routes[route]({} as IncomingMessage, response);
      return { code: seen.code, body: JSON.parse(seen.body) as { level: string; reasons?: string[] } };
    };
    expect(answer('full')).toMatchObject({
      code: 503,
      body: {
        level: 'failing',
        reasons: [`this instance leads (took over from a at ${at}) but has not published yet`],
      },
    });
    expect(answer('bare')).toEqual({ code: 503, body: { level: 'failing', role: 'leader' } });
    // Its publish landed: ok.
    live = { ...live, lastPublish: { by: 'b', at } };
    expect(answer('full')).toMatchObject({ code: 200, body: { level: 'ok' } });
  });

  it("a standby's server answers 503 for the exports, naming the publisher; the leader's serves them", async () => {
    const made = await project({ 'public/parserfile.xml': '<rates></rates>\n' });
    let current = standby;
    const server = createExportServer(
      `${made.dir}/public`,
      {},
      standbyRefusal(() => current),
    );
    const port = await listen(server, 0, '127.0.0.1');
    try {
      const refused = await fetch(`http://127.0.0.1:${port}/parserfile.xml`);
      expect(refused.status).toBe(503);
      expect(await refused.json()).toEqual({ role: 'standby', holder: 'a', reason: 'a holds the lock' });
      current = leader;
      const served = await fetch(`http://127.0.0.1:${port}/parserfile.xml`);
      expect(served.status).toBe(200);
      expect(await served.text()).toBe('<rates></rates>\n');
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
});
