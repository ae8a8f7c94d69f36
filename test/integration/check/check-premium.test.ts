// `ratefile check` on Premium Exchanger files (src/pure/exports/premium.ts's `.txt` exports), run as the real binary: read
// by Premium's rules (src/pure/check/premium.ts), not as XML.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnRatefile, stopAll } from '../../support/process.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ratefile-check-premium-'));
  await writeFile(join(dir, 'rates.txt'), 'BTCSBERRUB : 1 = 8790812.41\nSBERRUBUSDTTRC20 : 0 = 0\n');
  await writeFile(join(dir, 'reserves.txt'), 'BTCSBERRUB = 5000000\nSBERRUBUSDTTRC20 = 0\n');
  // A rate side of zero, a line Premium cannot read; no `.txt` name: told by its content.
  await writeFile(join(dir, 'broken'), 'BTCSBERRUB : 1 = 0\nBTCSBERRUB 1 10\n');
});
afterEach(stopAll);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function check(...args: string[]) {
  const proc = spawnRatefile(['check', ...args], { cwd: dir });
  const exit = await proc.exited;
  return { code: exit.code, stdout: proc.stdout() };
}

describe('ratefile check on a Premium file', () => {
  it('passes good rates and reserves files, counting their lines', async () => {
    const { code, stdout } = await check('rates.txt', 'reserves.txt');
    expect(stdout).toContain('rates.txt: 2 items, clean');
    expect(stdout).toContain('reserves.txt: 2 items, clean');
    expect(stdout).not.toMatch(/xml|root/i);
    expect(code).toBe(0);
  });

  it('reports each broken line and exits 1', async () => {
    const { code, stdout } = await check('broken', '--json');
    const report = JSON.parse(stdout) as { ok: boolean; files: { items: number; findings: object[] }[] };
    expect(report.ok).toBe(false);
    expect(report.files[0]?.items).toBe(2);
    expect(report.files[0]?.findings).toEqual([
      expect.objectContaining({ severity: 'error', rule: 'premium-rate', line: 1 }),
      expect.objectContaining({ severity: 'error', rule: 'premium-line', line: 2 }),
    ]);
    expect(code).toBe(1);
  });
});
