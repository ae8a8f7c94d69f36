// `ratefile status` shows the expected monitors (`monitors:`) as the service judged them, from the fetches it saved in
// `.ratefile/readers.json` (src/io/readers/store.ts): status runs in another process than the service.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FetchLog, type Fetch } from '../../../../src/pure/readers/fetches.js';
import { writeReaders } from '../../../../src/io/readers/store.js';
import { projectsPerTest, sampleConfig } from '../../../support/project.js';
import { fixedNow, runRatefile } from '../../../support/run-cli.js';

const project = projectsPerTest();

const config = `${sampleConfig}monitors:
  bestchange: { agent: BestChangeBot, window: 10m }
  sumo: { agent: Sumo, window: 10m, exports: [reffile.xml] }
  kurs: { agent: Kurs, window: 10m }
  late: { agent: Late, window: 2h }
`;

const at = (secondsBefore: number) => fixedNow().getTime() - secondsBefore * 1000;
const fetch = (monitor: string, file: string, status: number, secondsBefore: number): Fetch => ({
  at: at(secondsBefore),
  export: file,
  address: '127.0.0.1',
  agent: monitor,
  status,
  body: status === 200 ? 'full' : 'none',
  bytes: status === 200 ? 900 : 0,
  monitor,
});

async function projectWithFetches() {
  const made = await project({ 'ratefile.config.yaml': config });
  expect((await runRatefile(['build'], made.dir)).code).toBe(0);
  const log = new FetchLog(
    ['parserfile.xml', 'reffile.xml', 'affiliatefile.xml'],
    ['bestchange', 'sumo', 'kurs', 'late'],
  );
  log.record(fetch('bestchange', 'parserfile.xml', 200, 120));
  log.record(fetch('sumo', 'reffile.xml', 200, 3 * 3600));
  log.record(fetch('kurs', 'parserfile.xml', 404, 60));
  // The service began watching an hour ago: `late`, never seen, is still within its two-hour window.
  await writeReaders(join(made.dir, '.ratefile'), log, undefined, at(3600));
  return made;
}

describe('ratefile status: the expected monitors', () => {
  it('lists each with its state and the age of its last fetch', async () => {
    const made = await projectWithFetches();
    const { stdout } = await runRatefile(['status'], made.dir);
    expect(stdout).toContain('expected monitors (fetches the service saved):');
    expect(stdout).toContain('  bestchange: ok, last fetch 2 min ago');
    expect(stdout).toContain('  sumo (reffile.xml): SILENT, last fetch 3 h ago (window 10 min)');
    expect(stdout).toContain(
      '  kurs: NOT GETTING THE FILE (HTTP 404 for parserfile.xml 60 s ago), last fetch 60 s ago',
    );
    expect(stdout).toContain('  late: not seen yet, last fetch never');
  });

  it('gives the same in --json', async () => {
    const made = await projectWithFetches();
    const { stdout } = await runRatefile(['status', '--json'], made.dir);
    const { monitors } = JSON.parse(stdout) as {
      monitors: { name: string; state: string; lastFetchAgeSeconds?: number }[];
    };
    expect(monitors.map((m) => [m.name, m.state, m.lastFetchAgeSeconds])).toEqual([
      ['bestchange', 'ok', 120],
      ['sumo', 'silent', 10800],
      ['kurs', 'failing', 60],
      ['late', 'waiting', undefined],
    ]);
  });

  it('with nothing saved yet, every monitor is not seen yet', async () => {
    const made = await project({ 'ratefile.config.yaml': config });
    expect((await runRatefile(['build'], made.dir)).code).toBe(0);
    const { stdout } = await runRatefile(['status'], made.dir);
    expect(stdout).toContain('  bestchange: not seen yet, last fetch never');
    expect(stdout).toContain('  sumo (reffile.xml): not seen yet, last fetch never');
  });
});
