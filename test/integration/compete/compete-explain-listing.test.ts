// `ratefile explain` (the real binary) on a competing direction whose source names our own listing (`self:`): the
// monitor's view of it from the last build's status file (src/pure/compete/listing.ts), as `ratefile status` shows it.
import { describe, expect, it } from 'vitest';
import { competeDump } from '../../support/bestchange.js';
import { spawnRatefile } from '../../support/process.js';
import { projectsPerTest } from '../../support/project.js';
import { replayPerSuite } from '../../support/replay.js';

// Beta (#20) is us: BestChange lists BTC → SBERRUB at 1:4950000 with a reserve of 9,000,000.
const config = (url: string) => `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, baseUrl: "${url}", retries: 0, self: 20 }
currencies:
  BTC: { reserve: "3" }
  SBERRUB: { reserve: "5000000" }
  CASHUSD: { reserve: "100000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 2%, compete: { place: 1, floor: 0.5%, ceiling: 3%, ignore: [Alpha] } }
`;

const quotes = JSON.stringify({ quotes: [{ pair: 'BTC/RUB', bid: '5000000', ask: '5000100' }] });

describe("ratefile explain: the monitor's view", () => {
  const project = projectsPerTest();
  const replay = replayPerSuite();

  it('adds how BestChange lists the direction, from the last build', async () => {
    replay().setRoutes([
      { path: '/info.zip', responses: [{ body: competeDump(), headers: { 'content-type': 'application/zip' } }] },
    ]);
    const { dir } = await project({
      'ratefile.config.yaml': config(replay().url),
      'quotes.json': quotes,
      'templates/reffile.yaml': 'include: { tags: [ref] }\n',
    });
    const run = async (...args: string[]) => {
      const proc = spawnRatefile(args, { cwd: dir });
      const exit = await proc.exited;
      return { code: exit.code, stdout: proc.stdout(), stderr: proc.stderr() };
    };
    const before = await run('explain', 'BTC', 'SBERRUB');
    expect(before.stdout).not.toContain('As BestChange lists us');
    const built = await run('build');
    expect(built.code, built.stderr).toBe(0);
    const status = await run('status');
    const explain = await run('explain', 'BTC', 'SBERRUB');
    expect(explain.code, explain.stderr).toBe(0);
    const line = explain.stdout.split('\n').find((l) => l.startsWith('  As BestChange lists us'));
    // The same state and differences as `ratefile status` shows, with the feed and the build they come from.
    const differs = 'differs (rate: listed 1:4950000, published 1:4940000.51 (no earlier rate of the last hour)) since';
    expect(status.stdout).toContain(`as BestChange lists us:\n  BTC → SBERRUB: ${differs}`);
    expect(line).toMatch(/^ {2}As BestChange lists us \(feed bc, last build \d+ s ago\): /);
    expect(line).toContain(differs);
  }, 60_000);
});
