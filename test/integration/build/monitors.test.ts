// One pricing, a file per monitor: examples/monitors.yaml built, each file checked with its own profile's
// `check --monitor` (every item read as written), and the differences between them that matter.
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectsPerTest } from '../../support/project.js';
import { repoRoot } from '../../support/process.js';
import { runRatefile } from '../../support/run-cli.js';

const project = projectsPerTest();
const example = {
  'examples/monitors.yaml': readFileSync(join(repoRoot, 'examples/monitors.yaml'), 'utf8'),
  'quotes.json': readFileSync(join(repoRoot, 'quotes.json'), 'utf8'),
  ...Object.fromEntries(
    readdirSync(join(repoRoot, 'examples/monitors')).map((name) => [
      `examples/monitors/${name}`,
      readFileSync(join(repoRoot, 'examples/monitors', name), 'utf8'),
    ]),
  ),
};
const files = {
  bestchange: 'bestchange.xml',
  'bestchange-eref': 'bestchange-eref.xml',
  moneyswap: 'moneyswap.xml',
  getrate: 'getrate.xml',
  kurses: 'kurses.json',
  exchangesumo: 'exchangesumo.xml',
  exnode: 'exnode.xml',
  scanbit: 'scanbit.xml',
};

async function built() {
  const { dir } = await project(example);
  const build = await runRatefile(['build', '--config', 'examples/monitors.yaml'], dir);
  expect(build.code).toBe(0);
  const out = join(dir, 'public/monitors');
  return { dir, out, read: (file: string) => readFile(join(out, file), 'utf8') };
}

describe('a file per monitor from one pricing', () => {
  it("each shipped profile's file is read in full by its own check --monitor", async () => {
    const { dir } = await built();
    for (const [monitor, file] of Object.entries(files)) {
      const checked = await runRatefile(['check', '--monitor', monitor, '--json', `public/monitors/${file}`], dir);
      const report = JSON.parse(checked.stdout) as { ok: boolean; files: { monitor: unknown; findings: unknown[] }[] };
      expect({ monitor, ok: report.ok, findings: report.files[0]!.findings }).toEqual({
        monitor,
        ok: true,
        findings: [],
      });
      expect(report.files[0]!.monitor).toMatchObject({ monitor, dropped: 0, misread: 0 });
      expect(checked.code).toBe(0);
    }
  });

  it('MoneySwap gets the fee folded into the rate; BestChange gets it written; MoneySwap would misread that', async () => {
    const { dir, read } = await built();
    const card = (text: string) =>
      /<item>\s*<from>USDTTRC20<\/from>\s*<to>CARDRUB<\/to>[\s\S]*?<\/item>/.exec(text)![0];
    const bestchange = card(await read('bestchange.xml'));
    const moneyswap = card(await read('moneyswap.xml'));
    expect(bestchange).toContain('<out>92.04</out>');
    expect(bestchange).toContain('<tofee>1 %</tofee>');
    expect(moneyswap).toContain('<out>91.1196</out>'); // 92.04 × (1 − 1%)
    expect(moneyswap).not.toContain('fee>');
    const wrong = await runRatefile(['check', '--monitor', 'moneyswap', 'public/monitors/bestchange.xml'], dir);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('moneyswap reads 4 of 6 items: 2 misread');
    expect(wrong.stdout).toContain(
      'MoneySwap: <tofee> 1 % is not read on a non-cash item: the rate shown leaves the fee out',
    );
  });

  it('kurses.com.ua gets JSON 1.3, and reads nothing of the XML files', async () => {
    const { dir, read } = await built();
    expect(JSON.parse(await read('kurses.json'))).toMatchObject({ version: '1.3' });
    const wrong = await runRatefile(['check', '--monitor', 'kurses', 'public/monitors/bestchange.xml'], dir);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('kurses.com.ua: reads json only: nothing of this XML file is read');
  });

  it("getrate.cc's file leaves out the direction with a fixed minfee, which BestChange's keeps", async () => {
    const { dir, read } = await built();
    expect(await read('bestchange.xml')).toContain('<minfee>500 RUB</minfee>');
    expect(await read('getrate.xml')).not.toContain('<to>BTC</to>');
    const wrong = await runRatefile(['check', '--monitor', 'getrate', 'public/monitors/bestchange.xml'], dir);
    expect(wrong.stdout).toContain(
      'getrate.cc: <minfee> 500 RUB is read as the least gap to the average market rate, not a fixed fee',
    );
    const status = JSON.parse(await readFile(join(dir, 'examples/.ratefile/status.json'), 'utf8')) as unknown;
    expect(JSON.stringify(status)).toContain('getrate.xml: getrate.cc: <minfee> is read as the least gap');
  });

  it('the BestChange profiles write what a plain template of the same format writes', async () => {
    const plain = {
      ...example,
      'examples/monitors/plain.yaml': 'description: no monitor\n',
      'examples/monitors/plain-eref.yaml': 'format: eref-1.1\n',
    };
    const { dir } = await project(plain);
    expect((await runRatefile(['build', '--config', 'examples/monitors.yaml'], dir)).code).toBe(0);
    const read = (file: string) => readFile(join(dir, 'public/monitors', file), 'utf8');
    expect(await read('bestchange.xml')).toBe(await read('plain.xml'));
    expect(await read('bestchange-eref.xml')).toBe(await read('plain-eref.xml'));
  });

  it('a template naming an unknown monitor, or a format its monitor does not read, is a config error', async () => {
    const { dir } = await project({
      ...example,
      'examples/monitors/kurses.yaml': 'monitor: kurses\nformat: classic\n',
      'examples/monitors/other.yaml': 'monitor: moneyswp\n',
    });
    const validated = await runRatefile(['validate', '--config', 'examples/monitors.yaml'], dir);
    expect(validated.code).toBe(2);
    expect(validated.stderr).toContain(
      'examples/monitors/kurses.yaml: format: kurses.com.ua reads json, not classic (line 2)',
    );
    expect(validated.stderr).toContain(
      'examples/monitors/other.yaml: monitor: unknown monitor "moneyswp" (did you mean "moneyswap"?)',
    );
  });
});

describe('item counts', () => {
  it("the build's line counts a file's items as `ratefile check` does (a JSON exchange holds its cities)", async () => {
    const { dir } = await project(example);
    const build = await runRatefile(['build', '--config', 'examples/monitors.yaml'], dir);
    expect(build.code).toBe(0);
    for (const file of Object.values(files)) {
      const checked = await runRatefile(['check', '--json', `public/monitors/${file}`], dir);
      const items = (JSON.parse(checked.stdout) as { files: { items: number }[] }).files[0]!.items;
      expect(`${build.stdout}${build.stderr}`).toMatch(
        new RegExp(`[ ;]${file.replace('.', '\\.')} ${items} items? \\(`),
      );
    }
  });
});
