// Issue 36's "Done when": a direction whose `manual` label and on/off switch follow a table in a real PostgreSQL
// (`switchesFrom:` an `sql` reserve source). Updating the table changes what the next build publishes: the item with or
// without `<param>manual</param>`, or none (switched off, kind `paused`); a failed read keeps the last known state
// for the source's maxAge (the service's reserve cache), then withholds the direction (kind `reserve`, naming it).
import { readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectsPerTest } from '../support/project.js';
import { withSwitches } from '../support/reserves.js';
import { runRatefile } from '../support/run-cli.js';
import { requireServer, startPostgres, type DatabaseServer } from './servers.js';

const reader = { user: 'switch_reader', password: 'sw-Pa55/w0rd' };

describe.runIf(requireServer('postgres'))('labels and switch from a PostgreSQL table', () => {
  const project = projectsPerTest();
  let server: DatabaseServer;
  let url: string;

  beforeAll(async () => {
    server = await startPostgres();
    await server.admin([
      `CREATE ROLE ${reader.user} LOGIN PASSWORD '${reader.password}'`,
      'CREATE DATABASE backoffice',
      '@backoffice CREATE TABLE direction_switches (direction text PRIMARY KEY, active boolean NOT NULL, labels text)',
      `@backoffice GRANT SELECT ON direction_switches TO ${reader.user}`,
      "@backoffice INSERT INTO direction_switches VALUES ('BTC>SBERRUB', TRUE, 'manual'), ('BTC>USDTTRC20', TRUE, NULL)",
    ]);
    url = `postgres://${reader.user}:${encodeURIComponent(reader.password)}@127.0.0.1:${server.port}/backoffice`;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  const source =
    '{ type: sql, url: { env: SWITCHES_DB_URL }, query: "SELECT direction AS code, active AS enabled, labels FROM direction_switches", maxAge: 1m, timeout: 5s }';
  const update = (statement: string) => server.admin([`@backoffice ${statement}`]);

  it('publishes, labels and withholds BTC → SBERRUB as the table says at each build', async () => {
    const made = await project({ 'ratefile.config.yaml': withSwitches(source) });
    const env = { SWITCHES_DB_URL: url };
    const build = async () => {
      const outcome = await runRatefile(['build'], made.dir, { env });
      expect(outcome.code, outcome.stderr).toBe(0);
      const xml = await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8');
      return /<item>\s*<from>BTC<\/from>\s*<to>SBERRUB<\/to>[\s\S]*?<\/item>/.exec(xml)?.[0];
    };

    expect(await build()).toContain('<param>manual</param>');
    const explained = await runRatefile(['explain', 'BTC', 'SBERRUB'], made.dir, { env });
    expect(explained.stdout).toContain(
      "Switch and labels from office: BTC>SBERRUB on, labels manual (in place of the config's: verifying)\nWorking hours: the config's manualHours, as a manual direction\n",
    );

    await update("UPDATE direction_switches SET labels = 'verifying' WHERE direction = 'BTC>SBERRUB'");
    const automatic = await build();
    expect(automatic).toContain('<param>verifying</param>');
    expect(automatic).not.toContain('manual');

    await update("UPDATE direction_switches SET active = FALSE, labels = 'manual' WHERE direction = 'BTC>SBERRUB'");
    expect(await build()).toBeUndefined();
    const off = await runRatefile(['explain', 'BTC', 'SBERRUB'], made.dir, { env });
    expect(off.code).toBe(1);
    expect(off.stdout).toContain('HELD BACK: switched off by office (BTC>SBERRUB enabled: false)');

    await update(
      "UPDATE direction_switches SET active = TRUE, labels = 'verifying,manual' WHERE direction = 'BTC>SBERRUB'",
    );
    expect(await build()).toContain('<param>manual, verifying</param>');
  });

  it('reads labels from a text[] column, in BestChange order', async () => {
    const arrays = source.replace(
      'SELECT direction AS code, active AS enabled, labels FROM direction_switches',
      "SELECT direction AS code, ARRAY['reg', 'manual']::text[] AS labels FROM direction_switches",
    );
    const made = await project({ 'ratefile.config.yaml': withSwitches(arrays) });
    const outcome = await runRatefile(['build'], made.dir, { env: { SWITCHES_DB_URL: url } });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8')).toMatch(
      /<from>BTC<\/from>\s*<to>SBERRUB<\/to>[\s\S]*?<param>manual, reg<\/param>/,
    );
  });

  it('keeps the last known state for maxAge when the table cannot be read, then withholds the direction', async () => {
    const { build } = await import('../../src/io/build/build.js');
    const { loadConfig } = await import('../../src/io/config/load.js');
    const { ReserveCache } = await import('../../src/io/reserves/fetch.js');
    await update("UPDATE direction_switches SET active = TRUE, labels = 'manual' WHERE direction = 'BTC>SBERRUB'");
    const made = await project({ 'ratefile.config.yaml': withSwitches(source) });
    const config = await loadConfig(made.configPath);
    const reserveCache = new ReserveCache();
    const sberrub = async (seconds: number) => {
      const now = new Date(Date.parse('2026-11-21T12:00:00Z') + seconds * 1000);
      // Quotes are as old as their file: keep them fresh by moving the file's time with the clock.
      await utimes(join(made.dir, 'quotes.json'), now, now);
      const { report } = await build(config, {
        now: () => now,
        env: { SWITCHES_DB_URL: url },
        reserveCache,
      });
      return {
        params: report.priced.find((p) => p.direction.id === 'BTC>SBERRUB')?.direction.params,
        held: report.withheld.find((w) => w.direction.id === 'BTC>SBERRUB'),
        source: report.reserves[0]!,
      };
    };
    try {
      expect(await sberrub(0)).toMatchObject({ params: ['manual'], source: { ok: true } });
      await update('ALTER TABLE direction_switches RENAME TO direction_switches_moved');
      const standIn = await sberrub(30);
      expect(standIn).toMatchObject({ params: ['manual'], source: { ok: true, reused: 'fallback' } });
      expect(standIn.source.error).toMatch(
        /direction_switches.*\(using its last good reserves, fetched 2026-11-21T12:00:00Z\)$/,
      );
      const past = await sberrub(61);
      expect(past.params).toBeUndefined();
      expect(past.held).toMatchObject({
        kind: 'reserve',
        reason: expect.stringMatching(
          /^labels and switch of BTC>SBERRUB from office: office: .*direction_switches/,
        ) as string,
      });
      expect(JSON.stringify(past)).not.toContain(reader.password);
    } finally {
      await update('ALTER TABLE direction_switches_moved RENAME TO direction_switches');
    }
  });
});
