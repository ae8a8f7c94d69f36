// pause/resume against a running `ratefile start` (the real binary): the CLI writes a pause file, the service's
// next build withholds the direction (shown as paused on the page and in /healthz, health ok), resume undoes it.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../support/http.js';
import { assertBuilt, spawnRatefile, stopAll, waitForServing } from '../../support/process.js';
import { everySecondConfig, projectsPerTest } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';

const project = projectsPerTest();
beforeAll(() => assertBuilt());
afterEach(() => stopAll());

describe('pause and resume under ratefile start', () => {
  it('the running service withholds a paused direction within a build, health stays ok, and publishes it again after resume', {
    timeout: 30_000,
  }, async () => {
    const made = await project({ 'ratefile.config.yaml': everySecondConfig });
    const proc = spawnRatefile(['start', '--config', made.configPath, '--port', '0', '--host', '127.0.0.1'], {
      cwd: made.dir,
    });
    const base = await waitForServing(proc);
    const parserfile = async () => (await fetch(new URL('parserfile.xml', base))).text();
    const hasSberrub = (text: string) => /<from>BTC<\/from>\s*<to>SBERRUB<\/to>/.test(text);
    await pollUntil(async () => (hasSberrub(await parserfile()) ? true : undefined), 10_000);

    const now = () => new Date();
    const paused = await runRatefile(['pause', 'BTC', 'SBERRUB', '--reason', 'bank blocks cards'], made.dir, { now });
    expect(paused.code, paused.stderr).toBe(0);
    await pollUntil(async () => (hasSberrub(await parserfile()) ? undefined : true), 10_000);
    // The file is renamed into place before the build's status is kept: wait for the status of that build.
    type Health = { level: string; heldBack: { direction: string; kind: string; reason: string }[] };
    const health = await pollUntil(async () => {
      const body = (await (await fetch(new URL('healthz', base))).json()) as Health;
      return body.heldBack.length > 0 ? body : undefined;
    }, 10_000);
    expect(health.level).toBe('ok');
    expect(health.heldBack).toEqual([
      {
        direction: 'BTC>SBERRUB',
        kind: 'paused',
        reason: expect.stringMatching(/^paused: bank blocks cards \(since /) as string,
      },
    ]);
    const page = await (await fetch(base)).text();
    // On the dashboard: paused, with its reason, and not counted as withheld.
    expect(page).toMatch(
      /<tr data-state="paused" data-id="BTC&gt;SBERRUB">[^\n]*BTC → SBERRUB[^\n]*paused<\/span>[^\n]*bank blocks cards/,
    );
    expect(page).toContain('3 directions published, 0 withheld, 0 out of hours, 1 paused.');

    expect((await runRatefile(['resume', 'BTC', 'SBERRUB'], made.dir, { now })).code).toBe(0);
    await pollUntil(async () => (hasSberrub(await parserfile()) ? true : undefined), 10_000);
    expect(proc.stderr()).not.toMatch(/\berror\b/);
  });
});
