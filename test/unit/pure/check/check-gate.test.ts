// The publish gate (check/gate.ts) against the defects a renderer bug would write: a real file ratefile built,
// one item broken the way a writer breaks it, must be refused with the rule that names the defect, and the file
// as built must pass. Whatever way the check reads it (fast path, full rules, general path), nothing slips through.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../../../../src/io/build/build.js';
import { checkExportTraced } from '../../../../src/pure/check/export.js';
import { gateFiles } from '../../../../src/pure/check/gate.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { repoRoot } from '../../../support/process.js';
import { fixedNow } from '../../../support/run-cli.js';
import type { OutputFile } from '../../../../src/model/config.js';

async function demoFiles(): Promise<OutputFile[]> {
  const config = await loadConfig(join(repoRoot, 'ratefile.config.yaml'), repoRoot);
  return (await build(config, { now: fixedNow })).files;
}

/** The text of the second item of a file, so the defect sits between good items. */
function secondItem(text: string): { start: number; end: number } {
  const start = text.indexOf('<item>', text.indexOf('<item>') + 1);
  return { start, end: text.indexOf('</item>', start) + '</item>'.length };
}

/** The file with its second item rewritten by `plant`. */
function planted(file: OutputFile, plant: (item: string) => string): OutputFile {
  const text = Buffer.from(file.bytes).toString('utf8');
  const { start, end } = secondItem(text);
  const item = text.slice(start, end);
  const broken = plant(item);
  expect(broken, 'the defect was planted').not.toBe(item);
  return { ...file, bytes: Buffer.from(text.slice(0, start) + broken + text.slice(end), 'utf8') };
}

/** Lower `<amount>` until the reserve cannot pay the minimum order: amount = 1, far below min × rate. */
const starve = (item: string) => item.replace(/<amount>[^<]*<\/amount>/, '<amount>0.000001</amount>');

// Each defect as a renderer would write it, and the rule the gate must refuse it by.
const defects: [string, string, (item: string) => string][] = [
  ['an unescaped & in a value', 'xml', (item) => item.replace('&amp;', '&')],
  ['a missing closing tag', 'xml', (item) => item.replace('</maxamount>', '')],
  [
    'two elements swapped',
    'element-order',
    (item) => item.replace(/(<in>[^<]*<\/in>)(\s*)(<out>[^<]*<\/out>)/, '$3$2$1'),
  ],
  ['an amount whose reserve cannot pay the minimum', 'reserve', starve],
  ['a forbidden character (U+0001)', 'xml', (item) => item.replace('</to>', '\u0001</to>')],
  ['a forbidden character (U+FFFE)', 'xml', (item) => item.replace('</from>', '\uFFFE</from>')],
  [
    'a number written with a comma',
    'number',
    (item) => item.replace(/<maxamount>(\d+)\.(\d+)<\/maxamount>/, '<maxamount>$1,$2</maxamount>'),
  ],
  ['a rate not in the published form', 'rate-form', (item) => item.replace('<in>1</in>', '<in>0.5</in>')],
  ['the item written twice', 'duplicate', (item) => `${item}\n  ${item}`],
  ['an element left out', 'element-missing', (item) => item.replace(/<from>[^<]*<\/from>\s*/, '')],
];

describe('the publish gate refuses a file a renderer bug broke', () => {
  it('passes the files as built, read by the fast path with every item cleared', async () => {
    const files = await demoFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const traced = checkExportTraced(file.bytes, file.file, { strict: true });
      expect(traced.path, file.file).toBe('fast');
      expect(traced.cleared, file.file).toBe(traced.result.items);
    }
    expect(gateFiles(files).refused).toEqual([]);
  });

  it.each(defects)('refuses %s (rule %s), keeping the good files', async (_name, rule, plant) => {
    const files = await demoFiles();
    // The file with a url (the &amp; to unescape) and the classic one without: every defect in each that can hold it.
    const targets = files.filter((file) => plant !== defects[0]![2] || Buffer.from(file.bytes).includes('&amp;'));
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) {
      const broken = planted(target, plant);
      const { passing, refused } = gateFiles(files.map((file) => (file === target ? broken : file)));
      expect(passing.map((file) => file.file)).toEqual(
        files.filter((file) => file !== target).map((file) => file.file),
      );
      expect(refused.map((r) => r.file)).toEqual([target.file]);
      expect(
        refused[0]!.errors.map((error) => error.rule),
        target.file,
      ).toContain(rule);
    }
  });

  it('refuses a reserve one unit short of the minimum order, decided exactly at the boundary', async () => {
    // In strict mode a minimum the reserve cannot pay is an error. in = 1, so the minimum pays minimum × out: a
    // reserve of exactly that passes, one unit of its last digit less is refused (doubles cannot tell them apart).
    const [file] = await demoFiles();
    const text = Buffer.from(file!.bytes).toString('utf8');
    const { start, end } = secondItem(text);
    const item = text.slice(start, end);
    expect(item).toContain('<in>1</in>');
    const at = (minimum: string, amount: string) =>
      gateFiles([
        {
          ...file!,
          bytes: Buffer.from(
            text.slice(0, start) +
              item
                .replace(/<amount>[^<]*</, `<amount>${amount}<`)
                .replace(/<minamount>[^<]*</, `<minamount>${minimum}<`) +
              text.slice(end),
          ),
        },
      ]);
    const out = /<out>([^<]*)</.exec(item)![1]!;
    // amount = minimum × out, exactly, written out from the digits.
    const minimum = '0.0002081';
    const digits = (value: string) => BigInt(value.replace('.', ''));
    const scale = (value: string) => value.length - value.indexOf('.') - 1;
    const product = digits(minimum) * digits(out);
    const amountScale = scale(minimum) + scale(out);
    const exact = `${product / 10n ** BigInt(amountScale)}.${(product % 10n ** BigInt(amountScale)).toString().padStart(amountScale, '0')}`;
    expect(at(minimum, exact).refused).toEqual([]);
    const justBelow = `${exact.slice(0, -1)}${Number(exact.at(-1)) - 1}`;
    expect(exact.at(-1)).not.toBe('0');
    expect(at(minimum, justBelow).refused[0]?.errors.map((e) => e.rule)).toContain('reserve');
  });
});
