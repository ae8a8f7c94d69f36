// The watch from outside through the real service: a loopback "edge" in front of the built-in server serves the
// public copy as a CDN or an anti-bot layer would (the latest bytes, an older build's kept by a cache, Cloudflare's
// challenge page, a 503, a slow answer); each fetch's state shows in /dashboard.json, on the page, in /metrics,
// in `ratefile status`, and an alert starts after `alertAfter` on a real webhook receiver.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { OutsideView } from '../../../src/service/start/outside-watch.js';
import { rawRequest } from '../../support/http.js';
import { projectsPerTest, sampleConfig, sampleQuotes } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';
import { servicesPerTest } from '../../support/service.js';
import { webhook } from '../../support/webhook.js';

const project = projectsPerTest();
const start = servicesPerTest();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const challenge = readFileSync(new URL('../../fixtures/probe/cloudflare-challenge.html', import.meta.url));

type Mode = 'origin' | 'cached' | 'challenge' | '503' | 'slow' | 'html';

/** The edge: `mode` says what it answers; `cached` is the copy a "cache everything" rule keeps. */
async function edge() {
  const state = { mode: 'origin' as Mode, origin: 0, cached: Buffer.alloc(0) as Buffer, agents: [] as string[] };
  const server: Server = createServer(async (request, response) => {
    state.agents.push(String(request.headers['user-agent']));
    const fromOrigin = async () => {
      const got = await rawRequest({ port: state.origin, path: request.url ?? '/' });
      return got.body;
    };
    switch (state.mode) {
      case 'origin':
        return response.writeHead(200, { 'Content-Type': 'application/xml' }).end(await fromOrigin());
      case 'cached':
        return response.writeHead(200, { 'Content-Type': 'application/xml', Age: '3600' }).end(state.cached);
      case 'challenge':
        return response
          .writeHead(403, {
            'Content-Type': 'text/html; charset=UTF-8',
            'cf-mitigated': 'challenge',
            Server: 'cloudflare',
          })
          .end(challenge);
      case '503':
        return response.writeHead(503, { 'Content-Type': 'text/plain' }).end('Service Unavailable');
      case 'html':
        return response.writeHead(200, { 'Content-Type': 'text/html' }).end(await fromOrigin());
      case 'slow': {
        const body = await fromOrigin();
        setTimeout(() => response.writeHead(200, { 'Content-Type': 'application/xml' }).end(body), 700);
        return;
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function outsideView(port: number): Promise<OutsideView> {
  const response = await rawRequest({ port, path: '/dashboard.json' });
  return (JSON.parse(response.body.toString()) as { outside: OutsideView }).outside;
}

const metricLine = (text: string, name: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith(name) && line.endsWith(' 1'))
    .join('\n');

describe('the watch from outside', () => {
  it('judges the public copy: same, older (builds behind), challenge, error, slow', async () => {
    const cdn = await edge();
    const hook = await webhook();
    closers.push(hook.close);
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig.replace('path: quotes.json }', 'path: quotes.json, maxAge: "off" }')}schedule: "0 0 * * *"
alerts:
  webhook: { url: "${hook.url}" }
watch:
  every: 5m
  userAgent: "Mozilla/5.0 (compatible; BestChangeBot/1.0)"
  timeout: 2s
  slowAfter: 300ms
  alertAfter: 10m
  exports:
    parserfile.xml: ${cdn.url}/parserfile.xml
`,
    });
    let now = new Date('2026-11-26T10:00:00Z');
    const service = await start(made, { now: () => now });
    cdn.state.origin = service.port!;
    const port = service.port!;
    const check = async () => {
      await service.checkOutside();
      return (await outsideView(port)).copies[0]!;
    };

    expect(await check()).toMatchObject({ file: 'parserfile.xml', state: 'same', behind: 0, status: 200 });
    expect(cdn.state.agents.at(-1)).toBe('Mozilla/5.0 (compatible; BestChangeBot/1.0)');

    // A cache keeps the first build's bytes while two more builds publish new rates.
    cdn.state.cached = (await rawRequest({ port, path: '/parserfile.xml' })).body;
    cdn.state.mode = 'cached';
    for (const bid of ['97100.00', '97200.00']) {
      now = new Date(now.getTime() + 60_000);
      const quotes = { quotes: [{ ...sampleQuotes.quotes[0]!, bid, ask: bid }, sampleQuotes.quotes[1]!] };
      await made.write('quotes.json', JSON.stringify(quotes));
      await service.rebuild();
    }
    const older = await check();
    expect(older).toMatchObject({ state: 'older', behind: 2, copyBuiltAt: '2026-11-26T10:00:00.000Z' });
    expect(older.ageSeconds).toBe(120);
    const metrics = (await rawRequest({ port, path: '/metrics' })).body.toString();
    expect(metricLine(metrics, 'ratefile_outside_state')).toBe(
      'ratefile_outside_state{file="parserfile.xml",state="older"} 1',
    );
    expect(metrics).toContain('ratefile_outside_copy_age_seconds{file="parserfile.xml"} 120');
    expect(metrics).toContain('ratefile_outside_builds_behind{file="parserfile.xml"} 2');

    // Older for longer than alertAfter: an alert, keyed by the file.
    now = new Date(now.getTime() + 11 * 60_000);
    await service.rebuild();
    await service.alertsIdle();
    expect(hook.events('outside')).toEqual(['start outside:parserfile.xml']);
    // One level everywhere: the message, /healthz, /metrics, the dashboard and `ratefile status` say degraded, and why.
    const levels = async () => {
      const healthz = JSON.parse((await rawRequest({ port, path: '/healthz' })).body.toString()) as {
        level: string;
        reasons: string[];
      };
      const scraped = (await rawRequest({ port, path: '/metrics' })).body.toString();
      const board = JSON.parse((await rawRequest({ port, path: '/dashboard.json' })).body.toString()) as {
        head: { health: { level: string } };
      };
      const json = await runRatefile(['status', '--json', '--config', made.configPath], made.dir, { now: () => now });
      const status = JSON.parse(json.stdout) as { level: string };
      return {
        message: (JSON.parse(hook.bodies.at(-1)!) as { level: string }).level,
        healthz: healthz.level,
        metrics: metricLine(scraped, 'ratefile_health'),
        dashboard: board.head.health.level,
        status: status.level,
        exit: json.code,
        reasons: healthz.reasons,
      };
    };
    expect(await levels()).toMatchObject({
      message: 'degraded',
      healthz: 'degraded',
      metrics: 'ratefile_health{level="degraded"} 1',
      dashboard: 'degraded',
      status: 'degraded',
      exit: 1,
      reasons: [
        expect.stringMatching(/^the public copy of parserfile\.xml \(http:.* is older since .*: 2 builds behind/),
      ],
    });

    cdn.state.mode = 'challenge';
    const challenged = await check();
    expect(challenged).toMatchObject({ state: 'challenge', status: 403 });
    expect(challenged.detail).toContain('challenge');

    cdn.state.mode = '503';
    expect(await check()).toMatchObject({ state: 'error', status: 503, detail: 'HTTP 503' });

    // The latest bytes, sent as a web page: MoneySwap's robot refuses them before reading a byte.
    cdn.state.mode = 'html';
    expect(await check()).toMatchObject({
      state: 'error',
      behind: 0,
      detail: expect.stringContaining('the latest build, but Content-Type text/html: MoneySwap refuses it'),
    });

    cdn.state.mode = 'slow';
    const slow = await check();
    expect(slow).toMatchObject({ state: 'slow', behind: 0 });
    expect(slow.ms).toBeGreaterThan(300);

    // The page shows the section; `ratefile status` reads what the service saved.
    const page = (await rawRequest({ port, path: '/' })).body.toString();
    expect(page).toContain('<h2 id="outside">Outside view</h2>');
    expect(page).toContain('SLOW');
    cdn.state.mode = 'origin';
    expect(await check()).toMatchObject({ state: 'same' });
    await service.rebuild();
    await service.alertsIdle();
    expect(hook.events('outside')).toEqual(['start outside:parserfile.xml', 'end outside:parserfile.xml']);
    expect(await levels()).toMatchObject({
      message: 'ok',
      healthz: 'ok',
      metrics: 'ratefile_health{level="ok"} 1',
      dashboard: 'ok',
      status: 'ok',
      exit: 0,
      reasons: [],
    });
    const status = await runRatefile(['status', '--config', made.configPath], made.dir, { now: () => now });
    expect(status.stdout).toContain(
      'public copies (the watch from outside):\n  parserfile.xml: SAME since 0 s ago: the latest build',
    );
    const json = await runRatefile(['status', '--json', '--config', made.configPath], made.dir, { now: () => now });
    expect((JSON.parse(json.stdout) as { outside: { file: string; state: string }[] }).outside).toMatchObject([
      { file: 'parserfile.xml', state: 'same', behind: 0 },
    ]);
  });

  it('refuses a watched file no template declares', async () => {
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}watch:\n  exports:\n    nofile.xml: https://rates.example.com/nofile.xml\n`,
    });
    const result = await runRatefile(['validate', '--config', made.configPath], made.dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'watch.exports["nofile.xml"]: expected an export a template declares (affiliatefile.xml, parserfile.xml, reffile.xml), got "nofile.xml"',
    );
  });
});
