// The warm standby's lock in a real PostgreSQL (Debian's postgresql, started on loopback for this file).
import { describe } from 'vitest';
import { lockKeys } from '../../src/io/ha/postgres.js';
import { locker, testStandby } from './ha-suite.js';
import { requireServer, startPostgres } from './servers.js';

describe.runIf(requireServer('postgres'))('warm standby on PostgreSQL', () => {
  testStandby({
    name: 'PostgreSQL',
    scheme: 'postgres',
    start: startPostgres,
    setup: [
      `CREATE ROLE ${locker.user} LOGIN PASSWORD '${locker.password}'`,
      `CREATE DATABASE lockdb OWNER ${locker.user}`,
    ],
    // As the server's administrator: pg_terminate_backend on the session that holds the advisory lock.
    killHolder: (server, _url, name) => {
      const [key1, key2] = lockKeys(name);
      return server.admin([
        `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = ${key1} AND objid = ${key2}`,
      ]);
    },
  });
});
