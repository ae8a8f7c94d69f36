// The `sql` reserve source against a real MariaDB (Debian's mariadb-server, started on loopback for this file).
import { describe } from 'vitest';
import { requireServer, startMariadb } from './servers.js';
import { reader, testSqlSource } from './suite.js';

describe.runIf(requireServer('mariadb'))('sql reserves from MariaDB', () => {
  testSqlSource({
    name: 'MariaDB',
    scheme: 'mysql',
    start: startMariadb,
    setup: (rows) => [
      'CREATE DATABASE backoffice',
      `CREATE USER '${reader.user}'@'127.0.0.1' IDENTIFIED BY '${reader.password}'`,
      'CREATE TABLE backoffice.reserves (desk varchar(20) NOT NULL, code varchar(20), amount decimal(30,10), amount_text varchar(40), amount_float double, min_order decimal(30,10), max_order decimal(30,10), active boolean, updated_at datetime(3))',
      // UPDATE too: only the read-only transaction keeps the source from writing.
      `GRANT SELECT, UPDATE ON backoffice.reserves TO '${reader.user}'@'127.0.0.1'`,
      `INSERT INTO backoffice.reserves VALUES ${rows.join(', ')}`,
    ],
    placeholder: '?',
    slowFrom: (seconds) => `reserves JOIN (SELECT SLEEP(${seconds}) AS slept) AS slow`,
  });
});
