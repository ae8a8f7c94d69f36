// The `sql` reserve source against a real PostgreSQL (Debian's postgresql, started on loopback for this file).
import { describe } from 'vitest';
import { requireServer, startPostgres } from './servers.js';
import { reader, testSqlSource } from './suite.js';

describe.runIf(requireServer('postgres'))('sql reserves from PostgreSQL', () => {
  testSqlSource({
    name: 'PostgreSQL',
    scheme: 'postgres',
    start: startPostgres,
    setup: (rows) => [
      `CREATE ROLE ${reader.user} LOGIN PASSWORD '${reader.password}'`,
      'CREATE DATABASE backoffice',
      '@backoffice CREATE TABLE reserves (desk text NOT NULL, code text, amount numeric, amount_text text, amount_float double precision, min_order numeric, max_order numeric, active boolean, updated_at timestamptz)',
      // UPDATE too: only the read-only transaction keeps the source from writing.
      `@backoffice GRANT SELECT, UPDATE ON reserves TO ${reader.user}`,
      "@backoffice SET TIME ZONE 'UTC'",
      `@backoffice INSERT INTO reserves VALUES ${rows.map((row) => row.replace(/'(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)'\)$/, "'$1+00')")).join(', ')}`,
    ],
    placeholder: '$1',
    slowFrom: (seconds) => `reserves, pg_sleep(${seconds})`,
  });
});
