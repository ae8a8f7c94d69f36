// `start` (the service, in-process, clock injected) in a price war with a bot: a loopback feed in which Bravo always
// sits one kopeck above what the service last published. The third answered move makes a war: the rate is held, a
// webhook alert starts naming Bravo, /healthz says so; a restarted service still holds (the memory is in
// .ratefile/wars.json) and sends no second alert; after the cool-down the alert ends and the chase resumes.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseDocument } from '../../../src/pure/check/tree.js';
import { Decimal, formatDecimal } from '../../../src/base/decimal.js';
import { dump } from '../../support/bestchange.js';
import { projectsPerTest } from '../../support/project.js';
import { servicesPerTest } from '../../support/service.js';
import { serversPerTest } from '../../support/listen.js';
import { webhook } from '../../support/webhook.js';

const project = projectsPerTest();
const start = servicesPerTest();
const listen = serversPerTest();

async function published(dir: string): Promise<string | undefined> {
  const text = await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8').catch(() => undefined);
  const item = text ? parseDocument(text).root?.children.find((node) => node.name === 'item') : undefined;
  return item?.children.find((child) => child.name === 'out')?.text;
}

describe('start in a price war', () => {
  it('holds after three answered moves, alerts once across a restart, and ends with the cool-down', async () => {
    let dir = '';
    let ours: string | undefined;
    const feed = await listen(() => {
      // Bravo, a bot: one kopeck above us, or 4,900,000 before we published; Gamma steady behind.
      const bravo = ours === undefined ? '4900000' : formatDecimal(new Decimal(ours).plus('0.01'));
      return Buffer.from(
        dump({
          'bm_cycodes.dat': '1;SBERRUB\n2;BTC\n',
          'bm_exch.dat': '20;Bravo;;0;1\n30;Gamma;;0;1\n',
          'bm_cities.dat': '',
          'bm_info.dat': 'last_update=12:00:00, 21 ноября\ncurrent_version=2.02\n',
          'bm_rates.dat': [
            `2;1;20;1;${bravo};9000000;0.1;0;0.001;10;0`,
            '2;1;30;1;4800000;9000000;0.1;0;0.001;10;0',
          ].join('\r\n'),
        }),
      );
    });
    const hook = await webhook();
    onTestFinished(hook.close);
    const made = await project({
      'ratefile.config.yaml': `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, baseUrl: "${feed}", retries: 0 }
currencies:
  BTC: { reserve: "3" }
  SBERRUB: { reserve: "50000000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 2%, compete: { place: 1, floor: 1%, ceiling: 3% } }
alerts:
  webhook: { url: "${hook.url}" }
`,
      'quotes.json': JSON.stringify({ quotes: [{ pair: 'BTC/RUB', bid: '5000000', ask: '5000000' }] }),
      'templates/reffile.yaml': 'include: { tags: [ref] }\n',
    });
    dir = made.dir;
    let now = Date.parse('2026-11-21T12:00:00Z');
    const clock = () => new Date(now);
    let service = await start(made, { now: clock });
    const rates: (string | undefined)[] = [];
    /**
     * 30 s later: the feed (refresh 30 s) is fetched again beside the build, showing Bravo's answer to our last
     * rate; builds at that same time until one has used it (bounded), so each step is one build on a new feed.
     */
    const rebuild = async () => {
      now += 30_000;
      const at = new Date(now).toISOString();
      for (let tries = 0; tries < 500; tries++) {
        await service.rebuild();
        if (service.status()?.sources.find((s) => s.name === 'bc')?.lastSuccessAt === at) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(service.status()?.sources.find((s) => s.name === 'bc')?.lastSuccessAt).toBe(at);
      ours = await published(dir);
      rates.push(ours);
    };
    ours = await published(dir);
    rates.push(ours);
    for (let i = 0; i < 5; i++) await rebuild();
    await service.alertsIdle();
    // Moves at builds 2, 3 and 4 answered: the third answer (build 5) makes the war, the rate held from then on.
    expect(rates).toEqual(['4900000.01', '4900000.03', '4900000.05', '4900000.07', '4900000.07', '4900000.07']);
    const health = (await (await fetch(`${service.base}healthz`)).json()) as { competing: Record<string, unknown>[] };
    expect(health.competing[0]).toMatchObject({ basis: 'war', place: 2, war: { rival: 'Bravo', rivalId: 20 } });
    const started = hook.alerts().filter((e) => e.key === 'war:BTC>SBERRUB');
    expect(started.map((e) => e.kind)).toEqual(['start']);
    expect(started[0]!.text).toMatch(/^BTC → SBERRUB in a price war with Bravo \(#20\): 3 of our moves answered/);

    // A restart during the cool-down: still held, no second alert.
    await service.stop();
    service = await start(made, { now: clock });
    await rebuild();
    await service.alertsIdle();
    expect(rates.at(-1)).toBe('4900000.07');
    expect(hook.alerts().filter((e) => e.key === 'war:BTC>SBERRUB')).toHaveLength(1);

    // 15 minutes after the war was seen: the alert ends and the rate moves past Bravo again.
    now += 15 * 60_000;
    await rebuild();
    await service.alertsIdle();
    expect(new Decimal(rates.at(-1)!).greaterThan('4900000.07')).toBe(true);
    const war = hook.alerts().filter((e) => e.key === 'war:BTC>SBERRUB');
    expect(war.map((e) => e.kind)).toEqual(['start', 'end']);
  }, 120_000);
});
