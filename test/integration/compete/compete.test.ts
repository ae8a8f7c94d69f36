// `ratefile build` (the real binary) with directions that compete on a BestChange feed served by a loopback
// server: the published XML read back (the compete rate, a markup on top, limits at the new rate, one rate in
// every city), `status --json`, `status` and `explain`; a failing feed prices at the normal margin, degraded.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../../src/pure/check/tree.js';
import { Decimal, formatDecimal, roundDown } from '../../../src/base/decimal.js';
import { competeDump } from '../../support/bestchange.js';
import { spawnRatefile } from '../../support/process.js';
import { projectsPerTest } from '../../support/project.js';
import { replayPerSuite } from '../../support/replay.js';

const config = (url: string) => `sources:
  backoffice: { type: file, path: quotes.json, maxAge: "off" }
  bc: { type: bestchange, baseUrl: "${url}", retries: 0 }
currencies:
  BTC: { reserve: "3" }
  SBERRUB: { reserve: "5000000" }
  CASHUSD: { reserve: "100000" }
directions:
  - { from: BTC, to: SBERRUB, margin: 2%, max: "1000000 RUB", compete: { place: 2, floor: 0.5%, ceiling: 3%, ignore: [Alpha] } }
  - { from: SBERRUB, to: CASHUSD, margin: 2%, cities: [MSK, SPB], compete: { place: 1, floor: 0%, ceiling: 4% } }
`;

const quotes = JSON.stringify({
  quotes: [
    { pair: 'BTC/RUB', bid: '5000000', ask: '5000100' },
    { pair: 'USD/RUB', bid: '90', ask: '90.5' },
  ],
});

interface Item {
  from: string;
  to: string;
  in: string;
  out: string;
  maxamount?: string;
  city?: string;
}

async function items(dir: string, file: string): Promise<Item[]> {
  const text = await readFile(join(dir, 'public', file), 'utf8');
  return (parseDocument(text).root?.children ?? []).map(
    (item) => Object.fromEntries(item.children.map((child) => [child.name, child.text])) as unknown as Item,
  );
}

