// examples/backoffice.yaml as shipped, against a real PostgreSQL (ledger) and MariaDB (cashdesk) with the tables its
// queries read, its engine replayed on loopback and its file beside it: every direction published from them.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectsPerTest } from '../support/project.js';
import { startReplay, type ReplayServer } from '../support/replay.js';
import { runRatefile } from '../support/run-cli.js';
import { requireServer, startMariadb, startPostgres, type DatabaseServer } from './servers.js';

const password = 'ex-4mple/pass';

describe.runIf(requireServer('postgres') && requireServer('mariadb'))(
  'examples/backoffice.yaml with its databases',
  () => {
    const project = projectsPerTest();
    let servers: DatabaseServer[] = [];
    let engine: ReplayServer | undefined;

    beforeAll(async () => {
      servers = await Promise.all([startPostgres(), startMariadb()]);
      await servers[0]!.admin([
        `CREATE ROLE reserves_reader LOGIN PASSWORD '${password}'`,
        'CREATE DATABASE ledger',
        '@ledger CREATE TABLE exchange_reserves (desk text, currency text, available numeric, min_order numeric, max_order numeric, active boolean, updated_at timestamptz)',
        '@ledger GRANT SELECT ON exchange_reserves TO reserves_reader',
        "@ledger INSERT INTO exchange_reserves VALUES ('main', 'USDTERC20', 25000.456, 100, 10000.999, TRUE, '2026-11-21 12:00:10+00'), ('other', 'USDTERC20', 1, NULL, NULL, TRUE, '2026-11-21 12:00:10+00')",
      ]);
      await servers[1]!.admin([
        'CREATE DATABASE cashdesk',
        `CREATE USER 'cash_reader'@'127.0.0.1' IDENTIFIED BY '${password}'`,
        'CREATE TABLE cashdesk.desk_cash (city varchar(10), code varchar(20), cash_on_hand decimal(20,2))',
        "GRANT SELECT ON cashdesk.desk_cash TO 'cash_reader'@'127.0.0.1'",
        "INSERT INTO cashdesk.desk_cash VALUES ('MSK', 'CASHRUB', 1000000.50), ('SPB', 'CASHRUB', 500000.75), ('EKB', 'CASHRUB', 999)",
      ]);
    }, 120_000);
    afterAll(async () => {
      await Promise.all([...servers.map((server) => server.stop()), engine?.close()]);
    }, 60_000);

    it('publishes every direction, the SQL ones with the reserves their queries return', async () => {
      const example = await readFile(new URL('../../examples/backoffice.yaml', import.meta.url), 'utf8');
      const config = example
        .replace('templates: ../templates', 'templates: templates')
        .replace('output: ../public/backoffice', 'output: public')
        .replace('path: ../quotes.json', 'path: quotes.json');
      engine = await startReplay([
        {
          path: '/api/reserves',
          responses: [
            {
              body: JSON.stringify({
                data: { updatedAt: '2026-11-21T12:00:20Z', reserves: { BTC: '4.25', USDTTRC20: '250000' } },
              }),
            },
          ],
        },
      ]);
      const made = await project({
        'ratefile.config.yaml': config,
        'reserves.json': JSON.stringify({ SBERRUB: '18000000', BTC: '1.5' }),
      });
      const secret = encodeURIComponent(password);
      const env = {
        ENGINE_TOKEN: 'Bearer t0ken',
        RATEFILE_HTTP_URL: engine.url,
        LEDGER_DB_URL: `postgres://reserves_reader:${secret}@127.0.0.1:${servers[0]!.port}/ledger`,
        CASHDESK_DB_URL: `mysql://cash_reader:${secret}@127.0.0.1:${servers[1]!.port}/cashdesk`,
      };
      const build = await runRatefile(['build'], made.dir, { env, fetch: globalThis.fetch });
      expect(build.code, build.stderr).toBe(0);
      expect(build.stderr).toContain('published 6 directions, 0 held back');
      const xml = await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8');
      // The ledger's desk "main" (params), rounded down to USDTERC20's 2 places; the cash desks of MSK and SPB summed.
      expect(xml).toMatch(/<from>SBERRUB<\/from>\s*<to>USDTERC20<\/to>[\s\S]*?<amount>25000\.45<\/amount>/);
      expect(xml).toMatch(/<from>USDTTRC20<\/from>\s*<to>CASHRUB<\/to>[\s\S]*?<amount>1500001<\/amount>/);
    });
  },
);
