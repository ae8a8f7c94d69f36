// deploy/ratefile.service: what the unit promises (unprivileged, restarted, sandboxed, writing only its state
// directory), and `systemd-analyze verify` where systemd is installed (skipped, saying so, where it is not).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { binPath } from '../../support/process.js';

const unitPath = fileURLToPath(new URL('../../../deploy/ratefile.service', import.meta.url));
const unit = readFileSync(unitPath, 'utf8');

/** `Key=value` lines of one section, in order (a key may repeat). */
function section(name: string): [string, string][] {
  const body = unit.split(/^\[/m).find((part) => part.startsWith(`${name}]`)) ?? '';
  return body
    .split('\n')
    .slice(1)
    .filter((line) => /^[A-Za-z]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]);
}
const values = (key: string) =>
  section('Service')
    .filter(([k]) => k === key)
    .map(([, v]) => v);
const value = (key: string) => values(key).at(-1);

function findSystemdAnalyze(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin', '/bin']) {
    try {
      accessSync(join(dir, 'systemd-analyze'), constants.X_OK);
      return join(dir, 'systemd-analyze');
    } catch {
      // next
    }
  }
  return undefined;
}
const systemdAnalyze = findSystemdAnalyze();

describe('deploy/ratefile.service', () => {
  it('runs `ratefile start` with the config in /etc/ratefile, as an unprivileged user, restarted on failure', () => {
    expect(value('ExecStart')).toMatch(/^\/\S+\/ratefile start --config \/etc\/ratefile\/ratefile\.config\.yaml( |$)/);
    expect(value('User')).toMatch(/^[a-z_][a-z0-9_-]*$/);
    expect(value('User')).not.toBe('root');
    expect(value('Restart')).toBe('on-failure');
    expect(Number.parseInt(value('TimeoutStopSec') ?? '0', 10)).toBeGreaterThanOrEqual(30);
    expect(section('Install')).toContainEqual(['WantedBy', 'multi-user.target']);
  });

  it('listens on 127.0.0.1 only, and its documentation link is the installed README, not an unpublished registry page', () => {
    expect(value('ExecStart')).toContain(' --host 127.0.0.1 ');
    expect(section('Unit')).toContainEqual(['Documentation', 'file:/usr/local/lib/node_modules/ratefile/README.md']);
  });

  it('is hardened: no new privileges, no capabilities, the file system read-only except its state directory', () => {
    for (const [key, expected] of [
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['ProtectHome', 'yes'],
      ['PrivateTmp', 'yes'],
      ['CapabilityBoundingSet', ''],
      ['RestrictSUIDSGID', 'yes'],
      ['StateDirectory', 'ratefile'],
    ] as const) {
      expect(value(key), key).toBe(expected);
    }
    // Nothing else writable, and no JIT-breaking MemoryDenyWriteExecute (Node's V8 needs it off).
    expect(values('ReadWritePaths')).toEqual([]);
    expect(value('MemoryDenyWriteExecute')).toBeUndefined();
  });

  it("fixes glibc's mmap threshold, so large buffers freed after each build go back to the system", () => {
    expect(values('Environment')).toContain('MALLOC_MMAP_THRESHOLD_=131072');
  });

  it.skipIf(systemdAnalyze === undefined)(
    `passes systemd-analyze verify${systemdAnalyze === undefined ? ' (SKIPPED: systemd-analyze not found on this machine)' : ''}`,
    async () => {
      // verify checks that ExecStart's program exists: point it at this checkout's bin/ratefile.js.
      const dir = await mkdtemp(join(tmpdir(), 'ratefile-unit-'));
      try {
        const binary = /^ExecStart=(\S+)/m.exec(unit)?.[1];
        expect(binary).toBeDefined();
        const copy = join(dir, 'ratefile.service');
        await writeFile(copy, unit.replace(`ExecStart=${binary}`, `ExecStart=${binPath}`));
        const result = spawnSync(systemdAnalyze!, ['verify', '--man=no', copy], {
          encoding: 'utf8',
          cwd: dir,
          timeout: 30_000,
        });
        // verify exits 0 even on unknown keys and bad values, which it reports on stderr naming the file.
        const complaints = `${result.stdout}${result.stderr}`
          .split('\n')
          .filter((line) => line.includes('ratefile.service'));
        expect(complaints).toEqual([]);
        expect(result.status, result.stderr).toBe(0);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
