// Issue 33, item 2: with `ha:`, health turns failing once no instance has published for `health.failAfterPeriods`
// periods (however well the builds go), `status` never says a dead holder publishes, a standby's warnings are each
// logged once however they alternate, a wrong user is named, and a malformed lock URL is a config error (exit 2).
import { describe, expect, it } from 'vitest';
import { lockStore } from '../../../../src/io/ha/lock.js';
import { repeatFilter } from '../../../../src/pure/ha/repeats.js';
import { lockTiming } from '../../../../src/pure/ha/role.js';
import { assessHealth } from '../../../../src/pure/status/health.js';
import type { HaStatus, Status } from '../../../../src/pure/status/report.js';
import { formatStatus } from '../../../../src/pure/status/status.js';
import { projectsPerTest, sampleConfig } from '../../../support/project.js';
import { runRatefile } from '../../../support/run-cli.js';

const project = projectsPerTest();
const PERIOD = 3_000;
const now = new Date('2026-11-21T12:00:00.000Z');
const earlier = (ms: number) => new Date(now.getTime() - ms).toISOString();

/** A build that went well just now, on an instance in the role `ha` says. */
const status = (ha: HaStatus): Status => ({
  version: 1,
  lastBuild: { at: now.toISOString(), durationMs: 1, ok: true },
  lastSuccessAt: now.toISOString(),
  schedulePeriodMs: PERIOD,
  healthPolicy: { failAfterPeriods: 3, maxWithheldShare: 0.25 },
  maintenance: false,
  sources: [],
  exports: [],
  published: ['A>B'],
  heldBack: [],
  ha,
});
const unreachable: HaStatus = {
  role: 'standby',
  instance: 'rates-2',
  configHash: 'bbbb',
  reason: 'cannot reach the lock on postgres 127.0.0.1:1/lockdb: connect ECONNREFUSED 127.0.0.1:1',
  startedAt: earlier(30_000),
};

describe('health with ha: nobody publishing is failing', () => {
  it('a standby that never reached the lock fails after failAfterPeriods, saying why', () => {
    // Within the limit: not ok either, as no publish is known yet (issue 45, item 9), but not failing.
    expect(assessHealth(status({ ...unreachable, startedAt: earlier(9_000) }), now)).toEqual({
      level: 'degraded',
      reasons: ['no instance is known to have published yet'],
    });
    expect(assessHealth(status(unreachable), now)).toEqual({
      level: 'failing',
      reasons: [
        'no instance has published since this one started 30 s ago (limit 9 s); this instance does not publish: cannot reach the lock on postgres 127.0.0.1:1/lockdb: connect ECONNREFUSED 127.0.0.1:1',
      ],
    });
  });

  it('a standby whose holder stopped publishing fails, naming the last publish', () => {
    const standby: HaStatus = {
      role: 'standby',
      instance: 'rates-2',
      configHash: 'bbbb',
      holder: 'rates-1',
      holderHolds: false,
      reason: 'not taking over from rates-1: its config (hash aaaa) differs from this one (bbbb)',
      startedAt: earlier(600_000),
      lastPublish: { by: 'rates-1', at: earlier(45_000) },
    };
    const health = assessHealth(status(standby), now);
    expect(health.level).toBe('failing');
    expect(health.reasons[0]).toBe(
      `no instance has published for 45 s (limit 9 s; the last publish known is rates-1's at ${earlier(45_000)}); this instance does not publish: not taking over from rates-1: its config (hash aaaa) differs from this one (bbbb)`,
    );
    // While the holder publishes, the standby is ok.
    const fresh = { ...standby, holderHolds: true, lastPublish: { by: 'rates-1', at: earlier(2_000) } };
    expect(assessHealth(status(fresh), now).level).toBe('ok');
  });

  it('a leader that publishes is ok', () => {
    const leader: HaStatus = {
      role: 'leader',
      instance: 'rates-1',
      holder: 'rates-1',
      configHash: 'aaaa',
      startedAt: earlier(600_000),
      lastPublish: { by: 'rates-1', at: now.toISOString() },
    };
    expect(assessHealth(status(leader), now).level).toBe('ok');
  });
});

