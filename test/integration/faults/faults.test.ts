// The fault kit (issue 44, item 6) with the default guards: every source type that sets quotes
// (file, json, binance, bybit, okx, kraken, mexc, htx, kucoin, whitebit, bitfinex, ecb, p2p, exportfile;
// bestchange-v2 only feeds `compete:`, it prices nothing)
// prices its own direction from its recorded answer, and the answers turn ×100, ×1000, ÷1000, ×1.5, ×0.5, kopecks,
// all at once, or drift +5% an answer, with the default guard settings. Under `ratefile build` (one state folder
// across builds) and under `start` (a 1 s schedule, sources refreshing every 30 s, builds driven by the test and
// waited on), every published parserfile.xml is parsed with real XML parsers and each rate in it checked against what
// the case says may be published. The cases are a table: the half with a reference is more rows (`config`).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/base/decimal.js';
import { runCycle } from '../../../src/io/build/cycle.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { projectsPerTest, type Project } from '../../support/project.js';
import { servicesPerTest } from '../../support/service.js';
import { startReplay, type ReplayRoute, type ReplayServer } from '../../support/replay.js';
import { kitConfig, kitEnv, kitSources, publishedRates, type KitSource, type PublishedRate } from './kit.js';

interface FaultCase {
  name: string;
  /** What a source's answer is multiplied by at answer k ≥ 1 (answer 0, the first build's, is the recording). */
  factor: (source: KitSource, answer: number) => string;
  /**
   * What may be published, checked on every published rate: `accepted` — exactly the first build's rates (a source
   * whose answer is refused, or a jump held, publishes nothing new); `withinMaxJump` — each rate within maxJump (10%)
   * of the one last published for its direction.
   */
  may: 'accepted' | 'withinMaxJump';
  /** Top-level config added for the case (the half with a reference: its block). */
  config?: string;
}

const each = ['100', '1000', '0.001', '1.5', '0.5'];
const cases: FaultCase[] = [
  { name: '×100', factor: () => '100', may: 'accepted' },
  { name: '×1000', factor: () => '1000', may: 'accepted' },
  { name: '÷1000', factor: () => '0.001', may: 'accepted' },
  { name: '×1.5', factor: () => '1.5', may: 'accepted' },
  { name: '×0.5', factor: () => '0.5', may: 'accepted' },
  { name: 'kopecks (RUB and KZT prices ×100)', factor: (source) => (source.fiat ? '100' : '1'), may: 'accepted' },
  {
    name: 'all at once (each source its own fault)',
    factor: (source) => each[kitSources.indexOf(source) % each.length]!,
    may: 'accepted',
  },
  {
    name: 'drifting +5% an answer (the limit without a reference)',
    factor: (_source, answer) => new Decimal('1.05').pow(answer).toFixed(),
    may: 'withinMaxJump',
  },
];

/**
 * A move of every source at once by one factor is no market: kucoin's BTC/USDT × upstream's USDT/RUB then says BTC/RUB
 * moved by its square, venue's BTC/RUB by the factor (and binance's ETH/BTC × kucoin's BTC/USDT against bybit's
 * ETH/USDT the same). The independent references hold these five directions back (kind `reference`) past 3%.
 */
const crossed = new Set(['BTC>SBERRUB', 'USDTTRC20>SBERRUB', 'BTC>USDTTRC20', 'ETH>BTC', 'ETH>USDTTRC20']);
const uncrossed = kitSources.filter((source) => !crossed.has(`${source.from}>${source.to}`));

const t0 = new Date('2026-11-21T12:00:00Z');
const maxJump = new Decimal('0.1');
/** Rounding of a published form (2 to 8 decimals of rates of 0.03 to 8 million) is far below this. */
const rounding = new Decimal('0.001');

let replay: ReplayServer;
beforeAll(async () => {
  replay = await startReplay([]);
});
afterAll(() => replay.close());

const project = projectsPerTest();
const start = servicesPerTest();

async function kitProject(config: string): Promise<Project> {
  const made = await project({ 'ratefile.config.yaml': config });
  await Promise.all(['reffile.yaml', 'affiliatefile.yaml'].map((name) => rm(join(made.dir, 'templates', name))));
  return made;
}

/** Every source's answer at `answer` as the case makes it, served (or written) now. */
async function serve(made: Project, fault: FaultCase, answer: number, now: Date): Promise<void> {
  const routes: ReplayRoute[] = [];
  for (const source of kitSources) {
    const made_ = source.answer(answer === 0 ? '1' : fault.factor(source, answer), now);
    if ('routes' in made_) routes.push(...made_.routes);
    else await made.write(made_.file, made_.text);
  }
  replay.setRoutes(routes);
}

/** What the builds published, checked against the case as they go. */
class Published {
  readonly first: Map<string, PublishedRate>;
  readonly last: Map<string, PublishedRate>;
  /** Per build: how many of the kit's directions were published. */
  readonly counts: number[] = [];

  constructor(
    readonly fault: FaultCase,
    first: Map<string, PublishedRate>,
  ) {
    expect([...first.keys()].sort(), 'the first build publishes every direction').toEqual(
      kitSources.map((source) => `${source.from}>${source.to}`).sort(),
    );
    this.first = first;
    this.last = new Map(first);
  }

