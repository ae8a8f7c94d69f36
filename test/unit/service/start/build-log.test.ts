// `start`'s build log with real cycles on a test project and an injected clock: a line when a build changed
// something, none while builds change nothing, and a heartbeat with the count once the interval has passed.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBuildLog } from '../../../../src/service/start/build-log.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { runCycle } from '../../../../src/io/build/cycle.js';
import { createLogger } from '../../../../src/base/log.js';
import type { Config } from '../../../../src/model/config.js';
import { setMaintenanceFlag } from '../../../../src/io/state/state.js';
import { RatefileError } from '../../../../src/base/errors.js';
import {
  everySecondConfig,
  projectsPerTest,
  sampleConfig,
  sampleQuotes,
  type Project,
} from '../../../support/project.js';

const project = projectsPerTest();
const t0 = new Date('2026-11-21T12:00:00Z');
const files = ['affiliatefile.xml', 'parserfile.xml', 'reffile.xml'];
/** Every file as last changed at t0, so the heartbeat's age is the clock's. */
const changedAt = new Map(files.map((file) => [file, t0]));

/** The build log of a project, built every 30 s of the injected clock; `lines` is what it logged (without times). */
function buildLogOf(made: Project) {
  let text = '';
  const buildLog = createBuildLog(createLogger({ write: (line: string) => (text += line) }));
  let builds = 0;
  return {
    lines: () =>
      text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.replace(/^\S+ /, '')),
    /** One build at t0 + 30 s × the builds before it, logged as `start` logs it. */
    async build(config: Config) {
      const at = new Date(t0.getTime() + builds++ * 30_000);
      const result = await runCycle(config, join(made.dir, 'public'), { now: () => at });
      await buildLog.built(result, config, changedAt, at);
      return result;
    },
    failed: () => buildLog.failed(new Date(t0.getTime() + builds++ * 30_000)),
  };
}

const buildLine = /^info build: published 4 directions, 0 held back; /;