describe('issue 45, item 9: health is not ok before a publish is known', () => {
  const tookOver: HaStatus = {
    role: 'leader',
    instance: 'rates-2',
    holder: 'rates-2',
    configHash: 'aaaa',
    startedAt: earlier(600_000),
    leaderSince: earlier(100),
    takeover: { from: 'rates-1', at: earlier(100) },
    // The lock's record, read as it took the lock: rates-1's last publish.
    lastPublish: { by: 'rates-1', at: earlier(3_000) },
  };

  it('a new leader is failing until its own first publish lands, then ok', () => {
    expect(assessHealth(status(tookOver), now)).toEqual({
      level: 'failing',
      reasons: [`this instance leads (took over from rates-1 at ${earlier(100)}) but has not published yet`],
    });
    const published = { ...tookOver, lastPublish: { by: 'rates-2', at: earlier(100) } };
    expect(assessHealth(status(published), now)).toEqual({ level: 'ok', reasons: [] });
  });

  it('a leader restarted under its own name: the record of its last run is no publish of this one', () => {
    const restarted: HaStatus = {
      role: 'leader',
      instance: 'rates-1',
      holder: 'rates-1',
      configHash: 'aaaa',
      startedAt: earlier(500),
      leaderSince: earlier(100),
      lastPublish: { by: 'rates-1', at: earlier(5_000) },
    };
    expect(assessHealth(status(restarted), now).reasons).toEqual(['this instance leads but has not published yet']);
    const published = { ...restarted, lastPublish: { by: 'rates-1', at: earlier(100) } };
    expect(assessHealth(status(published), now).level).toBe('ok');
  });

  it('a standby that knows of no publish by the leader is not ok either', () => {
    const waiting: HaStatus = {
      role: 'standby',
      instance: 'rates-2',
      configHash: 'aaaa',
      holder: 'rates-1',
      holderHolds: true,
      reason: 'rates-1 holds the lock',
      startedAt: earlier(1_000),
    };
    expect(assessHealth(status(waiting), now)).toEqual({
      level: 'degraded',
      reasons: ['no instance is known to have published yet'],
    });
    const following = { ...waiting, lastPublish: { by: 'rates-1', at: earlier(1_000) } };
    expect(assessHealth(status(following), now).level).toBe('ok');
  });
});

describe('ratefile status with ha: who publishes', () => {
  const standby: HaStatus = {
    role: 'standby',
    instance: 'rates-2',
    configHash: 'bbbb',
    holder: 'rates-1',
    startedAt: earlier(600_000),
    reason: 'rates-1 holds the lock',
  };
  it.each<[string, Partial<HaStatus>, string]>([
    [
      'the holder holds the lock and published a moment ago',
      { holderHolds: true, lastPublish: { by: 'rates-1', at: earlier(2_000) } },
      'rates-1 publishes (last 2 s ago)',
    ],
    [
      'the lock is free: rates-1 is dead',
      { holderHolds: false, lastPublish: { by: 'rates-1', at: earlier(45_000) }, reason: 'not taking over' },
      'rates-1 was the last holder, last published 45 s ago; its lock is free — not taking over',
    ],
    [
      'the lock cannot be asked',
      { lastPublish: { by: 'rates-1', at: earlier(300_000) }, reason: 'cannot reach the lock' },
      'rates-1 was the last holder, last published 5 min ago; the lock cannot be asked — cannot reach the lock',
    ],
    [
      'held but silent (a stuck leader)',
      { holderHolds: true, lastPublish: { by: 'rates-1', at: earlier(60_000) } },
      'the lock is held, but rates-1 last published 60 s ago',
    ],
  ])('%s', (_name, change, words) => {
    const text = formatStatus(status({ ...standby, ...change }), now);
    expect(text).toContain(`role: standby (rates-2); ${words}`);
    expect(text).not.toMatch(/rates-1 publishes(?! \(last 2 s)/);
  });
});

describe('repeat suppression', () => {
  it('two warnings that alternate at every build are each logged once, and again after a while', () => {
    const repeats = repeatFilter(60_000);
    const logged: string[] = [];
    for (let build = 0; build < 10; build++) {
      const text = build % 2 === 0 ? 'the config differs from a' : 'not taking over from a';
      if (repeats.fresh(text, build * PERIOD)) logged.push(text);
    }
    expect(logged).toEqual(['the config differs from a', 'not taking over from a']);
    expect(repeats.fresh('not taking over from a', 62_000)).toBe(false);
    expect(repeats.fresh('not taking over from a', 63_000)).toBe(true);
    repeats.clear();
    expect(repeats.fresh('the config differs from a', 63_000)).toBe(true);
  });
});

describe('the lock URL', () => {
  it('a driver error names the user, never the password', () => {
    const store = lockStore(
      'URL',
      { URL: 'postgres://wrong_user:Very-s3cret@127.0.0.1:1/lockdb' },
      'x',
      lockTiming(PERIOD),
    );
    expect(store.describe(new Error('role "wrong_user" does not exist'))).toBe('role "wrong_user" does not exist');
    expect(store.describe(new Error('bad password Very-s3cret for wrong_user'))).toBe(
      'bad password *** for wrong_user',
    );
  });

  it('a malformed lock URL is a config error: exit 2, like an unset one', async () => {
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}ha: { lock: { env: RATEFILE_LOCK_URL }, instance: a }\n`,
    });
    for (const url of ['not a url', 'http://127.0.0.1:1/lockdb']) {
      const outcome = await runRatefile(['build'], made.dir, { env: { RATEFILE_LOCK_URL: url } });
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toContain('ha.lock: environment variable RATEFILE_LOCK_URL: expected a URL');
    }
  });
});