  check(rates: Map<string, PublishedRate>, when: string): void {
    for (const [id, now] of rates) {
      const first = this.first.get(id)!;
      const last = this.last.get(id)!;
      const what = `${this.fault.name}, ${when}: ${id} published ${now.in} : ${now.out}`;
      if (this.fault.may === 'accepted')
        expect({ in: now.in, out: now.out }, `${what}, accepted ${first.in} : ${first.out}`).toEqual({
          in: first.in,
          out: first.out,
        });
      else
        expect(
          now.rate.div(last.rate).minus(1).abs().lessThanOrEqualTo(maxJump.plus(rounding)),
          `${what}, last published ${last.in} : ${last.out}`,
        ).toBe(true);
      this.last.set(id, now);
    }
    this.counts.push(rates.size);
  }
}

/** `FAULTS_REPORT=1`: each case's published directions per build, for the docs' table. */
const report = (mode: string, fault: FaultCase, published: Published) => {
  if (process.env.FAULTS_REPORT === '1')
    process.stdout.write(`fault kit | ${mode} | ${fault.name} | published per build: ${published.counts.join(' ')}\n`);
};

describe('the fault kit under `ratefile build`: one state folder, a build every 30 s, default guards', () => {
  const builds = 6;
  it.each(cases)('$name', async (fault) => {
    const made = await kitProject(kitConfig(undefined, fault.config));
    const env = kitEnv(replay.url);
    let published: Published | undefined;
    for (let build = 0; build <= builds; build++) {
      const now = new Date(t0.getTime() + build * 30_000);
      await serve(made, fault, build, now);
      await runCycle(await loadConfig(made.configPath), join(made.dir, 'public'), { now: () => now, env });
      const rates = await publishedRates(made);
      if (published) published.check(rates, `build ${build}`);
      else published = new Published(fault, rates);
    }
    report('build', fault, published!);
    // A fault past the bounds is out for good without `accept`; a drift inside them is followed, build by build.
    const faulted = kitSources.filter((source) => fault.factor(source, 1) !== '1').length;
    expect(published!.counts).toEqual(
      Array.from({ length: builds }, () => (fault.may === 'accepted' ? kitSources.length - faulted : uncrossed.length)),
    );
  });
});

describe('confirmations count answers, never builds', () => {
  it('under `start`, twenty builds of one fetch never confirm a jump; three fetches do', async () => {
    const made = await kitProject(kitConfig('30s', 'schedule: "*/1 * * * * *"\n'));
    let now = t0;
    const jump: FaultCase = { name: '×1.2', factor: () => '1.2', may: 'accepted' };
    await serve(made, jump, 0, now);
    const service = await start(made, { now: () => now, env: kitEnv(replay.url) });
    const at = async (seconds: number) => {
      now = new Date(t0.getTime() + seconds * 1000);
      await serve(made, jump, Math.floor(seconds / 30), now);
      do await service.rebuild();
      while (service.status()?.lastBuild.at !== now.toISOString());
      const held = service.status()!.heldBack;
      return { held, published: await publishedRates(made) };
    };
    const seen = (held: { reason: string }[]) => [...new Set(held.map((h) => /seen in (\d) of 3/.exec(h.reason)?.[1]))];
    // The sources answer ×1.2 at +30 s: one answer, priced by the builds of +30 s to +50 s.
    const jumps = (held: { kind?: string; reason: string }[]) => held.filter((h) => h.kind === 'jump');
    for (let seconds = 30; seconds <= 50; seconds++) {
      const { held, published } = await at(seconds);
      expect(held.map((h) => h.kind).sort()).toEqual([
        ...uncrossed.map(() => 'jump'),
        ...[...crossed].map(() => 'reference'),
      ]);
      expect(seen(jumps(held)), `the build at +${seconds} s`).toEqual(['1']);
      expect(published.size).toBe(0);
    }
    expect(seen(jumps((await at(60)).held))).toEqual(['2']);
    const third = await at(90);
    expect(third.held.map((h) => h.direction).sort()).toEqual([...crossed].sort());
    expect(third.published.size).toBe(uncrossed.length);
  });
});

describe('the fault kit under `start`: a 1 s schedule, sources refreshing every 30 s, builds waited on', () => {
  const answers = 4;
  /** Builds per answer: the clock moves 10 s a build, so each answer is priced by three builds. */
  const stepMs = 10_000;
  it.each(cases)('$name', async (fault) => {
    const made = await kitProject(kitConfig('30s', `schedule: "*/1 * * * * *"\n${fault.config ?? ''}`));
    let now = t0;
    await serve(made, fault, 0, now);
    const service = await start(made, { now: () => now, env: kitEnv(replay.url) });
    const published = new Published(fault, await publishedRates(made));
    for (let step = 1; step <= (answers * 30_000) / stepMs; step++) {
      now = new Date(t0.getTime() + step * stepMs);
      // The answer a source gives when it is asked now (it is asked every 30 s of this clock).
      await serve(made, fault, Math.floor((step * stepMs) / 30_000), now);
      // A build the schedule started before the clock moved may be what rebuild() waits for: wait for one of now.
      do await service.rebuild();
      while (service.status()?.lastBuild.at !== now.toISOString());
      published.check(await publishedRates(made), `build at +${(step * stepMs) / 1000} s`);
    }
    report('start', fault, published);
    const faulted = kitSources.filter((source) => fault.factor(source, 1) !== '1').length;
    // From the build at +30 s on, the first that asks the sources again.
    const after = published.counts.slice(30_000 / stepMs - 1);
    if (fault.may === 'withinMaxJump') expect(new Set(after)).toEqual(new Set([uncrossed.length]));
    // A refused answer's source stands in with its last good quotes (within maxAge): those are what was accepted.
    else expect(Math.min(...after)).toBeGreaterThanOrEqual(kitSources.length - faulted);
  });
});
