// `ratefile check` over many files holds one file at a time (issue 33, item 10): what is kept between files is each
// file's verdict, never its text, document or findings, and the peak RSS of many files is about that of the largest
// alone (each file checked in a worker thread whose heap goes with it). Measured in the real binary: the heap after a
// full GC at every write to stdout (a file's report), and the process's peak RSS (resourceUsage().maxRSS, read by
// the main thread at exit). Both are amounts of memory, not times: they do not depend on the machine's load.
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnRatefile } from '../../support/process.js';
import { runRatefile } from '../../support/run-cli.js';

/** A classic file whose every item has findings (an unknown city, a suffixed minimum, labels on a non-cash item). */
function manyFindings(items: number): string {
  const codes = ['BTC', 'ETH', 'LTC', 'SBERRUB', 'TCSBRUB', 'QWRUB', 'USDTTRC20', 'XMR', 'TRX', 'DOGE'];
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<rates>'];
  for (let n = 0; n < items; n += 1) {
    const [from, to] = [codes[n % codes.length]!, codes[(n + 1 + Math.floor(n / codes.length)) % codes.length]!];
    lines.push(
      `<item><from>${from}</from><to>${to === from ? 'ETH' : to}</to><in>1</in><out>${(1 + n / 1000).toFixed(6)}</out>` +
        `<amount>1000</amount><minamount>1 ${from}</minamount><maxamount>100</maxamount><param>manual</param>` +
        `<city>NOWHERE${n}</city></item>`,
    );
  }
  return `${lines.join('\n')}\n</rates>\n`;
}

// After each report written, a full GC, then the heap in use: what the process keeps between files. The main thread's
// only: the probe is imported by every worker thread too.
const probe = `
import { isMainThread } from 'node:worker_threads';
if (isMainThread) {
let most = 0;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (...args) => {
  const result = write(...args);
  globalThis.gc();
  most = Math.max(most, process.memoryUsage().heapUsed);
  return result;
};
process.on('exit', () => process.stderr.write(\`heapAfterGc \${most} maxRSS \${process.resourceUsage().maxRSS}\\n\`));
}
`;

// The peak RSS alone, without the GCs forced above (which would hide a heap left grown between files).
const peakProbe = `
import { isMainThread } from 'node:worker_threads';
if (isMainThread) process.on('exit', () => process.stderr.write(\`heapAfterGc 0 maxRSS \${process.resourceUsage().maxRSS}\\n\`));
`;

describe('check over many files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ratefile-check-memory-'));
    await writeFile(join(dir, 'probe.mjs'), probe);
    await writeFile(join(dir, 'peak.mjs'), peakProbe);
    const text = manyFindings(6000);
    for (let copy = 1; copy <= 8; copy += 1) await writeFile(join(dir, `copy${copy}.xml`), text);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function measure(
    files: number,
    json: boolean,
    extra: string[] = [],
    hook = 'probe.mjs',
  ): Promise<{ heapMb: number; rssMb: number }> {
    const names = Array.from({ length: files }, (_, index) => `copy${index + 1}.xml`);
    const proc = spawnRatefile(['check', ...(json ? ['--json'] : []), ...extra, ...names], {
      cwd: dir,
      nodeArgs: ['--expose-gc', '--import', pathToFileURL(join(dir, hook)).href],
    });
    const exit = await proc.exited;
    expect(exit.code, proc.stderr()).toBe(1);
    expect(proc.stdout()).toContain(json ? '"ok": false' : 'copy1.xml: 6000 items');
    const match = /heapAfterGc (\d+) maxRSS (\d+)/.exec(proc.stderr());
    expect(match, proc.stderr()).not.toBeNull();
    return { heapMb: Number(match![1]) / 2 ** 20, rssMb: Number(match![2]) / 1024 };
  }

  it.each([false, true])(
    'keeps no more after 8 files than after 1 (--json: %s)',
    async (json) => {
      const one = await measure(1, json);
      const eight = await measure(8, json);
      console.log(
        `check${json ? ' --json' : ''}: heap after GC ${one.heapMb.toFixed(1)} MB for 1 file, ${eight.heapMb.toFixed(1)} MB ` +
          `for 8; peak RSS ${one.rssMb.toFixed(0)} MB and ${eight.rssMb.toFixed(0)} MB`,
      );
      // One file's findings (about 24,000) take tens of MB; holding all eight would add seven times that.
      expect(eight.heapMb - one.heapMb).toBeLessThan(8);
    },
    120_000,
  );

  it('peaks at about the RSS of one file whatever the count (--monitor moneyswap)', async () => {
    const one = await measure(1, false, ['--monitor', 'moneyswap'], 'peak.mjs');
    const eight = await measure(8, false, ['--monitor', 'moneyswap'], 'peak.mjs');
    console.log(
      `check --monitor moneyswap: peak RSS ${one.rssMb.toFixed(0)} MB for 1 file, ${eight.rssMb.toFixed(0)} MB for 8`,
    );
    // Many files are checked in worker threads whose heaps go with them: about one file's peak whatever the count
    // (2.5 MB file: 220 MB for 1, 228 MB for 21). In one thread V8's heap stayed grown after each file and the peak
    // climbed with the count (this test's file: 153 MB for 1, 323 MB for 8).
    expect(eight.rssMb).toBeLessThan(one.rssMb * 1.15 + 30);
  }, 240_000);

  it('writes the same bytes and exit code from worker threads as from one thread', async () => {
    const fixture = await readFile(new URL('../../fixtures/exports/broken.xml', import.meta.url), 'utf8');
    await writeFile(join(dir, 'broken.xml'), fixture);
    await writeFile(join(dir, 'small.xml'), manyFindings(30));
    // Files of 256 KiB or more are checked in workers, smaller ones in the main thread: both, mixed.
    await writeFile(join(dir, 'big.xml'), manyFindings(2000));
    for (const options of [[], ['--json'], ['--strict'], ['--json', '--monitor', 'moneyswap']]) {
      const args = ['check', ...options, 'big.xml', 'broken.xml', 'missing.xml', 'big.xml', 'small.xml'];
      const inThread = await runRatefile(args, dir);
      const proc = spawnRatefile(args, { cwd: dir });
      const exit = await proc.exited;
      expect({ code: exit.code, stdout: proc.stdout(), stderr: proc.stderr() }, options.join(' ')).toEqual(inThread);
    }
  }, 120_000);
});
