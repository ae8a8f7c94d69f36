// Who reads the exports when nginx serves them: a real nginx with deploy/nginx.conf writes its access log, and
// `start` (in-process, `accessLog:` naming that log) reads it into the fetch records: by monitor and export on the
// dashboard and in /metrics, through a rotation (nginx reopening its log on SIGUSR1), over a restart without counting
// a line twice; a monitor gone silent, or answered 404, starts an alert on a real webhook receiver and a good fetch ends it.
import { chmod, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReadersView } from '../../src/service/readers/tracker.js';
import { pollUntil, rawRequest } from '../support/http.js';
import { makeProject, sampleConfig, type Project } from '../support/project.js';
import { servicesPerTest } from '../support/service.js';
import { findNginx, startNginx, type Nginx } from './nginx.js';
import { webhook as startWebhook, type Webhook } from '../support/webhook.js';

const start = servicesPerTest();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

let scratch: string;
let nginx: Nginx;
let project: Project;
const bestchange = 'Mozilla/5.0 (compatible; BestChangeBot/1.0)';
const windowMs = 5_000;

async function workerUser(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const groups = await readFile('/etc/group', 'utf8');
  return /^nogroup:/m.test(groups) ? 'nobody nogroup' : 'nobody nobody';
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'ratefile-nginx-readers-'));
  await chmod(scratch, 0o755);
  project = await makeProject();
  await chmod(project.dir, 0o755);
  const user = await workerUser();
  nginx = await startNginx({
    binary: findNginx(),
    dir: join(scratch, 'nginx'),
    root: join(project.dir, 'public'),
    ...(user ? { user } : {}),
  });
});

afterAll(async () => {
  await nginx?.stop();
  await project?.remove();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const accessLog = () => join(scratch, 'nginx', 'ratefile.access.log');
const viaNginx = (agent: string, headers: Record<string, string> = {}, path = '/parserfile.xml') =>
  rawRequest({ port: nginx.port, path, headers: { 'user-agent': agent, ...headers } });

/** A webhook receiver (test/support/webhook.ts), closed after each test. */
async function webhook(): Promise<Webhook> {
  const hook = await startWebhook();
  closers.push(hook.close);
  return hook;
}

async function readersView(port: number): Promise<ReadersView> {
  const response = await rawRequest({ port, path: '/dashboard.json' });
  return (JSON.parse(response.body.toString()) as { readers: ReadersView }).readers;
}

/** The dashboard once the tracker has read `count` fetches of parserfile.xml by bestchange from the log. */
const seen = (port: number, count: number) =>
  pollUntil(async () => {
    const view = await readersView(port);
    const row = view.fetches.find((f) => f.monitor === 'bestchange' && f.export === 'parserfile.xml');
    return row && row.fetches >= count ? view : undefined;
  }, 15_000);

describe("nginx's access log", () => {
  it('is read into the fetch records, the dashboard, /metrics and the silent-monitor alert', async () => {
    const hook = await webhook();
    await project.write(
      'ratefile.config.yaml',
      `${sampleConfig.replace('path: quotes.json }', 'path: quotes.json, maxAge: "off" }')}schedule: "0 0 * * *"
accessLog: ${JSON.stringify(accessLog())}
monitors:
  bestchange: { agent: BestChangeBot, address: 127.0.0.1, window: ${windowMs / 1000}s }
alerts:
  webhook: { url: "${hook.url}" }
`,
    );
    let service = await start(project);
    const port = service.port!;
    const full = await viaNginx(bestchange);
    expect(full.status).toBe(200);
    expect((await viaNginx(bestchange, { 'if-none-match': String(full.headers.etag) })).status).toBe(304);
    expect((await viaNginx('curl/8.5.0')).status).toBe(200);
    // The log holds them as nginx wrote them, in the combined format.
    expect(await readFile(accessLog(), 'utf8')).toMatch(
      /^127\.0\.0\.1 - - \[[^\]]+\] "GET \/parserfile\.xml HTTP\/1\.1" 200 \d+ "-" "Mozilla\/5\.0 \(compatible; BestChangeBot\/1\.0\)"$/m,
    );

    const view = await seen(port, 2);
    expect(view.sources).toEqual(['server', 'nginx']);
    expect(view.fetches.find((f) => f.monitor === 'bestchange')).toMatchObject({
      fetches: 2,
      notModifiedShare: 0.5,
      failed: 0,
      agent: bestchange,
    });
    expect(view.fetches.find((f) => f.monitor === null)).toMatchObject({ export: 'parserfile.xml', fetches: 1 });
    const metrics = (await rawRequest({ port, path: '/metrics' })).body.toString();
    expect(metrics).toContain(
      'ratefile_export_fetches_total{file="parserfile.xml",monitor="bestchange",class="2xx"} 1',
    );
    expect(metrics).toContain(
      'ratefile_export_fetches_total{file="parserfile.xml",monitor="bestchange",class="3xx"} 1',
    );
    expect(metrics).toMatch(/^ratefile_monitor_last_fetch_timestamp_seconds\{monitor="bestchange"\} \d+$/m);
    expect((await rawRequest({ port, path: '/' })).body.toString()).toContain(
      'Fetches seen through this server and nginx&#39;s access log',
    );

    // Silent past its window: the alert starts; a fetch through nginx (read before the judgement) ends it.
    await new Promise((resolve) => setTimeout(resolve, windowMs + 500));
    await service.rebuild();
    await service.alertsIdle();
    expect(hook.events('monitor')).toEqual(['start monitor-silent:bestchange']);
    expect((await viaNginx(bestchange)).status).toBe(200);
    await service.rebuild();
    await service.alertsIdle();
    expect(hook.events('monitor').slice(1)).toEqual(['end monitor-silent:bestchange']);

    // nginx answers 404 while the file is gone: the monitor gets no rate file.
    await rm(join(project.dir, 'public', 'parserfile.xml'));
    expect((await viaNginx(bestchange)).status).toBe(404);
    await service.rebuild();
    await service.alertsIdle();
    expect(hook.events('monitor').slice(2)).toEqual(['start monitor-answer:bestchange']);
    expect((await readersView(port)).monitors[0]).toMatchObject({ state: 'failing', failure: { status: 404 } });
    expect((await viaNginx(bestchange)).status).toBe(200);
    await service.rebuild();
    await service.alertsIdle();
    expect(hook.events('monitor').slice(3)).toEqual(['end monitor-answer:bestchange']);
    const before = (await seen(port, 5)).fetches.find((f) => f.monitor === 'bestchange')!.fetches;
    expect(before).toBe(5);

    // Rotated as logrotate does it: renamed, then nginx told to reopen; a fetch between the two is in the old file.
    await rename(accessLog(), `${accessLog()}.1`);
    expect((await viaNginx(bestchange)).status).toBe(200);
    const pid = Number((await readFile(join(scratch, 'nginx', 'nginx.pid'), 'utf8')).trim());
    process.kill(pid, 'SIGUSR1');
    await pollUntil(async () => (await readFile(accessLog()).catch(() => undefined)) && true, 10_000);
    expect((await viaNginx(bestchange)).status).toBe(200);
    await seen(port, 7);

    // A restart goes on from the saved offset: nothing counted twice, the next fetch counted once.
    await service.stop();
    service = await start(project);
    expect((await readersView(service.port!)).fetches.find((f) => f.monitor === 'bestchange')?.fetches).toBe(7);
    expect((await viaNginx(bestchange)).status).toBe(200);
    const after = await seen(service.port!, 8);
    expect(after.fetches.find((f) => f.monitor === 'bestchange')?.fetches).toBe(8);
  });
});
