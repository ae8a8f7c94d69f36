// The build log of the real `ratefile start`: a build line when a build changed something, none while the
// quotes file stays as it is, and a heartbeat with the count of unchanged builds at the configured interval.
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildsRun, waitForBuildsRun } from '../../support/builds.js';
import { pollUntil } from '../../support/http.js';
import { assertBuilt, spawnRatefile, stopAll, waitForServing, type RatefileProcess } from '../../support/process.js';
import { everySecondConfig, projectsPerTest, sampleQuotes, type Project } from '../../support/project.js';

const project = projectsPerTest();
afterEach(async () => {
  await stopAll();
});
beforeAll(() => assertBuilt());

function start(made: Project, before: readonly string[] = []): RatefileProcess {
  return spawnRatefile([...before, 'start', '--config', made.configPath, '--port', '0', '--host', '127.0.0.1'], {
    cwd: made.dir,
  });
}

const buildLines = (proc: RatefileProcess) => proc.stderr().match(/^\S+ info build: .*$/gm) ?? [];

describe('ratefile start: the build log', () => {
  it('a fixed quotes file: one build line over many builds; new quotes: one more, with the files written', async () => {
    const made = await project({ 'ratefile.config.yaml': everySecondConfig });
    const proc = start(made);
    const base = await waitForServing(proc);
    // Past the config's first re-read (its files are new: the reloader reads them again once they settled).
    await waitForBuildsRun(base, 5);
    expect(buildLines(proc)).toEqual([expect.stringMatching(/ info build: published 4 directions, 0 held back; /)]);
    expect(proc.stderr()).not.toMatch(/ heartbeat: /);

    const moved = structuredClone(sampleQuotes);
    moved.quotes[0]!.bid = '97100.00';
    moved.quotes[0]!.ask = '97100.01';
    // Replaced whole, as a back office should write it: no build reads half of it.
    await writeFile(join(made.dir, 'quotes.json.new'), JSON.stringify(moved));
    await rename(join(made.dir, 'quotes.json.new'), join(made.dir, 'quotes.json'));
    await pollUntil(async () => (buildLines(proc).length >= 2 ? true : undefined), 10_000);
    const seen = await buildsRun(base);
    await waitForBuildsRun(base, seen + 3);
    expect(buildLines(proc)).toHaveLength(2);
    expect(buildLines(proc)[1]).toMatch(/parserfile\.xml 5 items \(written\)/);
  }, 30_000);

  it('log.heartbeat 2s: heartbeats, as JSON, with the builds since the last line and the files’ age', async () => {
    const made = await project({ 'ratefile.config.yaml': `${everySecondConfig}log: { heartbeat: 2s }\n` });
    const proc = start(made, ['--log-format', 'json']);
    const base = (await proc.waitForLog(/"msg":"serving .* at (http:\/\/127\.0\.0\.1:\d+\/)/))[1]!;
    const records = () =>
      proc
        .stderr()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const heartbeats = () => records().filter((record) => record.event === 'heartbeat');
    await pollUntil(async () => (heartbeats().length >= 3 ? true : undefined), 20_000);
    // The log first, then the count: a build is counted before its line is written.
    const beats = heartbeats();
    const lines = records().filter((record) => record.event === 'build').length;
    const builds = await buildsRun(base);
    for (const beat of beats) {
      expect(beat).toMatchObject({
        level: 'info',
        msg: expect.stringMatching(
          /^heartbeat: \d+ builds? in \d+ s changed nothing; published 4 directions, 0 held back; affiliatefile\.xml, parserfile\.xml, reffile\.xml last changed \d+ s ago$/,
        ),
        unchangedBuilds: expect.any(Number),
        published: 4,
        heldBack: 0,
        files: ['affiliatefile.xml', 'parserfile.xml', 'reffile.xml'].map((file) => ({
          file,
          changedAt: expect.any(String),
          ageSeconds: expect.any(Number),
        })),
      });
      // At least the interval since the line before: never more often than log.heartbeat.
      expect(beat.sinceSeconds as number).toBeGreaterThanOrEqual(2);
      expect(beat.msg).toContain(`heartbeat: ${beat.unchangedBuilds as number} build`);
    }
    // Every build is a build line or counted by a heartbeat, except those since the last line.
    const counted = beats.reduce((sum, beat) => sum + (beat.unchangedBuilds as number), 0);
    expect(lines + counted).toBeLessThanOrEqual(builds);
    expect(lines + counted).toBeGreaterThanOrEqual(builds - 3);
  }, 30_000);
});
