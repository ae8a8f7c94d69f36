// `ratefile start` (the service, in-process) competing on BestChange's API v2 served on loopback: the feed fetched
// beside the builds, the rankrate place published; with a refused key the directions fall back, and the key is in
// no log line, page (/, /dashboard.json, /healthz, /metrics), status file or alert, while the variable is named.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/io/config/load.js';
import { createLogger } from '../../../src/base/log.js';
import { startService, type Service } from '../../../src/service/start/service.js';
import { startV2, testKey, type V2Server } from '../../support/bestchange-v2.js';
import { projectsPerTest } from '../../support/project.js';
import { webhook as startWebhook, type Webhook } from '../../support/webhook.js';

const project = projectsPerTest();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const quotes = JSON.stringify({
  quotes: [
    { pair: 'BTC/RUB', bid: '5000000', ask: '5000100' },
    { pair: 'USD/RUB', bid: '90', ask: '90.5' },
  ],
});

const config = (v2: string, hook: string) => `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, api: v2, baseUrl: "${v2}", keyEnv: BC_API_KEY, retries: 0 }
currencies:
  BTC: { reserve: "3" }
  SBERRUB: { reserve: "5000000" }
  CASHUSD: { reserve: "100000" }
  USDTTRC20: { reserve: "100000" }
directions:
  - { from: SBERRUB, to: BTC, margin: 2%, fromfee: 0.5%, minfee: 100, compete: { place: 2, floor: 0.5%, ceiling: 3% } }
  - { from: SBERRUB, to: CASHUSD, margin: 2%, cities: [MSK, SPB], compete: { place: 1, floor: 0%, ceiling: 4% } }
alerts:
  webhook: { url: "${hook}" }
`;

/** A webhook receiver (test/support/webhook.ts), closed after each test. */
async function webhook(): Promise<Webhook> {
  const hook = await startWebhook();
  closers.push(hook.close);
  return hook;
}

async function serve(key: string): Promise<{
  v2: V2Server;
  service: Service;
  base: string;
  log: () => string;
  dir: string;
  hook: { bodies: string[] };
}> {
  const v2 = await startV2();
  closers.push(() => v2.close());
  const hook = await webhook();
  const made = await project({ 'ratefile.config.yaml': config(v2.url, hook.url), 'quotes.json': quotes });
  let text = '';
  const service = await startService({
    config: await loadConfig(made.configPath),
    loadConfig: () => loadConfig(made.configPath),
    outDir: join(made.dir, 'public'),
    port: 0,
    host: '127.0.0.1',
    log: createLogger({ write: (line: string) => (text += line) }, { format: () => 'json' }),
    deps: { now: () => new Date(), env: { BC_API_KEY: key } },
  });
  closers.unshift(() => service.stop());
  return { v2, service, base: `http://127.0.0.1:${service.port}`, log: () => text, dir: made.dir, hook };
}

async function surfaces(base: string, dir: string): Promise<string> {
  const pages = await Promise.all(
    ['/', '/dashboard.json', '/healthz', '/metrics'].map(async (path) => (await fetch(base + path)).text()),
  );
  const state = await readdir(join(dir, '.ratefile'));
  const files = await Promise.all(state.map((file) => readFile(join(dir, '.ratefile', file), 'utf8').catch(() => '')));
  return [...pages, ...files].join('\n');
}

describe('ratefile start competing on API v2', () => {
  it('fetches the feed beside the builds and publishes the rankrate place', async () => {
    const { v2, service, base, log, dir } = await serve(testKey);
    await service.rebuild();
    const parser = await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8');
    // As `ratefile build` gets it (test/integration/compete/compete-v2.test.ts computes it independently).
    expect(parser).toMatch(/<from>SBERRUB<\/from>\s*<to>BTC<\/to>\s*<in>5044895\.52<\/in>\s*<out>1<\/out>/);
    expect(v2.count('rates')).toBe(1);
    const health = (await (await fetch(`${base}/healthz`)).json()) as { competing?: { place: number }[] };
    expect(health.competing?.map((entry) => entry.place)).toEqual([2, 1]);
    expect(`${log()}\n${await surfaces(base, dir)}`).not.toContain(testKey);
  });

  it('a refused key: normal margins, an alert naming the variable; the key in no log, page, state file or alert', async () => {
    const bad = 'Wrong0Key1Wrong2Key3Wrong4Key5Xx';
    const { v2, service, base, log, dir, hook } = await serve(bad);
    await service.rebuild();
    await service.rebuild();
    await service.alertsIdle();
    expect(v2.count('currencies')).toBe(1);
    const health = await (await fetch(`${base}/healthz`)).text();
    expect(health).toMatch(/the API key in BC_API_KEY is refused/);
    expect(hook.bodies.join('\n')).toMatch(/BC_API_KEY/);
    const everything = `${log()}\n${await surfaces(base, dir)}\n${hook.bodies.join('\n')}`;
    // The server's 401 body quoted the key: nothing of it got through.
    expect(everything).not.toContain(bad);
    expect(everything).not.toContain(bad.slice(0, 16));
  });
});
