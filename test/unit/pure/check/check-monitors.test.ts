// ratefile check agrees with the monitors: real export files other exchangers served (test/fixtures/exports/real,
// see its README for where they come from) have no errors, while ratefile's own files are still judged by the written standard.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkExport } from '../../../../src/pure/check/index.js';
import { checkExportGeneral } from '../../../../src/pure/check/export.js';
import { gateFiles } from '../../../../src/pure/check/gate.js';
import { repoRoot } from '../../../support/process.js';
import { runRatefile } from '../../../support/run-cli.js';

const exportsDir = join(repoRoot, 'test', 'fixtures', 'exports', 'real');
const realFiles = readdirSync(exportsDir)
  .filter((name) => name.endsWith('.xml'))
  .sort()
  .map((name) => join(exportsDir, name));

/** One of our own items, in the standard order. */
const ownItem =
  '<from>BTC</from>\n<to>USDTTRC20</to>\n<in>1</in>\n<out>96075.29</out>\n<amount>485000</amount>\n<minamount>0.001</minamount>\n<maxamount>5</maxamount>';
const file = (item: string) =>
  Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n<item>\n${item}\n</item>\n</rates>\n`, 'utf8');

describe('real export files of other exchangers', () => {
  it('are all there to check', () => {
    expect(realFiles.map((path) => path.slice(exportsDir.length + 1))).toEqual([
      '1WM.xml',
      '7Money.xml',
      'CoinDrop.xml',
      'Ukr-Obmen.xml',
      'iChangeOne.xml',
    ]);
  });

  it.each(realFiles)('%s: no error, the departures from the standard as warnings, both paths agreeing', (path) => {
    const bytes = readFileSync(path);
    const result = checkExport(bytes, path);
    expect(result.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(result.items).toBeGreaterThan(5);
    // Not vacuous: each file departs from the standard somewhere (suffixed limits at least), which is reported.
    expect(result.findings.length).toBeGreaterThan(0);
    expect(result).toStrictEqual(checkExportGeneral(bytes, path));
  });

  it('pass `ratefile check` (exit 0), and fail it with --strict', async () => {
    const result = await runRatefile(['check', ...realFiles], repoRoot);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(
      '5 files checked: 0 with errors, 5 with warnings only, 0 clean',
    );
    const strict = await runRatefile(['check', '--strict', ...realFiles], repoRoot);
    expect(strict.code).toBe(1);
    expect(strict.stdout.trimEnd().split('\n').at(-1)).toBe(
      '5 files checked: 5 with errors, 0 with warnings only, 0 clean',
    );
  });
});

describe("what a monitor drops or misreads stays an error on anyone's file", () => {
  const twice = `<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n<item>${ownItem}</item>\n<item>${ownItem.replace('96075.29', '96000')}</item>\n</rates>\n`;
  it.each([
    ['an error page', Buffer.from('<?xml version="1.0"?><error>Maintenance</error>'), 'root'],
    ['an HTML page', Buffer.from('<!DOCTYPE html>\n<html><body>Bad gateway</body></html>'), 'xml'],
    ['a missing <amount>', file(ownItem.replace('<amount>485000</amount>\n', '')), 'element-missing'],
    ['a decimal comma', file(ownItem.replace('96075.29', '96075,29')), 'number'],
    ['a negative rate side', file(ownItem.replace('96075.29', '-1')), 'number'],
    ['a zero rate side', file(ownItem.replace('96075.29', '0')), 'rate-form'],
    ['a duplicate direction', Buffer.from(twice), 'duplicate'],
  ])('%s', (_name, bytes, rule) => {
    expect(
      checkExport(bytes, 'x.xml')
        .findings.filter((f) => f.severity === 'error')
        .map((f) => f.rule),
    ).toEqual([rule]);
  });
});

describe('the publish gate keeps the written standard for our own files', () => {
  it.each([
    [
      'elements out of order',
      ownItem.replace('<in>1</in>\n<out>96075.29</out>', '<out>96075.29</out>\n<in>1</in>'),
      'element-order',
    ],
    ['a rate side below 1', ownItem.replace('96075.29', '0.96'), 'rate-form'],
    ['a minimum above the maximum', ownItem.replace('<minamount>0.001', '<minamount>6'), 'min-max'],
    ['a zero reserve', ownItem.replace('485000', '0'), 'reserve'],
    ['an exponent', ownItem.replace('485000', '4.85E5'), 'number'],
  ])('%s: a warning for anyone, refused when ratefile publishes it', (_name, item, rule) => {
    const bytes = file(item);
    expect(checkExport(bytes, 'x.xml').findings.map((f) => `${f.severity} ${f.rule}`)).toContain(`warning ${rule}`);
    expect(checkExport(bytes, 'x.xml').findings.filter((f) => f.severity === 'error')).toEqual([]);
    const { passing, refused } = gateFiles([{ file: 'parserfile.xml', bytes }]);
    expect(passing).toEqual([]);
    expect(refused[0]?.errors.map((f) => f.rule)).toContain(rule);
  });

  it('passes our own good file', () => {
    expect(gateFiles([{ file: 'parserfile.xml', bytes: file(ownItem) }]).refused).toEqual([]);
  });
});

describe('check --strict', () => {
  it('makes a warning count as failing', async () => {
    const odd = join(exportsDir, 'CoinDrop.xml');
    const plain = await runRatefile(['check', '--json', odd], repoRoot);
    const strict = await runRatefile(['check', '--json', '--strict', odd], repoRoot);
    type Report = { ok: boolean; files: { errors: number; warnings: number }[] };
    const [before, after] = [JSON.parse(plain.stdout) as Report, JSON.parse(strict.stdout) as Report];
    expect([plain.code, before.ok, before.files[0]?.errors]).toEqual([0, true, 0]);
    expect([strict.code, after.ok, after.files[0]?.warnings]).toEqual([1, false, 0]);
    expect(after.files[0]?.errors).toBe(before.files[0]?.warnings);
  });
});

describe('check --monitor moneyswap on real files: errors only for what changes for the exchanger', () => {
  it("reports MoneySwap's rounding and zero fees as info, and errors only for items dropped or misread", async () => {
    const result = await runRatefile(['check', '--json', '--monitor', 'moneyswap', ...realFiles], repoRoot);
    type File = { findings: { severity: string; rule: string }[]; monitor: { dropped: number; misread: number } };
    const files = (JSON.parse(result.stdout) as { files: File[] }).files;
    const monitorFindings = files.flatMap((f) => f.findings.filter((x) => x.rule.startsWith('monitor-')));
    const count = (severity: string, rule?: string) =>
      monitorFindings.filter((f) => f.severity === severity && (rule === undefined || f.rule === rule)).length;
    // Before issue 33 every rounding was an error: 166 errors, 162 items "misread", all 5 files failing.
    expect(count('info', 'monitor-rounded')).toBeGreaterThan(100);
    expect(count('error', 'monitor-rounded')).toBe(0);
    expect(count('error')).toBe(10);
    expect(files.reduce((sum, f) => sum + f.monitor.dropped + f.monitor.misread, 0)).toBe(10);
    // 1WM.xml: only roundings and labels, so it passes.
    expect(result.stdout.match(/"ok": true/g)?.length).toBe(1);
  });
});
