// A hostile `exportfile` upstream under `ratefile start` (issue 45, item 1): an answer of 80,000 items in 5 MB, inside
// every bound, each item drawing six findings of the check. Its check and read take seconds of CPU; done on the main
// thread they froze the service (no /healthz, no export answered for over a minute under load). They run in a worker
// thread now: while the upstream's answer is read, /healthz and the exports are answered, and the main thread's share
// of the CPU the process spends meanwhile stays small. Told from the kernel's own CPU accounting of each thread
// (/proc), never from how long anything took.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../support/http.js';
import { assertBuilt, spawnRatefile, stopAll, waitForServing } from '../../support/process.js';
import { projectsPerTest, sampleConfig } from '../../support/project.js';

const project = projectsPerTest();
afterEach(() => stopAll());

/** 80,000 items of unknown codes, a zero `in`, an `out` that is no number and no amount (about 5 MB), then the two the source reads. */
const hostile = Buffer.from(
  `<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n${Array.from(
    { length: 80_000 },
    (_, i) => `<item><from>Q${i % 997}</from><to>W${i % 991}</to><in>0</in><out>x</out></item>`,
  ).join('\n')}
<item><from>USDTTRC20</from><to>SBERRUB</to><in>1</in><out>98.9386</out><amount>5000000</amount></item>
<item><from>SBERRUB</from><to>USDTTRC20</to><in>100.0202</in><out>1</out><amount>90000</amount></item>
</rates>\n`,
);

/** The upstream: serves the file to every request; tells of each answer sent whole and of each next request. */
let upstream: Server;
let url: string;
const waiting: { finished: (() => void)[]; asked: (() => void)[] } = { finished: [], asked: [] };
const next = (list: (() => void)[]) => new Promise<void>((resolve) => list.push(resolve));
const wake = (list: (() => void)[]) => {
  for (const resolve of list.splice(0)) resolve();
};

beforeAll(async () => {
  assertBuilt();
  upstream = createServer((_request, response) => {
    wake(waiting.asked);
    response.on('finish', () => wake(waiting.finished));
    response.writeHead(200, { 'content-type': 'application/xml' }).end(hostile);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/export.xml`;
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

/** CPU time in clock ticks of the process's main thread and of all its threads (Linux's /proc). */
function cpuOf(pid: number): { main: number; all: number } {
  const ticks = (path: string) => {
    const fields = readFileSync(path, 'utf8')
      .slice(readFileSync(path, 'utf8').lastIndexOf(')') + 2)
      .split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  };
  return { main: ticks(`/proc/${pid}/task/${pid}/stat`), all: ticks(`/proc/${pid}/stat`) };
}

describe('a hostile exportfile upstream under start', () => {
  it('is read off the main thread: /healthz and the exports are answered meanwhile', async () => {
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig
        .replace(
          'backoffice: { type: file, path: quotes.json }',
          'backoffice: { type: file, path: quotes.json, maxAge: "off" }',
        )
        .replace(
          'sources:\n',
          `sources:\n  rival: { type: exportfile, url: "${url}", pairs: { "USDT/SBERRUB": { bid: "USDTTRC20>SBERRUB", ask: "SBERRUB>USDTTRC20" } }, refresh: 1s, retries: 0, timeout: 60s }\n`,
        )}schedule: "*/1 * * * * *"\n`,
    });
    const proc = spawnRatefile(['start', '--port', '0', '--host', '127.0.0.1'], { cwd: made.dir });
    const port = Number(new URL(await waitForServing(proc, 120_000)).port);
    const pid = proc.child.pid!;

    // From an answer sent whole to the next request (the next build's): its read lies within.
    await next(waiting.finished);
    const before = cpuOf(pid);
    let read = false;
    const asked = next(waiting.asked).then(() => (read = true));
    let answers = 0;
    // A few polls, not a flood: each answer costs the main thread too.
    while (!read && answers < 5) {
      const [health, exported] = await Promise.all([
        rawRequest({ port, path: '/healthz', timeoutMs: 120_000 }),
        rawRequest({ port, path: '/parserfile.xml', timeoutMs: 120_000 }),
      ]);
      // Answered, whatever it says of the upstream's useless file (503 when failing).
      expect([200, 503]).toContain(health.status);
      expect(JSON.parse(health.body.toString())).toHaveProperty('level');
      expect(exported.status).toBe(200);
      expect(exported.body.toString()).toContain('<rates>');
      answers += 1;
    }
    await asked;
    const after = cpuOf(pid);
    const [main, all] = [after.main - before.main, after.all - before.all];
    expect(answers).toBeGreaterThan(0);
    // The read happened in the window (its seconds of CPU), and the main thread did little of it: measured 4%
    // (10 of 261 ticks) with the worker, 68–78% when the main thread read the file itself.
    expect(all).toBeGreaterThan(50);
    expect(main / all, `main thread ${main} of ${all} ticks`).toBeLessThan(0.25);
    // And what the worker read is the source's quote, as read in the thread.
    const status = JSON.parse(readFileSync(join(made.dir, '.ratefile', 'status.json'), 'utf8')) as {
      sources: { name: string; ok: boolean; quotes?: number }[];
    };
    expect(status.sources.find((source) => source.name === 'rival')).toMatchObject({ ok: true, quotes: 1 });
  }, 300_000);
});