describe('ratefile build with compete: directions', () => {
  const project = projectsPerTest();
  const replay = replayPerSuite();

  /** A project competing on the feed `response` serves; `files` adds to it (state, templates). */
  async function competing(
    response: { body: Buffer | string; headers?: Record<string, string> },
    files: Record<string, string> = {},
  ) {
    replay().setRoutes([{ path: '/info.zip', responses: [response] }]);
    return project({
      'ratefile.config.yaml': config(replay().url),
      'quotes.json': quotes,
      'templates/reffile.yaml': 'include: { tags: [ref] }\n',
      ...files,
    });
  }

  async function build(response: { body: Buffer | string; headers?: Record<string, string> }) {
    const { dir } = await competing(response, { 'templates/affiliatefile.yaml': 'markup: 0.5%\n' });
    const proc = spawnRatefile(['build'], { cwd: dir });
    const exit = await proc.exited;
    const json = spawnRatefile(['status', '--json'], { cwd: dir });
    await json.exited;
    return {
      dir,
      exit,
      stderr: proc.stderr(),
      status: JSON.parse(json.stdout()) as { level: string; reasons: string[]; competing?: Record<string, unknown>[] },
    };
  }

  it('publishes the least generous rate that holds each place; status and explain show the place', async () => {
    const { dir, exit, stderr, status } = await build({
      body: competeDump(),
      headers: { 'content-type': 'application/zip' },
    });
    expect(exit.code, stderr).toBe(0);
    const parser = await items(dir, 'parserfile.xml');
    // Alpha ignored: Beta is first, Gamma (4,940,000.5) second; one kopeck more holds place 2.
    const btc = parser.find((item) => item.from === 'BTC')!;
    expect([btc.in, btc.out]).toEqual(['1', '4940000.51']);
    // The maximum follows the compete rate: 1,000,000 RUB at 4,940,000.51 RUB per BTC, rounded down.
    expect(btc.maxamount).toBe(formatDecimal(roundDown(new Decimal(1_000_000).div('4940000.51'), 8)));
    // Cash: one rate in both cities, the one that is first in each (Moscow's 91 needs 90.99; St Petersburg's 91.2 less).
    expect(parser.filter((item) => item.to === 'CASHUSD').map((item) => [item.city, item.in, item.out])).toEqual([
      ['MSK', '90.99', '1'],
      ['SPB', '90.99', '1'],
    ]);
    // A partner export's markup applies on top of the compete rate.
    const affiliate = (await items(dir, 'affiliatefile.xml')).find((item) => item.from === 'BTC')!;
    expect(affiliate.out).toBe(formatDecimal(roundDown(new Decimal('4940000.51').times('0.995'), 2)));

    expect(status.level).toBe('ok');
    expect(status.competing).toEqual([
      { direction: 'BTC>SBERRUB', target: '2', place: 2, competitors: 2, basis: 'place', feedAgeSeconds: 0 },
      { direction: 'SBERRUB>CASHUSD', target: '1', place: 1, competitors: 2, basis: 'place', feedAgeSeconds: 0 },
    ]);
    const text = spawnRatefile(['status'], { cwd: dir });
    await text.exited;
    expect(text.stdout()).toMatch(/^competing on BestChange:\n {2}BTC → SBERRUB: place 2 of 3 \(target 2, place\)$/m);

    const explain = spawnRatefile(['explain', 'BTC', 'SBERRUB', '--export', 'parserfile'], { cwd: dir });
    expect((await explain.exited).code, explain.stderr()).toBe(0);
    const out = explain.stdout();
    expect(out).toMatch(
      /^Compete on BestChange \(feed bc, \d+ s old\): hold place 2, step 0%; not counted: ignored Alpha$/m,
    );
    expect(out).toMatch(/^ {2}Floor 0\.5%: at most market 5000000 × \(1 − 0\.005\) = 4975000 → step 1:4975000$/m);
    expect(out).toMatch(
      /^ {4}Alpha \(#10\): 1:4960000 = 4960000 SBERRUB per BTC, reserve 9000000 SBERRUB, orders 0\.001–2 BTC; not counted: ignored$/m,
    );
    expect(out).toMatch(
      /^ {4}Beta \(#20\): 1:4950000 = 4950000 SBERRUB per BTC, reserve 9000000 SBERRUB, orders 0\.001–2 BTC; place 1$/m,
    );
    expect(out).toMatch(/^ {4}→ ours 1:4940000\.51 = 4940000\.51 SBERRUB per BTC: place 2$/m);
    expect(out).toMatch(
      /^ {4}Gamma \(#30\): 1:4940000\.5 = 4940000\.5 SBERRUB per BTC, reserve 9000000 SBERRUB, orders 0\.001–2 BTC; place 2, the place to hold$/m,
    );
    expect(out).toMatch(
      /^ {2}Target: the competitor at place 2 gives 4940000\.5 SBERRUB per BTC; better by 0%: 4940000\.5 SBERRUB per BTC; rounded against the client, and strictly better than the competitor: 1:4940000\.51 = 4940000\.51 SBERRUB per BTC$/m,
    );
    expect(out).toMatch(
      /^ {2}Rate 1:4940000\.51 = 4940000\.51 SBERRUB per BTC \(published as is by exports without a markup\), place 2 of 3$/m,
    );
    expect(out).not.toMatch(/^Margin/m);
  }, 60_000);

  it('explain shows the compete rate of a direction the jump guard holds back', async () => {
    const { dir } = await competing(
      { body: competeDump(), headers: { 'content-type': 'application/zip' } },
      // Last published at 4,000,000: the compete rate is 23.5% away, more than the 10% maxJump.
      {
        '.ratefile/guard.json': JSON.stringify({
          published: { 'BTC>SBERRUB': { rate: '4000000', at: '2026-11-21T12:00:00.000Z' } },
          pending: {},
        }),
      },
    );
    const explain = spawnRatefile(['explain', 'BTC', 'SBERRUB'], { cwd: dir });
    expect((await explain.exited).code).toBe(1);
    const out = explain.stdout();
    expect(out).toMatch(
      /^ {2}Rate 1:4940000\.51 = 4940000\.51 SBERRUB per BTC \(published as is by exports without a markup\), place 2 of 3$/m,
    );
    expect(out).toMatch(
      /^ {2}max 1000000 RUB ÷ the published rate 4940000\.51 = 0\.20242912889902… BTC; the smaller of the two → <maxamount>0\.20242912<\/maxamount>$/m,
    );
    expect(out).toMatch(
      /^These are the values it would have\.\nHELD BACK: rate moved 23\.5% from the last published 4000000 to 4940000\.51; seen in 1 of 3 distinct answers/m,
    );
  }, 60_000);

  it('a failing feed: every direction still published, at its normal margin; degraded, and why', async () => {
    const { dir, exit, status } = await build({
      body: '<html><title>Access denied</title></html>',
      headers: { 'content-type': 'text/html' },
    });
    expect(exit.code).toBe(1);
    const parser = await items(dir, 'parserfile.xml');
    expect(parser.find((item) => item.from === 'BTC')?.out).toBe('4900000'); // 5,000,000 × (1 − 2%)
    expect(parser.filter((item) => item.to === 'CASHUSD')).toHaveLength(2);
    expect(status.level).toBe('degraded');
    const reason = 'feed bc has no data: bc: GET /info.zip: got an HTML page instead of info.zip (HTTP 200, text/html)';
    expect(status.competing).toEqual([
      { direction: 'BTC>SBERRUB', target: '2', place: 0, competitors: 0, basis: 'fallback', reason },
      { direction: 'SBERRUB>CASHUSD', target: '1', place: 0, competitors: 0, basis: 'fallback', reason },
    ]);
    expect(status.reasons).toContain(
      `2 competing directions priced at the normal margin, the field not trusted: BTC → SBERRUB (${reason}), SBERRUB → CASHUSD (${reason})`,
    );
  });
});
