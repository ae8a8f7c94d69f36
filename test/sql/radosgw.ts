// An S3 store that honours conditional writes (`If-None-Match: *`, `If-Match` → 412), for the warm standby's S3
// lease: Ceph's RADOS Gateway from Debian's packages (radosgw, ceph-mon, ceph-osd) over a one-OSD cluster held in
// memory (memstore), no authentication inside the cluster, everything on random loopback ports in a temporary
// folder, removed after. (s3rver, @20minutes/s3rver and fauxqs ignore both headers on PUT.)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/ports.js';

export interface S3Store {
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  stop(): Promise<void>;
}

const binaries = [
  '/usr/bin/radosgw',
  '/usr/bin/radosgw-admin',
  '/usr/bin/ceph-mon',
  '/usr/bin/ceph-osd',
  '/usr/bin/ceph',
  '/usr/bin/monmaptool',
];

/** Skip (with the reason printed) only outside CI; in CI a missing radosgw fails the run. */
export function requireRadosgw(): boolean {
  const missing = binaries.filter((path) => !existsSync(path));
  if (missing.length === 0) return true;
  const message = `the S3 lease tests need ${missing.join(', ')} (apt-get install -y radosgw ceph-mon ceph-osd)`;
  if (process.env.CI) throw new Error(`${message} (CI is set: not skipping)`);
  console.warn(`SKIPPED: ${message}`);
  return false;
}

const credentials = { accessKeyId: 'RATEFILELEASE', secretAccessKey: 'lease-test-secret' };

function cephConf(dir: string, fsid: string, monPort: number, rgwPort: number): string {
  return `[global]
fsid = ${fsid}
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
log file = ${dir}/log/$name.log
keyring = /dev/null
auth cluster required = none
auth service required = none
auth client required = none
mon host = v2:127.0.0.1:${monPort}
mon data avail crit = 0
osd crush chooseleaf type = 0
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
[mon.a]
mon data = ${dir}/mon
[osd.0]
osd data = ${dir}/osd
osd objectstore = memstore
memstore device bytes = 268435456
osd class load list = *
osd class default list = *
[client.rgw.a]
ms mon client mode = crc
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
`;
}

export async function startRadosgw(): Promise<S3Store> {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-rgw-'));
  for (const sub of ['run', 'log', 'mon', 'osd']) await mkdir(join(dir, sub));
  const [monPort, rgwPort] = [await freePort(), await freePort()];
  const fsid = crypto.randomUUID();
  const env = { ...process.env, CEPH_CONF: join(dir, 'ceph.conf') };
  await writeFile(env.CEPH_CONF, cephConf(dir, fsid, monPort, rgwPort));
  const children: ChildProcess[] = [];
  const run = (command: string, args: string[]) => {
    const done = spawnSync(command, args, { env, encoding: 'utf8', timeout: 60_000 });
    if (done.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${done.stderr || done.error?.message}`);
    return done.stdout.trim();
  };
  // Daemons in the foreground (-f), children of this process, so stop() ends exactly them.
  const daemon = (command: string, args: string[]) => {
    children.push(spawn(command, ['-f', ...args], { env, stdio: 'ignore' }));
  };
  const stop = async () => {
    await Promise.all(
      children.reverse().map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    run('monmaptool', ['--create', '--fsid', fsid, '--addv', 'a', `[v2:127.0.0.1:${monPort}]`, join(dir, 'monmap')]);
    run('ceph-mon', ['--id', 'a', '--mkfs', '--monmap', join(dir, 'monmap')]);
    daemon('ceph-mon', ['--id', 'a']);
    const osd = run('ceph', ['--connect-timeout', '30', 'osd', 'create']);
    run('ceph', ['osd', 'crush', 'add', `osd.${osd}`, '1', 'root=default']);
    run('ceph-osd', ['--id', osd, '--mkfs']);
    daemon('ceph-osd', ['--id', osd]);
    daemon('radosgw', ['-n', 'client.rgw.a']);
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    // The gateway answers once it has made its pools (some seconds on a fresh cluster).
    const deadline = Date.now() + 90_000;
    for (;;) {
      const up = await fetch(endpoint).then(
        (response) => response.ok,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline) throw new Error(`radosgw did not answer on ${endpoint} (logs: ${dir}/log)`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    run('radosgw-admin', [
      'user',
      'create',
      '--uid',
      'ratefile',
      '--display-name',
      'ratefile',
      '--access-key',
      credentials.accessKeyId,
      '--secret-key',
      credentials.secretAccessKey,
    ]);
    return { endpoint, credentials, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
