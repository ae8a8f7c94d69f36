// Quiet logs: under `start` a reason is logged when it starts and when it ends, not at every build (its text,
// with an age in it, changes each time); with --log-format json a config error is a JSON line too.
import { utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectsPerTest, sampleQuotes } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';
import { servicesPerTest } from '../../support/service.js';

const project = projectsPerTest();
const start = servicesPerTest();

describe('quiet logs', () => {
  it('a stale quote is logged once when its directions are held back and once when it is over, across 8 builds', async () => {
    const made = await project();
    const quotes = join(made.dir, 'quotes.json');
    let now = new Date();
    await utimes(quotes, now, now);
    let log = '';
    const service = await start(made, { now: () => now, log: (text) => (log += text) });
    // The back office stops writing: the quotes age past their 60 s limit and get older at every build.
    for (let build = 0; build < 6; build += 1) {
      now = new Date(now.getTime() + 30_000);
      await service.rebuild();
    }
    now = new Date(now.getTime() + 30_000);
    await writeFile(quotes, JSON.stringify(sampleQuotes));
    await utimes(quotes, now, now);
    await service.rebuild();
    await service.rebuild();

    const lines = log.split('\n').filter((line) => line.includes('BTC → SBERRUB'));
    expect(lines.map((line) => line.replace(/^\S+ /, ''))).toEqual([
      expect.stringMatching(
        /^warn held back BTC → SBERRUB \(directions\[0\]\): quote BTC\/USDT from backoffice is \d+ s old \(limit 60 s\)$/,
      ),
      expect.stringMatching(
        /^info over: held back BTC → SBERRUB \(directions\[0\]\): quote BTC\/USDT from backoffice is \d+ s old/,
      ),
    ]);
  });

  it('--log-format json: a config error at start-up is one JSON line with its details', async () => {
    const made = await project({ 'ratefile.config.yaml': 'sources: [ {\ncurrencies: : :\n' });
    const result = await runRatefile(['--log-format', 'json', 'build'], made.dir);
    expect(result.code).toBe(2);
    const lines = result.stderr.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      level: 'error',
      msg: expect.stringMatching(/^ratefile\.config\.yaml: not valid YAML/),
      code: 'E_CONFIG',
      details: expect.arrayContaining([expect.stringMatching(/^line 2, column \d+: /)]),
    });
  });
});
