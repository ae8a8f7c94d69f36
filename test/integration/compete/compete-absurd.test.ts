// A hostile BestChange feed (issue 23): rivals at absurd rates — two at a 39-digit rate, five at 1e39, a USDT
// rival at 1e39 per RUB — once made the compete step loop for ever (one published step added to a 40-digit
// Decimal rounds away). The real binary: `ratefile build` finishes and prices those directions at their normal
// margin with the reason; `ratefile start` keeps answering /healthz and serving exports build after build. Where
// the whole field (five of five rivals at 1e39) contradicts the one source that prices BTC → USDTTRC20, which of them
// is wrong cannot be told: that direction is withheld by its independent reference (issue 44), never published.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dump, base } from '../../support/bestchange.js';
import { buildsRun } from '../../support/builds.js';
import { rawRequest } from '../../support/http.js';
import { spawnRatefile, stopAll, waitForServing, type Exit, type RatefileProcess } from '../../support/process.js';
import { projectsPerTest } from '../../support/project.js';
import { replayPerSuite } from '../../support/replay.js';

const digits39 = '123456789012345678901234567890123456789';
const e39 = `1${'0'.repeat(39)}`;

/** from;to;exchanger;give;get;reserve;reviews;unused;min;max;city — currency 1 SBERRUB, 2 BTC, 4 USDTTRC20. */
const row = (from: number, to: number, exchanger: number, give: string, get: string) =>
  `${from};${to};${exchanger};${give};${get};1000000000;0.1;0;0.001;2;0`;

const hostileFeed = Buffer.from(
  dump({
    ...base,
    'bm_cycodes.dat': '1;SBERRUB\n2;BTC\n4;USDTTRC20\n',
    'bm_exch.dat': [1, 2, 3, 4, 5].map((id) => `${id};Exchanger${id};;0;1`).join('\n'),
    'bm_rates.dat': [
      // BTC → SBERRUB: two rivals at a 39-digit rate above three ordinary ones.
      row(2, 1, 1, '1', digits39),
      row(2, 1, 2, '1', digits39),
      row(2, 1, 3, '1', '4960000'),
      row(2, 1, 4, '1', '4950000'),
      row(2, 1, 5, '1', '4940000'),
      // BTC → USDTTRC20: five rivals at 1e39.
      ...[1, 2, 3, 4, 5].map((id) => row(2, 4, id, '1', e39)),
      // SBERRUB → USDTTRC20: a rival giving 1e39 USDT per RUB above four ordinary ones.
      row(1, 4, 1, '1', e39),
      row(1, 4, 2, '101', '1'),
      row(1, 4, 3, '101.5', '1'),
      row(1, 4, 4, '102', '1'),
      row(1, 4, 5, '103', '1'),
    ].join('\r\n'),
  }),
);

const config = (url: string, extra = '') => `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, baseUrl: "${url}", retries: 0 }
currencies:
  BTC: { reserve: "3" }
  USDTTRC20: { precision: 2, reserve: "100000" }
  SBERRUB: { reserve: "5000000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 2%, compete: { place: 2, floor: 0.5%, ceiling: 3% } }
  - { from: BTC, to: USDTTRC20, margin: 2%, compete: { place: 1, floor: 0.5%, ceiling: 3% } }
  - { from: SBERRUB, to: USDTTRC20, margin: 2%, compete: { place: 1, floor: 0.5%, ceiling: 3% } }
${extra}`;

const quotes = JSON.stringify({
  quotes: [
    { pair: 'BTC/RUB', bid: '5000000', ask: '5000100' },
    { pair: 'USDT/RUB', bid: '100', ask: '100' },
  ],
});

/** Each direction at its normal margin (2%), as parserfile.xml writes it. */
const atMargin = [
  'BTC SBERRUB 1:4900000', // 5,000,000 × 0.98
  'BTC USDTTRC20 1:49000', // 5,000,000 ÷ 100 × 0.98
  'SBERRUB USDTTRC20 102.05:1', // 100 ÷ 0.98 RUB per USDT, rounded against the client
];
/** What is published: BTC → USDTTRC20, which the whole field contradicts, is withheld by its reference. */
const published = atMargin.filter((rate) => !rate.startsWith('BTC USDTTRC20'));

const unbeatable = (place: number, rate: string) =>
  `no published rate beats the competitor at place ${place}, ${rate}: one published step more is lost in rounding: that form would need more than 40 significant digits`;
const reasons = {
  'BTC>SBERRUB': unbeatable(2, '123456789012350000000000000000000000000…'),
  'BTC>USDTTRC20':
    /^the median of the top 5 competitors, 1000000000000000000000000000000000000000, is [\d.]+% from the market 50000 \(limit 10%\)$/,
  'SBERRUB>USDTTRC20': unbeatable(1, e39),
};

