// Real database servers for `npm run test:sql`: a PostgreSQL and a MariaDB from Debian's packages, each started in a
// temporary data folder on a random loopback port (as the postgres / mysql user when run as root), and removed
// after. Without the binaries the suite is skipped with a message, except in CI (`CI` set), where it fails.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/ports.js';

export interface DatabaseServer {
  port: number;
  /** Run statements as the server's administrator (over its Unix socket). */
  admin(statements: string[]): Promise<void>;
  stop(): Promise<void>;
}

const root = process.getuid?.() === 0;

/** Where the binaries are, or why the suite cannot run. */
export function findBinaries(): {
  postgres?: string;
  mariadb?: { install: string; server: string };
  missing: string[];
} {
  const missing: string[] = [];
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
    : [];
  const postgres = versions
    .map((version) => `/usr/lib/postgresql/${version}/bin`)
    .find((dir) => existsSync(join(dir, 'postgres')) && existsSync(join(dir, 'initdb')));
  if (!postgres)
    missing.push('PostgreSQL (/usr/lib/postgresql/*/bin/postgres and initdb; apt-get install -y postgresql)');
  const install = ['/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db'].find((path) => existsSync(path));
  const server = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].find((path) => existsSync(path));
  if (!install || !server) missing.push('MariaDB (mariadb-install-db and mariadbd; apt-get install -y mariadb-server)');
  return { ...(postgres ? { postgres } : {}), ...(install && server ? { mariadb: { install, server } } : {}), missing };
}

/** Skip (with the reason printed) only outside CI; in CI a missing server fails the run. */
export function requireServer(which: 'postgres' | 'mariadb'): boolean {
  const found = findBinaries();
  if (found[which]) return true;
  const message = `npm run test:sql needs ${found.missing.join(' and ')}`;
  if (process.env.CI) throw new Error(`${message} (CI is set: not skipping)`);
  console.warn(`SKIPPED: ${message}`);
  return false;
}

export { freePort };

/** `command` as `user` when we are root (setpriv execs it, so the pid is the server's own), else as ourselves. */
function asUser(user: string, command: string, args: string[]): [string, string[]] {
  return root
    ? ['setpriv', ['--reuid', user, '--regid', user, '--init-groups', '--', command, ...args]]
    : [command, args];
}

function runOrThrow(user: string, command: string, args: string[]): void {
  const [file, argv] = asUser(user, command, args);
  const result = spawnSync(file, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} failed (${result.status}): ${result.stderr}${result.stdout}`);
}

/** The user's uid and gid, for chown. */
function owner(user: string): [number, number] {
  const id = (flag: string) => Number(spawnSync('id', [flag, user], { encoding: 'utf8' }).stdout.trim());
  return [id('-u'), id('-g')];
}

async function folderFor(user: string, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (root) await chown(dir, ...owner(user));
  return dir;
}

async function waitUntil(
  ready: () => Promise<boolean>,
  child: ChildProcess,
  what: string,
  log: () => string,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}): ${log()}`);
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not start within 30 s: ${log()}`);
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export async function startPostgres(): Promise<DatabaseServer> {
  const bin = findBinaries().postgres!;
  const user = root ? 'postgres' : userInfo().username;
  const dir = await folderFor(user, 'ratefile-pg-');
  const data = join(dir, 'data');
  runOrThrow(user, join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'admin',
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  const port = await freePort();
  const [file, argv] = asUser(user, join(bin, 'postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'full_page_writes=off',
  ]);
  const child = spawn(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const { default: pg } = await import('pg');
  const admin = async (statements: string[], database = 'postgres') => {
    const client = new pg.Client({ host: dir, port, user: 'admin', database });
    await client.connect();
    try {
      for (const statement of statements) await client.query(statement);
    } finally {
      await client.end();
    }
  };
  const probe = async () =>
    admin(['SELECT 1']).then(
      () => true,
      () => false,
    );
  await waitUntil(probe, child, 'postgres', () => log);
  return {
    port,
    // Statements starting `@backoffice ` run in that database.
    admin: async (statements) => {
      for (const statement of statements) {
        const [, database, text] = /^@(\w+) ([\s\S]*)$/.exec(statement) ?? [undefined, 'postgres', statement];
        await admin([text!], database);
      }
    },
    stop: async () => {
      await stopChild(child, 'SIGINT');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function startMariadb(): Promise<DatabaseServer> {
  const { install, server } = findBinaries().mariadb!;
  const user = root ? 'mysql' : userInfo().username;
  const dir = await folderFor(user, 'ratefile-mariadb-');
  const data = join(dir, 'data');
  const socket = join(dir, 'mariadb.sock');
  const config = join(dir, 'my.cnf');
  // Each server's temporary tables in a folder of its own: two bootstraps sharing /tmp (mariadb.test.ts and
  // ha-mariadb.test.ts run side by side) failed in CI on a temporary table the other had removed.
  const temporary = join(dir, 'tmp');
  await mkdir(temporary);
  if (root) await chown(temporary, ...owner(user));
  // Our own option file only: no /etc/mysql settings, nothing written outside `dir`.
  await writeFile(
    config,
    [
      '[mysqld]',
      `datadir=${data}`,
      `socket=${socket}`,
      `tmpdir=${temporary}`,
      `pid-file=${join(dir, 'mariadb.pid')}`,
      'bind-address=127.0.0.1',
      'skip-log-bin',
      'innodb-buffer-pool-size=16M',
      'innodb-log-file-size=8M',
      'skip-name-resolve',
      '',
    ].join('\n'),
  );
  if (root) await chown(config, ...owner(user));
  runOrThrow(user, install, [
    `--defaults-file=${config}`,
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
    `--user=${user}`,
  ]);
  const port = await freePort();
  const [file, argv] = asUser(user, server, [
    `--defaults-file=${config}`,
    `--port=${port}`,
    `--user=${user}`,
    `--log-error=${join(dir, 'error.log')}`,
  ]);
  const child = spawn(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const mysql = await import('mysql2/promise');
  const admin = async (statements: string[]) => {
    const connection = await mysql.createConnection({ socketPath: socket, user: 'root' });
    try {
      for (const statement of statements) await connection.query(statement);
    } finally {
      await connection.end();
    }
  };
  const probe = async () =>
    admin(['SELECT 1']).then(
      () => true,
      () => false,
    );
  const errorLog = () => {
    const result = spawnSync('cat', [join(dir, 'error.log')], { encoding: 'utf8' });
    return `${log}${result.stdout ?? ''}`;
  };
  await waitUntil(probe, child, 'mariadbd', errorLog);
  return {
    port,
    admin,
    stop: async () => {
      await stopChild(child, 'SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