describe('the build log of start', () => {
  it('the first build logged; 19 alike builds not; the 20th unchanged build, 10 minutes on, a heartbeat with the count', async () => {
    const made = await project({ 'ratefile.config.yaml': everySecondConfig });
    const config = await loadConfig(made.configPath);
    const log = buildLogOf(made);
    for (let i = 0; i < 20; i++) await log.build(config);
    expect(log.lines()).toEqual([expect.stringMatching(buildLine)]);
    await log.build(config);
    expect(log.lines()).toEqual([
      expect.stringMatching(buildLine),
      'info heartbeat: 20 builds in 10 min changed nothing; published 4 directions, 0 held back; ' +
        'affiliatefile.xml, parserfile.xml, reffile.xml last changed 10 min ago',
    ]);
    // The count starts again after a heartbeat.
    for (let i = 0; i < 20; i++) await log.build(config);
    expect(log.lines().at(-1)).toMatch(/^info heartbeat: 20 builds in 10 min changed nothing; /);
    expect(log.lines()).toHaveLength(3);
  });

  it('new quotes (files written), a failing source starting and ending, a failed build, an edited config: a line each', async () => {
    const spare = JSON.stringify({ quotes: [{ pair: 'EUR/USD', bid: '1.05', ask: '1.06' }] });
    const made = await project({
      'ratefile.config.yaml': everySecondConfig.replace(
        'sources:\n',
        'sources:\n  spare: { type: file, path: spare.json, maxAge: "off" }\n',
      ),
      'spare.json': spare,
    });
    let config = await loadConfig(made.configPath);
    const log = buildLogOf(made);
    await log.build(config);
    await log.build(config);
    expect(log.lines()).toHaveLength(1);

    // New rates: the files' bytes change.
    const moved = structuredClone(sampleQuotes);
    moved.quotes[1]!.bid = '92.20';
    await made.write('quotes.json', JSON.stringify(moved));
    await log.build(config);
    await log.build(config);
    expect(log.lines()).toHaveLength(2);
    expect(log.lines()[1]).toMatch(/\(written\)/);

    // The spare source's file goes: failing from that build on (logged once), the files as they were.
    await rm(join(made.dir, 'spare.json'));
    await log.build(config);
    await log.build(config);
    expect(log.lines()).toHaveLength(3);
    expect(log.lines()[2]).toMatch(/ reffile\.xml 4 items \(unchanged\); \d+ ms; failing sources: spare$/);
    // It comes back: ok again (logged once).
    await made.write('spare.json', spare);
    await log.build(config);
    await log.build(config);
    expect(log.lines()).toHaveLength(4);
    expect(log.lines()[3]).toMatch(/ reffile\.xml 4 items \(unchanged\); \d+ ms$/);

    // The config read again, the same text (as the reloader does when a file is touched): not a change.
    config = await loadConfig(made.configPath);
    await log.build(config);
    expect(log.lines()).toHaveLength(4);
    // An edit that changes no file: logged, so the operator sees the reload took.
    await made.write('ratefile.config.yaml', `${await readFile(made.configPath, 'utf8')}# edited\n`);
    config = await loadConfig(made.configPath);
    await log.build(config);
    await log.build(config);
    expect(log.lines()).toHaveLength(5);

    // After a failed build (its error logged by the service), the next good build is logged.
    log.failed();
    await log.build(config);
    await log.build(config);
    expect(log.lines()).toHaveLength(6);
    expect(log.lines().every((line) => line.startsWith('info build: '))).toBe(true);
  });

  it('a reason whose text alone changes (a quote growing older) is the same reason: no line', async () => {
    const old = { quotes: sampleQuotes.quotes.map((quote) => ({ ...quote, time: '2026-11-21T11:50:00Z' })) };
    const made = await project({
      'ratefile.config.yaml': everySecondConfig.replace('maxAge: "off"', 'maxAge: 2m'),
      'quotes.json': JSON.stringify(old),
    });
    const log = buildLogOf(made);
    const config = await loadConfig(made.configPath);
    const reasons = async () => {
      const { report } = (await log.build(config)).build;
      return [...report.sources.flatMap((source) => source.rejected), ...report.withheld.map((w) => w.reason)];
    };
    const first = await reasons();
    for (let i = 0; i < 3; i++) await reasons();
    const last = await reasons();
    expect(last).toHaveLength(first.length);
    expect(last).not.toEqual(first);
    expect(log.lines()).toEqual([expect.stringMatching(/^info build: published 0 directions, 4 held back; /)]);
  });

  it('maintenance switched on and off (`ratefile maintenance`): a line each way', async () => {
    const made = await project({ 'ratefile.config.yaml': everySecondConfig });
    const log = buildLogOf(made);
    const config = await loadConfig(made.configPath);
    await log.build(config);
    await setMaintenanceFlag(config.stateDir, true, t0);
    await log.build(config);
    await log.build(config);
    await setMaintenanceFlag(config.stateDir, false, t0);
    await log.build(config);
    await log.build(config);
    expect(log.lines()).toEqual([
      expect.stringMatching(buildLine),
      expect.stringMatching(/^info build: MAINTENANCE: every export published empty; /),
      expect.stringMatching(buildLine),
    ]);
  });
});

describe('log.heartbeat in the config', () => {
  it('10 minutes unless set; a duration like "5m"; less than a second refused with its path and line', async () => {
    const made = await project();
    expect((await loadConfig(made.configPath)).log).toEqual({ heartbeatMs: 600_000 });
    await made.write('ratefile.config.yaml', `${sampleConfig}log: { heartbeat: 5m }\n`);
    expect((await loadConfig(made.configPath)).log).toEqual({ heartbeatMs: 300_000 });
    await made.write('ratefile.config.yaml', `${sampleConfig}log: { heartbeat: 500ms }\n`);
    const refused = await loadConfig(made.configPath).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RatefileError);
    expect((refused as RatefileError).details).toEqual([
      `log.heartbeat: expected a duration of 1s or more, like "10m" (line ${sampleConfig.split('\n').length})`,
    ]);
  });
});
