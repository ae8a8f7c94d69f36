// Two exchangers, both holding place 1 in BTC → SBERRUB, feeding each other through a synthetic BestChange feed on
// loopback: each build's info.zip lists what the other one published last (its parserfile.xml) beside three steady
// competitors. Each sees itself in the feed too and leaves itself out by `self:`. With war detection on, the war
// ends within a few rounds and both keep their margin; with it off, the old chase to the floor. The builds run
// `ratefile build` in-process with a clock that advances 20 s a build, the memory of moves read from and written
// to .ratefile/wars.json each time, as across restarts.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDocument } from '../../../src/pure/check/tree.js';
import { Decimal, formatDecimal, roundDown } from '../../../src/base/decimal.js';
import { dump } from '../../support/bestchange.js';
import { projectsPerTest } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';

const market = '5000000';
/** Floor 1%: never more generous than 5,000,000 × 0.99. */
const floorRate = new Decimal(4950000);
const steady = [
  { id: 30, name: 'Gamma', rate: '4900000' },
  { id: 40, name: 'Delta', rate: '4880000' },
  { id: 50, name: 'Echo', rate: '4860000' },
];
const players = [
  { id: 100, name: 'Alfa' },
  { id: 200, name: 'Bravo' },
] as const;

const config = (url: string, self: number, compete: string) => `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, baseUrl: "${url}", retries: 0, self: ${self} }
currencies:
  BTC: { reserve: "3" }
  SBERRUB: { reserve: "50000000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 2%, compete: { place: 1, step: 0.1%, floor: 1%, ceiling: 3%${compete} } }
`;

const quotes = JSON.stringify({ quotes: [{ pair: 'BTC/RUB', bid: market, ask: market }] });

/** The BTC → SBERRUB rate a project last published (out of 1 BTC), or undefined before its first build. */
async function published(dir: string): Promise<string | undefined> {
  const text = await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const item = (parseDocument(text).root?.children ?? []).find((node) =>
    node.children.some((child) => child.name === 'from' && child.text === 'BTC'),
  );
  return item?.children.find((child) => child.name === 'out')?.text;
}

