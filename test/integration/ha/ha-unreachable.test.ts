// Issue 33, item 2: `ratefile start` with `ha:` whose lock database cannot be reached (a closed port on loopback)
// builds as a standby and publishes nothing; after `health.failAfterPeriods` periods /healthz and `ratefile status`
// say failing and why, instead of ok. The warning is logged once, not at every build.
import { afterEach, expect, it } from 'vitest';
import { freePort } from '../../support/ports.js';
import { assertBuilt, spawnRatefile, stopAll, waitForServing } from '../../support/process.js';
import { everySecondConfig, projectsPerTest } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';

const project = projectsPerTest();
afterEach(async () => {
  await stopAll();
});

it('an unreachable lock database: nobody publishes, so health turns failing and says why', async () => {
  assertBuilt();
  const closed = await freePort();
  const made = await project({
    'ratefile.config.yaml': `${everySecondConfig}health: { failAfterPeriods: 2 }\nha: { lock: { env: RATEFILE_LOCK_URL }, instance: rates-2 }\n`,
  });
  const url = `postgres://ratefile:Lock-s3cret-pw@127.0.0.1:${closed}/lockdb`;
  const run = spawnRatefile(['start', '--port', '0'], { cwd: made.dir, env: { RATEFILE_LOCK_URL: url } });
  const base = await waitForServing(run);
  type Body = { level: string; reasons: string[]; ha: { role: string } };
  let body: Body | undefined;
  // Builds succeed every second; two periods after start, with no publish anywhere, it is failing.
  await expect
    .poll(
      async () => {
        const answer = await fetch(`${base}healthz`);
        body = (await answer.json()) as Body;
        return body.level;
      },
      { timeout: 15_000, interval: 250 },
    )
    .toBe('failing');
  expect(body!.ha.role).toBe('standby');
  expect(body!.reasons.join('\n')).toMatch(
    new RegExp(
      `^no instance has published since this one started \\d+ s ago \\(limit 2 s\\); this instance does not publish: cannot reach the lock on postgres 127\\.0\\.0\\.1:${closed}/lockdb: .*ECONNREFUSED`,
      'm',
    ),
  );
  const status = await runRatefile(['status'], made.dir, { now: () => new Date() });
  expect(status.stdout).toMatch(/^FAILING: no instance has published since this one started/);
  expect(status.stdout).toContain('role: standby (rates-2); no instance has published yet — cannot reach the lock');
  expect(status.code).toBe(1);
  // One warning however many builds ran, and never the password.
  expect(run.stderr().match(/ha: cannot reach the lock/g)).toHaveLength(1);
  expect(run.stderr()).not.toContain('Lock-s3cret-pw');
}, 40_000);
