// The case end to end: a quotes file broken for three minutes under `start` (in-process, clock
// injected) makes /healthz 503, `ratefile status` exit 1 and the dashboard's headline red; fixed, all is ok again.
import { utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRatefile } from '../../support/run-cli.js';
import { projectsPerTest, sampleQuotes } from '../../support/project.js';
import { servicesPerTest } from '../../support/service.js';

const project = projectsPerTest();
const startService = servicesPerTest();

describe('health under start: a broken quotes file', () => {
  it('is failing within one build: 503, status exit 1, a red headline; ok again once the file is fixed', async () => {
    const made = await project();
    const quotes = join(made.dir, 'quotes.json');
    let now = new Date();
    const touch = () => utimes(quotes, now, now); // quotes without a time are as old as their file
    await touch();
    const service = await startService(made, { now: () => now });
    const { base } = service;
    const healthz = async () => {
      const response = await fetch(new URL('healthz', base));
      return { code: response.status, body: (await response.json()) as { level: string; reasons: string[] } };
    };
    const headline = async () =>
      /<div id="health" class="headline (\w+)" role="status"><strong>(\w+)<\/strong>/
        .exec(await (await fetch(base)).text())
        ?.slice(1);
    const status = async () => (await runRatefile(['status'], made.dir, { now: () => now })).code;
    // A scheduled build (every 30 s of the real clock) may be running with the clock as it was: rebuild() then
    // hands back that build, so one more makes sure the state read next was built at `now`.
    const rebuild = async () => {
      await service.rebuild();
      await service.rebuild();
    };

    expect(await healthz()).toMatchObject({ code: 200, body: { level: 'ok', reasons: [] } });
    expect(await headline()).toEqual(['ok', 'OK']);
    expect(await status()).toBe(0);

    // Broken for three minutes: the last good quotes stand in until they are too old (60 s here).
    await writeFile(quotes, '{ "quotes": [ broken');
    now = new Date(now.getTime() + 180_000);
    await rebuild();
    const broken = await healthz();
    expect(broken.code).toBe(503);
    expect(broken.body.level).toBe('failing');
    expect(broken.body.reasons).toEqual([
      '4 of 4 directions withheld for a fault: BTC → SBERRUB, BTC → USDTTRC20, SBERRUB → USDTTRC20, USDTTRC20 → CASHRUB (more than 25%)',
      'failing source: backoffice',
    ]);
    expect(await headline()).toEqual(['failing', 'FAILING']);
    expect(await status()).toBe(1);

    await writeFile(quotes, JSON.stringify(sampleQuotes));
    await touch();
    await rebuild();
    expect(await healthz()).toMatchObject({ code: 200, body: { level: 'ok' } });
    expect(await headline()).toEqual(['ok', 'OK']);
    expect(await status()).toBe(0);
  });
});