/** from, to and in:out of each item of a classic export. */
const rates = (xml: string) =>
  [
    ...xml.matchAll(
      /<item>[^]*?<from>(\w+)<\/from>[^]*?<to>(\w+)<\/to>[^]*?<in>([\d.]+)<\/in>[^]*?<out>([\d.]+)<\/out>/g,
    ),
  ].map((m) => `${m[1]} ${m[2]} ${m[3]}:${m[4]}`);

/** The process's exit, or a failure naming the hang once `ms` have passed (the process is then killed). */
async function exitWithin(proc: RatefileProcess, ms: number, what: string): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      proc.child.kill('SIGKILL');
      reject(new Error(`${what} did not finish within ${ms / 1000} s; stderr:\n${proc.stderr()}`));
    }, ms);
  });
  try {
    return await Promise.race([proc.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a hostile competitor feed: absurd rates never hang ratefile', () => {
  const project = projectsPerTest();
  const replay = replayPerSuite();
  afterEach(stopAll);

  async function hostile(extra = '') {
    replay().setRoutes([
      { path: '/info.zip', responses: [{ body: hostileFeed, headers: { 'content-type': 'application/zip' } }] },
    ]);
    return project({ 'ratefile.config.yaml': config(replay().url, extra), 'quotes.json': quotes });
  }

  it('ratefile build finishes: each direction at its normal margin, basis fallback, and why', async () => {
    const { dir } = await hostile();
    const proc = spawnRatefile(['build'], { cwd: dir });
    const exit = await exitWithin(proc, 20_000, 'ratefile build');
    // Priced at the normal margin, two directions are published, one withheld, and status says failing (a third
    // withheld): so does the build's exit code (1, the rule `status` exits by), the files written all the same.
    expect(exit.code, proc.stderr()).toBe(1);
    expect(rates(await readFile(join(dir, 'public', 'parserfile.xml'), 'utf8'))).toEqual(published);
    expect(proc.stderr()).toMatch(
      /held back BTC → USDTTRC20 \(directions\[1\]\): its market 50000 \(BTC\/RUB \(backoffice\), USDT\/RUB \(backoffice\)\) is [\d.]+% from its reference 1000000000000000000000000000000000000000 \(BestChange rivals on bc \(median of the best 5\)\), past its band of 10%/,
    );
    const json = spawnRatefile(['status', '--json'], { cwd: dir });
    expect((await exitWithin(json, 20_000, 'ratefile status --json')).code, json.stderr()).toBe(1);
    const status = JSON.parse(json.stdout()) as {
      level: string;
      competing?: { direction: string; basis: string; reason?: string }[];
    };
    expect(status.level).toBe('failing');
    expect(status.competing?.map(({ direction, basis }) => [direction, basis])).toEqual(
      ['BTC>SBERRUB', 'SBERRUB>USDTTRC20'].map((id) => [id, 'fallback']),
    );
    for (const { direction, reason } of status.competing ?? [])
      expect(reason).toMatch(reasons[direction as keyof typeof reasons]);
  }, 30_000);

  it('ratefile start keeps answering /healthz and serving the exports through several builds of the feed', async () => {
    // A build every second; the feed is fetched once (BestChange's refresh is 30 s at least) and competed on by each.
    const { dir } = await hostile('schedule: "*/1 * * * * *"\n');
    const proc = spawnRatefile(['start', '--port', '0', '--host', '127.0.0.1'], { cwd: dir });
    const base = await waitForServing(proc);
    const port = Number(new URL(base).port);
    const answers: number[] = [];
    const deadline = Date.now() + 25_000;
    // Poll /healthz every 100 ms until four builds have run: every request must be answered within 2 s.
    for (let builds = await buildsRun(base); builds < 4; builds = await buildsRun(base)) {
      if (Date.now() > deadline) throw new Error(`${builds} builds within 25 s; stderr:\n${proc.stderr()}`);
      const health = await rawRequest({ port, path: '/healthz', timeoutMs: 2_000 });
      answers.push(health.status);
      const body = JSON.parse(health.body.toString('utf8')) as { level: string; competing?: { basis: string }[] };
      // Before the first build it says so; after, two directions at their normal margin, one withheld: failing.
      if (body.competing)
        expect([health.status, body.level, ...body.competing.map((entry) => entry.basis)]).toEqual([
          503,
          'failing',
          'fallback',
          'fallback',
        ]);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(answers.length).toBeGreaterThan(10);
    // Every request answered, within its 2 s: 200 before the first build, 503 (failing) after.
    expect(answers.every((status) => status === 200 || status === 503)).toBe(true);
    const served = await rawRequest({ port, path: '/parserfile.xml', timeoutMs: 2_000 });
    expect(served.status).toBe(200);
    expect(rates(served.body.toString('utf8'))).toEqual(published);
  }, 60_000);
});
