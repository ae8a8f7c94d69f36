// A quote's age judged at publish time (issue 45, item 18): a build that priced with fresh quotes but reaches the
// publish after they passed their maxAge publishes none of the directions they price; the rest is published, and the
// guard state keeps the rates that were really out.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCycle } from '../../../../src/io/build/cycle.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import type { GuardState } from '../../../../src/pure/guards/guards.js';
import { projectsPerTest, sampleConfig, type Project } from '../../../support/project.js';

const t0 = new Date('2026-11-21T12:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const project = projectsPerTest();

/** Two sources: BTC/USDT from one whose maxAge is 60 s (twice the 30 s schedule), USDT/RUB from one without a limit. */
const config = sampleConfig.replace(
  'backoffice: { type: file, path: quotes.json }',
  'backoffice: { type: file, path: quotes.json }\n  fixing: { type: file, path: fixing.json, maxAge: "off" }',
);

async function quotes(made: Project, time: Date, btc = '97012.30'): Promise<void> {
  await made.write(
    'quotes.json',
    JSON.stringify({ quotes: [{ pair: 'BTC/USDT', bid: btc, ask: btc, time: time.toISOString() }] }),
  );
  await made.write(
    'fixing.json',
    JSON.stringify({ quotes: [{ pair: 'USDT/RUB', bid: '92.10', ask: '92.35', time: time.toISOString() }] }),
  );
}

/** A cycle whose clock reads `start` when it begins and `publish` at every later reading (a slow build). */
async function slowCycle(made: Project, start: Date, publish: Date) {
  let reads = 0;
  const now = () => (reads++ === 0 ? start : publish);
  return runCycle(await loadConfig(made.configPath), join(made.dir, 'public'), { now });
}

const parserfile = (made: Project) => readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8');
const guardOf = async (made: Project) =>
  JSON.parse(await readFile(join(made.dir, '.ratefile', 'guard.json'), 'utf8')) as GuardState;

describe('quotes that pass their maxAge while the build runs', () => {
  it('withhold what they price at publish time (kind stale, saying so); the rest is published', async () => {
    const made = await project({ 'ratefile.config.yaml': config });
    await quotes(made, at(0));
    const first = await slowCycle(made, at(0), at(20));
    expect(first.build.report.withheld).toEqual([]);
    const before = await guardOf(made);

    // The build starts at 12:01:00 with quotes of 12:00:10 (50 s old) and publishes at 12:01:05 (55 s): in time.
    await quotes(made, at(10), '98000');
    const inTime = await slowCycle(made, at(60), at(65));
    expect(inTime.build.report.withheld).toEqual([]);

    // Now quotes of 12:02:00, a build starting at 12:02:50 (50 s) and publishing at 12:03:10 (70 s, past 60 s).
    await quotes(made, at(120), '99000');
    const late = await slowCycle(made, at(170), at(190));
    expect(late.build.report.withheld.map((w) => [w.direction.id, w.kind, w.reason])).toEqual([
      [
        'BTC>SBERRUB',
        'stale',
        'quote BTC/USDT from backoffice is 70 s old when published (limit 60 s): the build took too long',
      ],
      [
        'BTC>USDTTRC20',
        'stale',
        'quote BTC/USDT from backoffice is 70 s old when published (limit 60 s): the build took too long',
      ],
    ]);
    const published = await parserfile(made);
    expect(published).not.toContain('<from>BTC</from>');
    expect(published).toMatch(/<from>SBERRUB<\/from>\s*<to>USDTTRC20<\/to>/);
    expect(late.status.heldBack.map((held) => held.direction)).toEqual(['BTC>SBERRUB', 'BTC>USDTTRC20']);
    // The guard state keeps the rate really published last (12:01:05's), not the one withdrawn.
    const guard = await guardOf(made);
    expect(guard.published['BTC>SBERRUB']?.rate).toBe(inTime.build.report.guardState.published['BTC>SBERRUB']?.rate);
    expect(guard.published['BTC>SBERRUB']?.rate).not.toBe(before.published['BTC>SBERRUB']?.rate);
  });
});
