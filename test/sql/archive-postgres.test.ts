// The archive in a real PostgreSQL (`archive: { store: postgres }`, issue 47): two instances in turn append to one
// chain (the leader changes, the records go on), every version of every export is rebuilt byte for byte from the
// table, `archive verify` passes, and a row edited in the table makes it fail naming the record; through the config,
// `ratefile build` records there and `ratefile at` writes the file that was served.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/io/archive/postgres.js';
import { ArchiveReader } from '../../src/io/archive/reader.js';
import { Recorder } from '../../src/io/archive/recorder.js';
import { verifyArchive } from '../../src/io/archive/verify.js';
import type { ArchiveBuild } from '../../src/io/archive/make.js';
import { projectsPerTest, sampleConfig } from '../support/project.js';
import { random } from '../support/random.js';
import { runRatefile } from '../support/run-cli.js';
import { requireServer, startPostgres, type DatabaseServer } from './servers.js';

const owner = { user: 'archivist', password: 'ar-Pa55/w0rd' };
const quiet = { warn: () => undefined, info: () => undefined };
const options = { windowMs: 30 * 86_400_000, budgetBytes: 1 << 30, log: quiet };

/** Builds a minute apart whose parserfile.xml moves most of the time. */
function builds(count: number, start: number): ArchiveBuild[] {
  const next = random(47);
  const xml = () =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<rates>${Array.from({ length: 4 }, (_, i) => `\n  <item>\n    <from>BTC</from>\n    <to>C${i}X</to>\n    <in>1</in>\n    <out>${(1000 + next() * 10).toFixed(2)}</out>\n  </item>`).join('')}\n</rates>\n`;
  let parser = xml();
  return Array.from({ length: count }, (_, i) => {
    if (i > 0 && next() < 0.8) parser = xml();
    const at = new Date(start + i * 60_000);
    return {
      at,
      published: new Date(at.getTime() + 500),
      id: at.toISOString(),
      files: [{ file: 'parserfile.xml', bytes: Buffer.from(parser) }],
      removed: [],
      state: `{"d":"BTC>C0X","r":"1:${i}"}\n`,
    };
  });
}

describe.runIf(requireServer('postgres'))('the archive in PostgreSQL', () => {
  const project = projectsPerTest();
  let server: DatabaseServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startPostgres();
    await server.admin([
      `CREATE ROLE ${owner.user} LOGIN PASSWORD '${owner.password}'`,
      `CREATE DATABASE ratefile OWNER ${owner.user}`,
    ]);
    env = {
      ARCHIVE_DB_URL: `postgres://${owner.user}:${encodeURIComponent(owner.password)}@127.0.0.1:${server.port}/ratefile`,
    };
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  it('keeps one chain across two instances, rebuilds every version, and names an edited record', async () => {
    const all = builds(40, Date.parse('2026-12-02T10:00:00Z'));
    const leader = await Recorder.open(postgresStore('ARCHIVE_DB_URL', env, 'chain'), options);
    for (const build of all.slice(0, 20)) expect((await leader.record(build)).warning).toBeUndefined();
    await leader.close();
    // The other instance takes over: its records follow the first one's.
    const next = await Recorder.open(postgresStore('ARCHIVE_DB_URL', env, 'chain'), options);
    for (const build of all.slice(20)) expect((await next.record(build)).warning).toBeUndefined();
    await next.close();

    const store = postgresStore('ARCHIVE_DB_URL', env, 'chain');
    try {
      const reader = await ArchiveReader.open(store);
      for (const build of all) {
        const at = await reader.recordAt(build.published.getTime() + 1);
        expect((await reader.stream(at!, 'parserfile.xml'))?.equals(build.files[0]!.bytes)).toBe(true);
      }
      const verified = await verifyArchive(store, { rebuild: true });
      expect(verified.problems).toEqual([]);
      expect(verified.records).toBeGreaterThan(30);
      await server.admin([
        "@ratefile UPDATE ratefile_archive SET header = replace(header, '\"parserfile.xml\"', '\"parserfile.xmI\"') WHERE archive = 'chain' AND seq = 7",
      ]);
      const edited = await verifyArchive(store);
      expect(edited.problems[0]?.where).toMatch(/^seq 7 /);
    } finally {
      await store.close();
    }
  });

  it('`ratefile build` records there, `at` writes the file served and `archive verify` passes', async () => {
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}archive: { store: postgres, env: ARCHIVE_DB_URL }\n`,
    });
    const clock = { now: () => new Date(), env };
    const built = await runRatefile(['build'], made.dir, clock);
    expect(built.code, built.stderr).toBe(0);
    const served = await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8');
    const at = await runRatefile(['at', 'now', '--export', 'parserfile.xml'], made.dir, clock);
    expect(at.code, at.stderr).toBe(0);
    expect(at.stdout).toBe(served);
    const verified = await runRatefile(['archive', 'verify'], made.dir, clock);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^archive \(ratefile_archive on .*\): 1 records/);
  });
});
