// `ratefile build` (the real binary) competing on BestChange's API v2, served by a loopback server in the v2 shape
// (test/support/bestchange-v2.ts, fixtures in test/fixtures/bestchange-v2/): for three directions the field is
// ranked by rankrate and our rate is the least generous step whose rankrate (our fees at $300) holds the place —
// each checked against an independent computation here from the served offers and the fee definitions. Also:
// the key never shows, a refused key falls back (or to info.zip when the config names it).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocument } from '../../../src/pure/check/tree.js';
import { Decimal } from '../../../src/base/decimal.js';
import { competeDump } from '../../support/bestchange.js';
import { startV2, testKey, v2File, type V2Server } from '../../support/bestchange-v2.js';
import { spawnRatefile } from '../../support/process.js';
import { projectsPerTest } from '../../support/project.js';
import { startReplay, type ReplayServer } from '../../support/replay.js';

const directions = `directions:
  - { from: SBERRUB, to: BTC, margin: 2%, fromfee: 0.5%, minfee: 100, compete: { source: bc, place: 2, floor: 0.5%, ceiling: 3% } }
  - { from: TCSBRUB, to: USDTTRC20, margin: 2%, tofee: 1 USDT, minfee: 150, compete: { source: bc, place: 1, floor: 0%, ceiling: 5% } }
  - { from: SBERRUB, to: CASHUSD, margin: 2%, cities: [MSK, SPB], compete: { source: bc, place: 1, floor: 0%, ceiling: 4% } }
`;

const config = (url: string, extra = '') => `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, api: v2, baseUrl: "${url}", retries: 0${extra} }
currencies:
  BTC: { reserve: "3" }
  SBERRUB: { reserve: "5000000" }
  TCSBRUB: { reserve: "5000000" }
  USDTTRC20: { reserve: "100000" }
  CASHUSD: { reserve: "100000" }
${directions}`;

const quotes = JSON.stringify({
  quotes: [
    { pair: 'BTC/RUB', bid: '5000000', ask: '5000100' },
    { pair: 'USD/RUB', bid: '90', ask: '90.5' },
    { pair: 'USDT/RUB', bid: '95.5', ask: '95.6' },
  ],
});

// ---- The independent computation: from the served offers and the fee definitions, nothing of src/pure/compete. ----

interface Offer {
  changer: number;
  rate: string | number;
  rankrate: string | number;
}
const served = JSON.parse(v2File('rates.json')) as Record<string, Offer[]>;
const names = new Map(
  (JSON.parse(v2File('changers.json')) as { changers: { id: number; name: string }[] }).changers.map((c) => [
    c.id,
    c.name,
  ]),
);

/** Offers of a token by rankrate, lowest (best for the client) first. */
const byRankrate = (token: string) =>
  [...served[token]!].sort((a, b) => new Decimal(a.rankrate).comparedTo(new Decimal(b.rankrate)));

/** $300 in RUB: the book's USD/RUB bid (selling the dollars). */
const reference = new Decimal(300).times(90);

/**
 * What the client pays in RUB for one unit received when he sends the $300 and the rate is `give` RUB per unit:
 * the fromfee (share of what he sends) or, when larger, minfee less the tofee (valued at the rate), on top of what
 * he sends; the tofee (fixed, in units) off what he gets.
 */
function ourRankrate(give: Decimal, fees: { fromShare: number; toFixed: number; minfee: number }): Decimal {
  const units = reference.div(give);
  const toFeeRub = new Decimal(fees.toFixed).times(give);
  const fromFeeRub = reference.times(fees.fromShare);
  const extra = Decimal.max(fromFeeRub, new Decimal(fees.minfee).minus(toFeeRub));
  return reference.plus(extra).div(units.minus(fees.toFixed));
}

/** The largest give (in kopecks: least generous) whose rankrate is strictly below `rival`, by bisection. */
function leastGenerous(rival: Decimal, fees: Parameters<typeof ourRankrate>[1], lo: number, hi: number): Decimal {
  let [good, bad] = [Math.round(lo * 100), Math.round(hi * 100)];
  expect(ourRankrate(new Decimal(good).div(100), fees).lessThan(rival)).toBe(true);
  while (bad - good > 1) {
    const mid = Math.floor((good + bad) / 2);
    if (ourRankrate(new Decimal(mid).div(100), fees).lessThan(rival)) good = mid;
    else bad = mid;
  }
  return new Decimal(good).div(100);
}

