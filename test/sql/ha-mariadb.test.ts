// The warm standby's lock in a real MariaDB (Debian's mariadb-server, started on loopback for this file).
import mysql from 'mysql2/promise';
import { describe } from 'vitest';
import { decode } from '../../src/io/reserves/sql-target.js';
import { locker, testStandby } from './ha-suite.js';
import { requireServer, startMariadb } from './servers.js';

describe.runIf(requireServer('mariadb'))('warm standby on MariaDB', () => {
  testStandby({
    name: 'MariaDB',
    scheme: 'mysql',
    start: startMariadb,
    setup: [
      'CREATE DATABASE lockdb',
      `CREATE USER '${locker.user}'@'127.0.0.1' IDENTIFIED BY '${locker.password}'`,
      `GRANT ALL ON lockdb.* TO '${locker.user}'@'127.0.0.1'`,
    ],
    // KILL of the connection that holds the lock, issued on the server (a user may kill its own connections).
    killHolder: async (_server, url, name) => {
      const target = new URL(url);
      const connection = await mysql.createConnection({
        host: target.hostname,
        port: Number(target.port),
        user: decode(target.username),
        password: decode(target.password),
        database: 'lockdb',
      });
      try {
        const [rows] = await connection.query('SELECT IS_USED_LOCK(?) AS id', [`ratefile/${name}`]);
        const id = (rows as { id: number | null }[])[0]?.id;
        if (!id) throw new Error('no session holds the lock');
        await connection.query(`KILL CONNECTION ${Number(id)}`);
      } finally {
        await connection.end();
      }
    },
  });
});