describe('a price war between two exchangers feeding each other', () => {
  const project = projectsPerTest();
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** Two projects and a feed of their published rates; `rounds` builds of each, A then B; the rates after each build. */
  async function war(compete: string, rounds: number) {
    const dirs: string[] = [];
    server = createServer((_request, response) => {
      void (async () => {
        const rows = steady.map((s) => `2;1;${s.id};1;${s.rate};9000000;0.1;0;0.001;10;0`);
        for (const [i, player] of players.entries()) {
          const rate = await published(dirs[i]!);
          if (rate !== undefined) rows.push(`2;1;${player.id};1;${rate};9000000;0.1;0;0.001;10;0`);
        }
        const body = dump({
          'bm_cycodes.dat': '1;SBERRUB\n2;BTC\n',
          'bm_exch.dat': [...steady, ...players].map((e) => `${e.id};${e.name};;0;1`).join('\n'),
          'bm_cities.dat': '',
          'bm_info.dat': 'last_update=12:00:00, 21 ноября\ncurrent_version=2.02\n',
          'bm_rates.dat': rows.join('\r\n'),
        });
        response.writeHead(200, { 'content-type': 'application/zip' }).end(body);
      })();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const player of players) {
      const made = await project({
        'ratefile.config.yaml': config(url, player.id, compete),
        'quotes.json': quotes,
        'templates/reffile.yaml': 'include: { tags: [ref] }\n',
      });
      dirs.push(made.dir);
    }
    let clock = Date.parse('2026-11-21T12:00:00Z');
    const history: [string | undefined, string | undefined][] = [];
    const build = async (dir: string) => {
      clock += 20_000;
      const at = new Date(clock);
      const outcome = await runRatefile(['build'], dir, { now: () => at, fetch: globalThis.fetch });
      expect(outcome.code, outcome.stderr).toBe(0);
    };
    for (let round = 0; round < rounds; round++) {
      await build(dirs[0]!);
      await build(dirs[1]!);
      history.push([await published(dirs[0]!), await published(dirs[1]!)]);
    }
    const status = async (dir: string) => {
      const at = new Date(clock);
      const outcome = await runRatefile(['status', '--json'], dir, { now: () => at });
      return JSON.parse(outcome.stdout) as { competing: Record<string, unknown>[] };
    };
    return { dirs, history, status, clock: () => clock, build };
  }

  /** The chase as the place rule alone makes it: 0.1% better than the other, rounded down, strictly better, at most the floor. */
  function chase(rounds: number): [string, string][] {
    const beat = (other: Decimal) => {
      let rate = roundDown(other.times('1.001'), 2);
      if (rate.lessThanOrEqualTo(other)) rate = rate.plus('0.01');
      return Decimal.min(rate, floorRate);
    };
    const out: [string, string][] = [];
    let b: Decimal | undefined;
    for (let round = 0; round < rounds; round++) {
      // A's field: B (once it has published) and Gamma; the best of them is the one to beat.
      const a = beat(Decimal.max(b ?? 0, new Decimal(steady[0]!.rate)));
      b = beat(a);
      out.push([formatDecimal(a), formatDecimal(b)]);
    }
    return out;
  }

  it('with war detection off (and no cap), both chase each other to the floor as before', async () => {
    const { history, status, dirs } = await war(', war: off, cap: off', 8);
    expect(history).toEqual(chase(8));
    // The worked example of docs/compete.md ("a war"): both on the floor by round 6.
    expect(history.slice(3, 6)).toEqual([
      ['4934403.04', '4939337.44'],
      ['4944276.77', '4949221.04'],
      ['4950000', '4950000'],
    ]);
    // One step each per round, until both sit on the floor: the whole margin given away.
    expect(history.at(-1)).toEqual(['4950000', '4950000']);
    expect((await status(dirs[0]!)).competing[0]).toMatchObject({ basis: 'floor' });
  }, 120_000);

  it('with war detection on (the default), the war ends within a few rounds, both above their floors', async () => {
    const { history, status, dirs, build, clock } = await war(', cap: off', 8);
    const classic = chase(8);
    // A's moves are answered by B on rounds 2, 3 and 4: the third answer in a row is a war, and A holds from round 5.
    expect(history.slice(0, 4)).toEqual(classic.slice(0, 4));
    // The worked example of docs/compete.md ("a war"), round by round.
    expect(history.slice(0, 5)).toEqual([
      ['4904900', '4909804.9'],
      ['4914714.7', '4919629.41'],
      ['4924549.03', '4929473.57'],
      ['4934403.04', '4939337.44'],
      ['4934403.04', '4939337.44'],
    ]);
    expect(history[4]).toEqual([classic[3]![0], classic[3]![1]]);
    // From then on nothing moves: B holds place 1 one step ahead of A's held rate, and has no reason to move.
    for (const rates of history.slice(4)) expect(rates).toEqual(history[4]);
    for (const rate of history.at(-1)!) expect(new Decimal(rate!).lessThan(floorRate)).toBe(true);

    const a = (await status(dirs[0]!)).competing[0]!;
    expect(a).toMatchObject({ basis: 'war', place: 2, war: { rival: 'Bravo', rivalId: 200, rounds: 3 } });
    expect(a.reason).toMatch(/^price war with Bravo \(#200\): 3 of our moves answered in a row; holding 4934403\.04 /);
    const b = (await status(dirs[1]!)).competing[0]!;
    expect(b).toMatchObject({ basis: 'place', place: 1 });
    expect(b.war).toBeUndefined();

    const at = new Date(clock());
    const text = await runRatefile(['status'], dirs[0]!, { now: () => at });
    expect(text.stdout).toMatch(/^ {2}BTC → SBERRUB: place 2 of 5 \(target 1, war\): price war with Bravo \(#200\)/m);
    const explain = await runRatefile(['explain', 'BTC', 'SBERRUB'], dirs[0]!, {
      now: () => at,
      fetch: globalThis.fetch,
    });
    expect(explain.stdout).toMatch(/^ {4}Alfa \(#100\): 1:4934403\.04 = .*; not counted: our own listing \(self\)$/m);
    expect(explain.stdout).toMatch(
      /^ {2}PRICE WAR with Bravo \(#200\) since 2026-11-21T12:03:00\.000Z: 3 of our moves answered in a row; never more generous than 1:4934403\.04 until 2026-11-21T12:18:00\.000Z$/m,
    );
    const memory = JSON.parse(await readFile(join(dirs[0]!, '.ratefile', 'wars.json'), 'utf8')) as {
      directions: Record<string, { war?: { until: string } }>;
    };
    expect(memory.directions['BTC>SBERRUB']?.war?.until).toBe('2026-11-21T12:18:00.000Z');

    // After the cool-down (15 minutes) A chases again: one move, past B.
    for (let i = 0; i < 45; i++) await build(dirs[1]!);
    await build(dirs[0]!);
    const [after] = [await published(dirs[0]!)];
    expect(new Decimal(after!).greaterThan(new Decimal(history[4]![1]!))).toBe(true);
    expect((await status(dirs[0]!)).competing[0]).toMatchObject({ basis: 'place', place: 1 });
  }, 120_000);
});