interface Item {
  from: string;
  to: string;
  in: string;
  out: string;
  city?: string;
}

async function items(dir: string): Promise<Item[]> {
  const text = await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8');
  return (parseDocument(text).root?.children ?? []).map(
    (item) => Object.fromEntries(item.children.map((child) => [child.name, child.text])) as unknown as Item,
  );
}

/** Every file a build leaves (exports, state, status) and what the commands print: none may hold the key. */
async function everything(dir: string): Promise<string> {
  const texts: string[] = [];
  for (const sub of ['public', '.ratefile']) {
    const files = await readdir(join(dir, sub)).catch(() => []);
    for (const file of files) texts.push(await readFile(join(dir, sub, file), 'utf8').catch(() => ''));
  }
  return texts.join('\n');
}

describe('ratefile build competing on BestChange API v2', () => {
  const project = projectsPerTest();
  let server: V2Server;
  let zip: ReplayServer | undefined;
  beforeEach(async () => {
    server = await startV2();
  });
  afterEach(async () => {
    await server.close();
    await zip?.close();
    zip = undefined;
  });

  async function run(configText: string, env: Record<string, string> = { RATEFILE_BESTCHANGE_KEY: testKey }) {
    const { dir } = await project({ 'ratefile.config.yaml': configText, 'quotes.json': quotes });
    const proc = spawnRatefile(['build'], { cwd: dir, env });
    const exit = await proc.exited;
    const json = spawnRatefile(['status', '--json'], { cwd: dir, env });
    await json.exited;
    const explain = spawnRatefile(['explain', 'SBERRUB', 'BTC'], { cwd: dir, env });
    await explain.exited;
    const status = JSON.parse(json.stdout()) as { level: string; competing?: Record<string, unknown>[] };
    const printed = [proc.stdout(), proc.stderr(), json.stdout(), explain.stdout(), explain.stderr()].join('\n');
    return { dir, exit, stderr: proc.stderr(), status, explain: explain.stdout(), printed };
  }

  it('ranks by rankrate and publishes the least generous step whose rankrate, with our fees at $300, holds the place', async () => {
    const { dir, exit, stderr, status, explain, printed } = await run(config(server.url));
    expect(exit.code, stderr).toBe(0);
    const published = await items(dir);
    const find = (from: string, to: string) => published.filter((item) => item.from === from && item.to === to);

    // SBERRUB → BTC, place 2 by rankrate: Beta 5,050,000, Gamma 5,070,120 (Alpha's 5,020,000 ranks last at 5,120,400).
    const sber = byRankrate('42-93');
    expect(sber.map((offer) => names.get(offer.changer))).toEqual(['Beta', 'Gamma', 'Delta', 'Alpha']);
    const sberFees = { fromShare: 0.005, toFixed: 0, minfee: 100 };
    // Between the floor (5,000,100 ÷ 0.995) and the ceiling (÷ 0.97), RUB per BTC.
    const sberGive = leastGenerous(new Decimal(sber[1]!.rankrate), sberFees, 5025226.14, 5154742.26);
    expect(find('SBERRUB', 'BTC').map((item) => [item.in, item.out])).toEqual([[sberGive.toString(), '1']]);
    expect(sberGive.toString()).toBe('5044895.52');
    // By the bare rate the rival would have been Beta (Alpha first): a different rate.
    expect(sberGive.lessThan(5049999.99)).toBe(true);
    const sberOwn = ourRankrate(sberGive, sberFees);
    const sberPlace = 1 + sber.filter((offer) => new Decimal(offer.rankrate).lte(sberOwn)).length;
    expect(sberPlace).toBe(2);

    // TCSBRUB → USDTTRC20, place 1: minfee 150 RUB binds (the 1 USDT tofee is worth about 96 RUB).
    const tcs = byRankrate('105-10');
    expect(names.get(tcs[0]!.changer)).toBe('Epsilon');
    const tcsFees = { fromShare: 0, toFixed: 1, minfee: 150 };
    const tcsGive = leastGenerous(new Decimal(tcs[0]!.rankrate), tcsFees, 95.6, 100.63);
    expect(find('TCSBRUB', 'USDTTRC20').map((item) => [item.in, item.out])).toEqual([[tcsGive.toString(), '1']]);

    // SBERRUB → CASHUSD, no fees of ours: place 1 in each city by rankrate (Gamma 91.3 in Moscow, Beta 91.6 in
    // St Petersburg); the most generous city's step is published in both.
    const moscow = byRankrate('42-89-1');
    const spb = byRankrate('42-89-2');
    const none = { fromShare: 0, toFixed: 0, minfee: 0 };
    const cashGive = Decimal.min(
      leastGenerous(new Decimal(moscow[0]!.rankrate), none, 90.5, 94.27),
      leastGenerous(new Decimal(spb[0]!.rankrate), none, 90.5, 94.27),
    );
    expect(cashGive.toString()).toBe('91.29');
    expect(find('SBERRUB', 'CASHUSD').map((item) => [item.city, item.in, item.out])).toEqual([
      ['MSK', '91.29', '1'],
      ['SPB', '91.29', '1'],
    ]);

    expect(status.competing).toEqual([
      { direction: 'SBERRUB>BTC', target: '2', place: 2, competitors: 4, basis: 'place', feedAgeSeconds: 0 },
      { direction: 'TCSBRUB>USDTTRC20', target: '1', place: 1, competitors: 4, basis: 'place', feedAgeSeconds: 0 },
      { direction: 'SBERRUB>CASHUSD', target: '1', place: 1, competitors: 2, basis: 'place', feedAgeSeconds: 0 },
    ]);
    expect(explain).toMatch(
      /^ {2}Order: by rankrate \(API v2\), the rate with fees at \$300 = 27000 RUB; ours with fromfee 0\.5%, tofee none, minfee 100$/m,
    );
    expect(explain).toMatch(
      /^ {4}Beta \(#20\): rankrate 5050000 SBERRUB per BTC with its fees, rate 5050000:1, reserve 8 BTC/m,
    );
    expect(explain).toMatch(
      /^ {4}→ ours 5044895\.52:1 = 5044895\.52 SBERRUB per BTC, rankrate 5070119\.9976 with our fees: place 2$/m,
    );
    expect(printed + (await everything(dir))).not.toContain(testKey);
  }, 60_000);

  it("explain says every rate in the direction's own form (X:1), what is counted and what is not, and what our fees cost", async () => {
    const text = config(server.url, ', self: 10').replace(
      'floor: 0.5%, ceiling: 3% }',
      'floor: 0.5%, ceiling: 3%, minReserve: 1 BTC, ignore: [Delta] }',
    );
    const { dir } = await project({ 'ratefile.config.yaml': text, 'quotes.json': quotes });
    const env = { RATEFILE_BESTCHANGE_KEY: testKey };
    const explain = async (from: string, to: string) => {
      const proc = spawnRatefile(['explain', from, to, '--export', 'parserfile'], { cwd: dir, env });
      expect((await proc.exited).code, proc.stderr()).toBe(0);
      return proc.stdout();
    };
    const sber = await explain('SBERRUB', 'BTC');
    // Counted and left out, each under its own heading.
    expect(sber).toMatch(
      /^Compete on BestChange \(feed bc, \d+ s old\): hold place 2, step 0%; counted: competitors with a reserve of at least 1 BTC; not counted: our own listing \(self\) #10; ignored Delta$/m,
    );
    // Published as 5044895.52:1: every rate from the market to the published one in SBERRUB per BTC, none inverted.
    const block = sber.slice(sber.indexOf('Market:'), sber.indexOf('Reserve:'));
    expect(block).not.toContain('BTC per SBERRUB');
    expect(block).toMatch(/^Market: 1 BTC = 5000100 RUB /m);
    expect(block).toMatch(
      /^ {2}Floor 0\.5%: at least market 5000100 ÷ \(1 − 0\.005\) = 5025226\.13.* SBERRUB per BTC → step 5025226\.14:1$/m,
    );
    expect(block).toMatch(
      /^ {2}Target: the competitor at place 2 gives rankrate 5070120 SBERRUB per BTC, its rate with its fees; better by 0%: 5070120 SBERRUB per BTC with our fees$/m,
    );
    // The 0.5% between the target and our rate is our fromfee's, on its own line; the rounding is a few 10⁻⁸ %.
    expect(block).toMatch(
      /^ {2}Our fees \(fromfee 0\.5%, tofee none, minfee 100, on \$300 = 27000 RUB\) cost the client 0\.5%: a rate of 5044895\.52 SBERRUB per BTC ranks as 5070119\.9976 SBERRUB per BTC$/m,
    );
    expect(block).toMatch(
      /^ {2}Rounded against the client, and strictly better than the competitor with our fees: 5044895\.52:1 = 5044895\.52 SBERRUB per BTC \(5070119\.9976 SBERRUB per BTC with our fees, 0\.0000000473\d% off the target by rounding\)$/m,
    );
    expect(block).toMatch(/^ {2}Rate 5044895\.52:1 = 5044895\.52 SBERRUB per BTC \(published as is/m);

    // The tofee (1 USDT) and minfee: 0.56% of the gap is theirs, 0.007% the rounding's.
    const tcs = await explain('TCSBRUB', 'USDTTRC20');
    expect(tcs).toMatch(
      /^Compete on BestChange \(feed bc, \d+ s old\): hold place 1, step 0%; not counted: our own listing \(self\) #10$/m,
    );
    expect(tcs).toMatch(
      /^ {2}Our fees \(fromfee none, tofee 1 USDT, minfee 150, on \$300 = 27000 RUB\) cost the client 0\.5575%: a rate of 95\.66 TCSBRUB per USDTTRC20 ranks as 96\.193334027.* TCSBRUB per USDTTRC20$/m,
    );
    expect(tcs).toMatch(/off the target by rounding\)$/m);
    expect(tcs.slice(tcs.indexOf('Market:'), tcs.indexOf('Reserve:'))).not.toContain('USDTTRC20 per TCSBRUB');
  }, 60_000);

  it('401: every competing direction at its normal margin, the variable named, the key nowhere', async () => {
    const bad = 'Wrong0Key1Wrong2Key3Wrong4Key5Xx';
    const { dir, exit, status, printed } = await run(config(server.url), { RATEFILE_BESTCHANGE_KEY: bad });
    expect(exit.code).toBe(1);
    expect((await items(dir)).find((item) => item.from === 'SBERRUB' && item.to === 'BTC')?.in).toBe('5102142.86');
    expect(status.level).toBe('degraded');
    expect(status.competing?.map((entry) => entry.basis)).toEqual(['fallback', 'fallback', 'fallback']);
    expect(String(status.competing?.[0]?.reason)).toMatch(
      /^feed bc has no data: bc: GET 127\.0\.0\.1:\d+\/v2\/\*\*\*\/currencies\/en: HTTP 401: the API key in RATEFILE_BESTCHANGE_KEY is refused/,
    );
    expect(printed + (await everything(dir))).not.toContain(bad);
    // Asked once by `build` and once by `explain` (each its own process); never again after the 401 within one.
    expect(server.count('currencies')).toBe(2);
    expect(server.count('rates')).toBe(0);
  }, 60_000);

  it('with fallback: info.zip stands in while the API fails, ranked by the bare rate, and explain says so', async () => {
    zip = await startReplay([
      { path: '/info.zip', responses: [{ body: competeDump(), headers: { 'content-type': 'application/zip' } }] },
    ]);
    const text = `${config(server.url, ', fallback: zip')}`.replace(
      'currencies:',
      `  zip: { type: bestchange, baseUrl: "${zip.url}", retries: 0 }\ncurrencies:`,
    );
    server.fault = (endpoint) => (endpoint === 'rates' ? { status: 503, body: '{"error":"maintenance"}' } : undefined);
    const { dir, status, explain } = await run(text);
    // competeDump's SBERRUB → CASHUSD: Alpha 91, Beta 91.5 in Moscow; Gamma 91.2 in St Petersburg; place 1: 90.99.
    expect(
      (await items(dir)).filter((item) => item.to === 'CASHUSD').map((item) => [item.city, item.in, item.out]),
    ).toEqual([
      ['MSK', '90.99', '1'],
      ['SPB', '90.99', '1'],
    ]);
    expect(status.competing?.find((entry) => entry.direction === 'SBERRUB>CASHUSD')?.basis).toBe('place');
    expect(explain).toMatch(
      /^ {2}Order: by the bare rate, get ÷ give \(info\.zip has no rankrate\) \(zip \(info\.zip\) stands in: bc has no data: bc: GET .*HTTP 503/m,
    );
  }, 60_000);
});
