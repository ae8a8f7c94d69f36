// `ratefile explain`: the story of a published rate on a copy of the demo exchanger, checked against what a build publishes.
import { readFileSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../../../src/io/build/build.js';
import { parseDocument } from '../../../src/pure/check/tree.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { repoRoot } from '../../support/process.js';
import { makeProject, type Project } from '../../support/project.js';
import { fixedNow, runRatefile } from '../../support/run-cli.js';

const demoFile = (name: string) => readFileSync(join(repoRoot, name), 'utf8');
const demoQuotes = JSON.parse(demoFile('quotes.json')) as { quotes: { pair: string }[] };

const projects: Project[] = [];
afterEach(async () => {
  await Promise.all(projects.splice(0).map((p) => p.remove()));
});

/** A copy of the demo (config, quotes, templates) in a fresh folder, so no state from other runs applies. */
async function demo(files: Record<string, string> = {}): Promise<Project> {
  const made = await makeProject({
    'ratefile.config.yaml': demoFile('ratefile.config.yaml'),
    'quotes.json': demoFile('quotes.json'),
    ...Object.fromEntries(
      ['parserfile', 'reffile', 'affiliatefile'].map((n) => [`templates/${n}.yaml`, demoFile(`templates/${n}.yaml`)]),
    ),
    ...files,
  });
  projects.push(made);
  return made;
}

/** The `<item>` blocks printed under one export's heading. */
function itemsUnder(stdout: string, file: string): string[] {
  const section = stdout
    .split('\n')
    .reduce<{ inside: boolean; text: string }>(
      (acc, line) =>
        /^\S/.test(line)
          ? { inside: line === `${file}:`, text: acc.text }
          : { inside: acc.inside, text: acc.inside ? `${acc.text}${line}\n` : acc.text },
      { inside: false, text: '' },
    ).text;
  return [...section.matchAll(/<item>[\s\S]*?<\/item>/g)].map((m) => m[0].replace(/\s+/g, ''));
}

describe('ratefile explain on the demo exchanger', () => {
  it('explains every published direction with exactly the items the build publishes, rate form included', async () => {
    const project = await demo();
    const config = await loadConfig(project.configPath, project.dir);
    const { files } = await build(config, { now: fixedNow });
    const parserfile = files.find((f) => f.file === 'parserfile.xml')!.bytes.toString('utf8');
    const root = parseDocument(parserfile).root!;
    const expected = root.children.map((item) => parserfile.slice(item.index, item.end).replace(/\s+/g, ''));
    const explained: string[] = [];
    for (const direction of config.directions) {
      const result = await runRatefile(
        ['explain', direction.from.code, direction.to.code, '--export', 'parserfile'],
        project.dir,
      );
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const items = itemsUnder(result.stdout, 'parserfile.xml');
      expect(items.length, direction.id).toBe(Math.max(1, direction.cities.length));
      // The rate the explanation derives is the one in the item.
      const [, inText, outText] = /published ([\d.]+):([\d.]+),/.exec(result.stdout) ?? [];
      expect(items[0]).toContain(`<in>${inText}</in><out>${outText}</out>`);
      explained.push(...items);
    }
    expect(explained).toEqual(expected);
  });

  it('tells the whole story of BTC → SBERRUB', async () => {
    const project = await demo();
    const result = await runRatefile(['explain', 'btc', 'sberrub'], project.dir);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 14)).toEqual([
      'BTC → SBERRUB: directions[8] of ratefile.config.yaml, built in memory at 2026-11-21T12:00:30.000Z',
      'Sources: backoffice (file) ok, 11 quotes',
      'Quotes (chain given in the config: BTC/USDT, USDT/RUB):',
      '  BTC/USDT from backoffice: bid 96850.1, ask 96852.4, 30 s old (2026-11-21T12:00:00.000Z)',
      '    BTC → USDT: sell BTC at the bid, × 96850.1',
      '  USDT/RUB from backoffice: bid 93.45, ask 93.8, 30 s old (2026-11-21T12:00:00.000Z)',
      '    USDT → RUB: sell USDT at the bid, × 93.45',
      'Market: 1 BTC = 9050641.845 RUB (at every step the side worse for the client)',
      'Reference: none (one source alone sets BTC/USDT (backoffice), USDT/RUB (backoffice), and nothing else in the config tells this market: another source of the pair, a consensus in rates: or a BestChange feed would; docs/pricing-and-guards.md)',
      'Margin 1.2% against the client: 9050641.845 × (1 − 0.012) = 8942034.14286 SBERRUB per BTC',
      "Reserve: 18500000 SBERRUB (SBERRUB's reserve), rounded down to 2 places → <amount>18500000</amount>",
      'Limits, in BTC at the published rate 1:8942034.1428 (8 places; minimum rounded up, maximum down; an export with a markup at its own rate):',
      '  min 0.0005 BTC, in the from currency → <minamount>0.0005</minamount>',
      '  the <amount> pays at most 18500000 ÷ 8942034.1428 = 2.0688804923537… BTC',
    ]);
    expect(result.stdout).toContain(
      '  max 3000000 RUB ÷ the published rate 8942034.1428 = 0.3354941338952… BTC; the smaller of the two → <maxamount>0.33549413</maxamount>\n',
    );
    expect(result.stdout).toContain(
      'affiliatefile.xml:\n  partner markup 0.5%: 8942034.14286 × (1 − 0.005) = 8897323.9721457\n  8897323.9721457 ≥ 1, so in = 1 and out = the rate rounded down to 4 places (SBERRUB): 8897323.9721\n  published 1:8897323.9721, 1.694% below the market rate\n',
    );
    expect(result.stdout).toContain(
      'parserfile.xml:\n  8942034.14286 ≥ 1, so in = 1 and out = the rate rounded down to 4 places (SBERRUB): 8942034.1428\n  published 1:8942034.1428, 1.2% below the market rate\n    <item>\n      <from>BTC</from>',
    );
  });

  it('explains a rate below 1 (in rounded up), an alias and an export that leaves the direction out', async () => {
    const project = await demo();
    const result = await runRatefile(['explain', 'USDTTRC', 'BTC'], project.dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('    USDT → BTC: buy BTC at the ask, ÷ 96852.4\n');
    expect(result.stdout).toContain(
      'under 1 BTC per USDTTRC20, so published from per to: out = 1, in = 97830.707070707… rounded up to 4 places (USDTTRC20): 97830.7071\n',
    );
    expect(result.stdout).toContain("  codes published under this export's aliases: USDTTRC20 as USDTTRC\n");
    expect(itemsUnder(result.stdout, 'reffile.xml')[0]).toContain('<from>USDTTRC</from><to>BTC</to>');
    const cash = await runRatefile(['explain', 'USDTTRC20', 'CASHRUB', '--city', 'spb'], project.dir);
    expect(cash.code).toBe(0);
    expect(cash.stdout).toContain(
      'affiliatefile.xml: not in this export: it leaves out directions tagged no-affiliate (this one: no-affiliate)\n',
    );
    expect(cash.stdout).toContain(
      'reffile.xml: not in this export: it takes only directions tagged ref (this one: no-affiliate)\n',
    );
    expect(itemsUnder(cash.stdout, 'parserfile.xml')).toEqual([expect.stringContaining('<city>SPB</city>')]);
  });

  it('says why a direction is held back when a quote is missing, and exits 1', async () => {
    const quotes = { quotes: demoQuotes.quotes.filter((q) => q.pair !== 'USDT/RUB' && q.pair !== 'USD/RUB') };
    const project = await demo({ 'quotes.json': JSON.stringify(quotes) });
    const result = await runRatefile(['explain', 'BTC', 'SBERRUB'], project.dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      "Pricing needs the config's chain BTC/USDT, USDT/RUB; quotes touching BTC or RUB: BTC/USDT, ETH/BTC\n",
    );
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('HELD BACK: no quote for USDT/RUB');
    // The answer first: held back, and why, on the first line.
    expect(result.stdout.split('\n').slice(0, 2)).toEqual([
      'BTC → SBERRUB: HELD BACK: no quote for USDT/RUB',
      '  directions[8] of ratefile.config.yaml, built in memory at 2026-11-21T12:00:30.000Z',
    ]);
  });

  it("shows the rate the jump guard stopped, and the guard's reason", async () => {
    const project = await demo();
    await mkdir(join(project.dir, '.ratefile'), { recursive: true });
    await writeFile(
      join(project.dir, '.ratefile', 'guard.json'),
      JSON.stringify({ published: { 'BTC>SBERRUB': { rate: '7000000', at: '2026-11-21T11:59:30Z' } }, pending: {} }),
    );
    const result = await runRatefile(['explain', 'BTC', 'SBERRUB'], project.dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'Margin 1.2% against the client: 9050641.845 × (1 − 0.012) = 8942034.14286 SBERRUB per BTC\n',
    );
    expect(result.stdout).toContain(
      'These are the values it would have.\nHELD BACK: rate moved 27.74% from the last published 7000000 to 8942034.14286; seen in 1 of 3 distinct answers of backoffice (ratefile accept BTC SBERRUB to publish now)\n',
    );
    expect(result.stdout.split('\n')[0]).toBe(
      'BTC → SBERRUB: HELD BACK: rate moved 27.74% from the last published 7000000 to 8942034.14286; seen in 1 of 3 distinct answers of backoffice (ratefile accept BTC SBERRUB to publish now)',
    );
  });

  it("explains a held-back direction from the build's own quotes: each source is asked once (issue 45, item 30)", async () => {
    const project = await demo({
      'ratefile.config.yaml': demoFile('ratefile.config.yaml').replace(
        'backoffice: { type: file, path: quotes.json, maxAge: "off" }',
        'backoffice: { type: file, path: quotes.json, maxAge: "off" }\n  venue: { type: json, url: "https://venue.example/t", priority: 9, pairs: { BTC/USDT: { bid: btc.bid, ask: btc.ask } } }',
      ),
    });
    await mkdir(join(project.dir, '.ratefile'), { recursive: true });
    await writeFile(
      join(project.dir, '.ratefile', 'guard.json'),
      JSON.stringify({ published: { 'BTC>SBERRUB': { rate: '7000000', at: '2026-11-21T11:59:30Z' } }, pending: {} }),
    );
    // The venue answers another price at every request: a second fetch would explain other quotes than the build's.
    const asked: string[] = [];
    const fetch = (async (input: string | URL | Request) => {
      asked.push(String(input));
      const bid = asked.length === 1 ? '96900.5' : '50000';
      return new Response(JSON.stringify({ btc: { bid, ask: '96901' } }), {
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof globalThis.fetch;
    const result = await runRatefile(['explain', 'BTC', 'SBERRUB'], project.dir, { fetch });
    expect(result.code).toBe(1);
    expect(asked).toHaveLength(1);
    expect(result.stdout).toContain('  BTC/USDT from venue: bid 96900.5, ask 96901,');
    expect(result.stdout).toContain('These are the values it would have.\nHELD BACK: rate moved');
  });

  it('shows the reference of a market one source alone sets, and holds it back past its band', async () => {
    const quotes = JSON.parse(demoFile('quotes.json')) as { quotes: { pair: string; bid: string; ask: string }[] };
    const venue = { quotes: quotes.quotes.filter((q) => q.pair === 'BTC/USDT') };
    const broken = {
      quotes: quotes.quotes.map((q) =>
        q.pair === 'BTC/USDT' ? { ...q, bid: `${q.bid.replace('.', '')}0`, ask: `${q.ask.replace('.', '')}0` } : q,
      ),
    };
    const config = demoFile('ratefile.config.yaml').replace(
      'backoffice: { type: file, path: quotes.json, maxAge: "off" }',
      'backoffice: { type: file, path: quotes.json, maxAge: "off" }\n  venue: { type: file, path: venue.json, maxAge: "off" }',
    );
    const project = await demo({ 'ratefile.config.yaml': config, 'venue.json': JSON.stringify(venue) });
    const agreeing = await runRatefile(['explain', 'BTC', 'USDTTRC20'], project.dir);
    expect(agreeing.code).toBe(0);
    expect(agreeing.stdout).toContain(
      'Reference (one source alone sets BTC/USDT (backoffice)): 1 BTC = 96850.1 USDT from venue:BTC/USDT\n  the market is 0% from it, within its band of 3%\n',
    );
    await writeFile(join(project.dir, 'quotes.json'), JSON.stringify(broken));
    const held = await runRatefile(['explain', 'BTC', 'USDTTRC20'], project.dir);
    expect(held.code).toBe(1);
    expect(held.stdout.split('\n')[0]).toBe(
      'BTC → USDTTRC20: HELD BACK: its market 96850100 (BTC/USDT (backoffice)) is 99900% from its reference 96850.1 (venue:BTC/USDT), past its band of 3%',
    );
    expect(held.stdout).toContain('  the market is 99900% from it, PAST its band of 3%: withheld (kind reference)\n');
  });

  it('in maintenance every direction is held back', async () => {
    const project = await demo();
    expect((await runRatefile(['maintenance', 'on'], project.dir)).code).toBe(0);
    const result = await runRatefile(['explain', 'BTC', 'SBERRUB'], project.dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'HELD BACK: maintenance is on, every export is published empty (ratefile maintenance off)\n',
    );
    expect(result.stdout.split('\n')[0]).toBe(
      'BTC → SBERRUB: HELD BACK: maintenance is on, every export is published empty (ratefile maintenance off)',
    );
  });

  it('writes nothing: no exports, no status, no guard state', async () => {
    const project = await demo();
    expect((await runRatefile(['explain', 'BTC', 'ETH'], project.dir)).code).toBe(0);
    expect((await readdir(project.dir)).sort()).toEqual(['quotes.json', 'ratefile.config.yaml', 'templates']);
  });

  it.each([
    [
      ['BTC', 'XYZ'],
      'ratefile: no direction BTC → XYZ in ratefile.config.yaml: directions from BTC go to USDTTRC20, USDTERC20, ETH, SBERRUB, TCSBRUB, CARDRUB, CASHRUB, CASHUSD\n',
    ],
    [['BTC', 'SBERUB'], 'ratefile: no direction BTC → SBERUB in ratefile.config.yaml: did you mean BTC SBERRUB?\n'],
    [['BTC', 'SBERRUB', '--city', 'MSK'], 'ratefile: BTC → SBERRUB has no city MSK: it has no cities\n'],
    [
      ['USDTTRC20', 'CASHRUB', '--city', 'KZN'],
      'ratefile: USDTTRC20 → CASHRUB has no city KZN: its cities are MSK, SPB, EKB\n',
    ],
    [
      ['BTC', 'SBERRUB', '--export', 'partners'],
      'ratefile: no export "partners"; the exports are affiliatefile, parserfile, reffile\n',
    ],
  ])('usage errors exit 2: %j', async (args, message) => {
    const project = await demo();
    const result = await runRatefile(['explain', ...args], project.dir);
    expect(result).toEqual({ code: 2, stdout: '', stderr: message });
  });
});

describe('ratefile explain with other formats and tiers', () => {
  it('shows the JSON entry as the file has it, and the tiers with their rates', async () => {
    const project = await demo({ 'templates/rates.yaml': 'format: json\n' });
    const config = await loadConfig(project.configPath);
    const direction = config.directions[0]!;
    await writeFile(
      project.configPath,
      `${demoFile('ratefile.config.yaml')}`.replace(/(\n {2}- )/, `$1tiers: [{ from: 1000000, margin: 0.5% }]\n    `),
    );
    const { files } = await build(await loadConfig(project.configPath), { now: fixedNow });
    const json = files.find((f) => f.file === 'rates.json')!.bytes.toString('utf8');
    const result = await runRatefile(['explain', direction.from.code, direction.to.code], project.dir);
    expect(result.code, result.stderr).toBe(0);
    const entry = /^rates\.json:\n(?: {2}.*\n)*? {2}( +"\w+": \{"xr".*)$/m.exec(result.stdout)?.[1];
    expect(entry).toBeDefined();
    expect(json.split('\n').map((line) => line.replace(/,$/, ''))).toContain(entry);
    expect(result.stdout).toMatch(
      /^Tiers \(EREF 1\.1 <step>s; every format lists the first, and its range ends below a tier worse for the client\):\n {2}from 1000000 \w+: margin 0\.5% → /m,
    );
  });

  it('says of a tier no export publishes why: beyond the range any export publishes, or no EREF 1.1 export', async () => {
    const project = await demo({ 'templates/steps.yaml': 'format: eref-1.1\n' });
    await writeFile(
      project.configPath,
      `${demoFile('ratefile.config.yaml')}`.replace(
        /(\n {2}- )/,
        '$1tiers: [{ from: 0.5, margin: 0.3% }, { from: 1000000, margin: 0.2% }]\n    ',
      ),
    );
    const result = await runRatefile(['explain', 'BTC', 'USDTTRC20'], project.dir);
    expect(result.code, result.stderr).toBe(0);
    const tiers = result.stdout.split('\n').filter((line) => /^ {2}from \d/.test(line));
    // Within the reserve's range, an EREF 1.1 <step>; a million BTC is past what the reserve pays.
    expect(tiers[0]).toMatch(/^ {2}from 0\.5 BTC: margin 0\.3% → [\d.]+ USDTTRC20 per BTC$/);
    expect(tiers[1]).toMatch(
      /^ {2}from 1000000 BTC: margin 0\.2% → [\d.]+ USDTTRC20 per BTC: NOT PUBLISHED, beyond the range any export publishes \(orders up to [\d.]+ BTC: the reserve or the maximum\)$/,
    );
    const classic = await runRatefile(['explain', 'BTC', 'USDTTRC20', '--export', 'parserfile'], project.dir);
    expect(classic.stdout).toMatch(
      /^ {2}from 0\.5 BTC: .*: NOT PUBLISHED, no EREF 1\.1 export carries the direction \(the other formats list only the first rate\)$/m,
    );
  });
});
