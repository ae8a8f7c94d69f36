// Premium Exchanger's rate and reserve files read back with Premium's own parsing (premium-parser.ts, mirrored from its
// code): each direction's line holds the rate and reserve every monitor's file has at the same markup, and a direction
// not published keeps its line, so no other direction's line number moves.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type BuildDeps } from '../../../../src/io/build/build.js';
import { checkPremiumFile } from '../../../../src/pure/check/premium.js';
import { gateFiles } from '../../../../src/pure/check/gate.js';
import { parseDocument } from '../../../../src/pure/check/tree.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { Decimal } from '../../../../src/base/decimal.js';
import { premiumReadsExactly } from '../../../../src/pure/exports/premium.js';
import { selects } from '../../../../src/pure/exports/select.js';
import { emptyGuardState } from '../../../../src/pure/guards/guards.js';
import type { Config } from '../../../../src/model/config.js';
import { makeProject, sampleConfig, type Project } from '../../../support/project.js';
import { applyRateFile, isSum, parseRateFile, parseReserveFile } from './premium-parser.js';

const now = () => new Date('2026-11-26T02:00:00Z');
const fixtures = new URL('../../../fixtures/premium/', import.meta.url);

const premiumTemplates = {
  'templates/premium-rates.yaml': 'format: premium-rates\n',
  'templates/premium-reserves.yaml': 'format: premium-reserves\n',
  // The affiliate file's markup and selection (test/support/project.ts), for Premium.
  'templates/premium-affiliate.yaml': 'format: premium-rates\nmarkup: 0.5%\nexclude: { tags: [cash] }\n',
};

let project: Project;
let config: Config;

beforeAll(async () => {
  project = await makeProject(premiumTemplates);
  config = await loadConfig(project.configPath);
});
afterAll(() => project.remove());

async function files(deps: Partial<BuildDeps> = {}): Promise<Map<string, string>> {
  const result = await build(config, { now, ...deps });
  expect(gateFiles(result.files).refused).toEqual([]);
  return new Map(result.files.map((file) => [file.file, file.bytes.toString('utf8')]));
}

/** Direction id → its line in the export of `templateName`: the config's directions it selects, in order, from 1. */
function lineNumbers(templateName: string): Map<string, number> {
  const template = config.exports.find((t) => t.name === templateName)!;
  const selected = config.directions.filter((direction) => selects(template, direction.tags));
  return new Map(selected.map((direction, index) => [direction.id, index + 1]));
}

/** A classic export's items: direction id → in, out, amount. */
function classicItems(text: string): Map<string, { in: string; out: string; amount: string }> {
  const items = new Map<string, { in: string; out: string; amount: string }>();
  for (const item of parseDocument(text).root?.children ?? []) {
    const value = (name: string) => item.children.find((child) => child.name === name)!.text;
    items.set(`${value('from')}>${value('to')}`, { in: value('in'), out: value('out'), amount: value('amount') });
  }
  return items;
}

const same = (premium: string, classic: string) => new Decimal(premium).equals(new Decimal(classic));

describe("Premium's parsers (premium-parser.ts)", () => {
  it("read the module's own sample files as its guide says: a line number, a title, give = get / a sum", async () => {
    const rates = parseRateFile(await readFile(new URL('course.txt', fixtures), 'utf8'));
    expect([...rates.values()]).toEqual([
      { line: 1, title: 'Title 1', give: '1', get: '10000' },
      { line: 2, title: 'Title 2', give: '1', get: '10' },
      { line: 3, title: 'Title 3', give: '1', get: '5' },
    ]);
    const reserves = parseReserveFile(await readFile(new URL('reserv.txt', fixtures), 'utf8'));
    expect([...reserves].map(([line, { sum }]) => [line, sum])).toEqual([
      [1, '100000'],
      [2, '5000'],
      [3, '14000'],
    ]);
  });

  it('read numbers as is_sum does: a decimal comma, at most 12 decimals, through a double', () => {
    expect(isSum('55,70')).toBe('55.7');
    expect(isSum('0.1234567890123')).toBe('0.123456789012');
    expect(isSum('12345678901234567')).toBe('12345678901234568');
    expect(isSum('')).toBe('0');
  });
});

describe('premium-rates and premium-reserves', () => {
  it('give every direction the rate and reserve of the classic export at the same markup', async () => {
    const built = await files();
    for (const [premium, classic, reserves] of [
      ['premium-rates', 'parserfile', 'premium-reserves'],
      ['premium-affiliate', 'affiliatefile', undefined],
    ] as const) {
      const items = classicItems(built.get(`${classic}.xml`)!);
      const rates = parseRateFile(built.get(`${premium}.txt`)!);
      const amounts = reserves === undefined ? undefined : parseReserveFile(built.get(`${reserves}.txt`)!);
      const lines = lineNumbers(premium);
      expect(rates.size).toBe(lines.size);
      expect(items.size).toBe(lines.size);
      for (const [id, item] of items) {
        const line = lines.get(id)!;
        const read = rates.get(line)!;
        expect(read.title).toBe(id.replace('>', ''));
        expect(same(read.give, item.in) && same(read.get, item.out), `${premium} line ${line} (${id})`).toBe(true);
        if (amounts) expect(same(amounts.get(line)!.sum, item.amount), `${reserves} line ${line}`).toBe(true);
      }
    }
    expect(built.get('premium-rates.txt')).toMatchInlineSnapshot(`
      "BTCSBERRUB : 1 = 8800810.33
      BTCUSDTTRC20 : 1 = 95557.11
      SBERRUBUSDTTRC20 : 93.76 = 1
      USDTTRC20CASHRUB : 1 = 90
      "
    `);
    expect(built.get('premium-reserves.txt')).toMatchInlineSnapshot(`
      "BTCSBERRUB = 5000000
      BTCUSDTTRC20 = 100000
      SBERRUBUSDTTRC20 = 100000
      USDTTRC20CASHRUB = 3000000
      "
    `);
  });

  it("keep a direction's line when it is not published: zeros Premium skips, a zero reserve, no line moved", async () => {
    const first = await files();
    const paused = await files({
      guard: {
        state: emptyGuardState(),
        accepted: new Set(),
        maintenance: false,
        pauses: [{ direction: 'BTC>USDTTRC20', since: '2026-11-26T01:00:00Z' }],
      },
    });
    const lines = lineNumbers('premium-rates');
    const [before, after] = [first, paused].map((built) => parseRateFile(built.get('premium-rates.txt')!));
    const line = lines.get('BTC>USDTTRC20')!;
    expect(after!.get(line)).toEqual({ line, title: 'BTCUSDTTRC20', give: '0', get: '0' });
    for (const [id, number] of lines) if (number !== line) expect(after!.get(number), id).toEqual(before!.get(number));
    expect(parseReserveFile(paused.get('premium-reserves.txt')!).get(line)?.sum).toBe('0');
    expect(classicItems(paused.get('parserfile.xml')!).has('BTC>USDTTRC20')).toBe(false);
    // What Premium then does: it keeps the rate it last read for that direction (fcourse_request_cron), which is why
    // the reserve file's 0 is what stops orders; docs/exports.md says so.
    const stored = applyRateFile(new Map(), lines, first.get('premium-rates.txt')!);
    const kept = applyRateFile(stored, lines, paused.get('premium-rates.txt')!);
    expect(kept.get('BTC>USDTTRC20')).toEqual(stored.get('BTC>USDTTRC20'));
  });

  it('leave out a direction whose rate Premium would not read back exactly, keeping its line', async () => {
    const fine = await makeProject({
      ...premiumTemplates,
      'ratefile.config.yaml': sampleConfig.replace(
        'SBERRUB: { reserve: "5000000" }',
        'SBERRUB: { reserve: "5000000", ratePrecision: 16 }',
      ),
    });
    try {
      const result = await build(await loadConfig(fine.configPath), { now });
      const text = result.files.find((file) => file.file === 'premium-rates.txt')!.bytes.toString('utf8');
      expect(text.split('\n')[2]).toBe('SBERRUBUSDTTRC20 : 0 = 0');
      const withheld = result.report.withheld.filter((w) => w.direction.id === 'SBERRUB>USDTTRC20');
      expect(withheld.map((w) => w.kind)).toEqual(['format', 'format']);
      expect(withheld.map((w) => w.reason)).toContainEqual(
        expect.stringMatching(/^premium-rates\.txt: rate 93\.\d{16} is not read back exactly by Premium \(/),
      );
      // The classic file publishes it: only the Premium file cannot say it.
      expect(result.files.find((file) => file.file === 'parserfile.xml')!.bytes.toString()).toContain(
        '<from>SBERRUB</from>',
      );
    } finally {
      await fine.remove();
    }
  });

  it('are read back exactly when at most 12 decimals and 15 significant digits', () => {
    expect(premiumReadsExactly('93.752510387132', 12)).toBe(true);
    expect(premiumReadsExactly('0.0000000000001', 12)).toBe(false);
    expect(premiumReadsExactly('1234567890123456', 12)).toBe(false);
    for (const text of ['93.752510387132', '0.000000000001', '123456789012345']) expect(isSum(text)).toBe(text);
  });
});

describe('examples/premium/', () => {
  it('holds two private templates that build the rates and reserves files of the same lines', async () => {
    const examples = new URL('../../../../examples/premium/', import.meta.url);
    const texts = await Promise.all(
      ['premium-rates.yaml', 'premium-reserves.yaml'].map((name) => readFile(new URL(name, examples), 'utf8')),
    );
    const made = await makeProject({ 'templates/rates.yaml': texts[0]!, 'templates/reserves.yaml': texts[1]! });
    try {
      const loaded = await loadConfig(made.configPath);
      expect(loaded.exports.filter((t) => t.private).map((t) => t.format)).toEqual([
        'premium-rates',
        'premium-reserves',
      ]);
      const result = await build(loaded, { now });
      expect(gateFiles(result.files).refused).toEqual([]);
      const [rates, reserves] = loaded.exports
        .filter((t) => t.private)
        .map((t) => result.files.find((file) => file.file === t.file)!.bytes.toString('utf8'));
      expect([...parseRateFile(rates!).values()].map((line) => line.title)).toEqual(
        [...parseReserveFile(reserves!).values()].map((line) => line.title.trim()),
      );
    } finally {
      await made.remove();
    }
  });
});

describe("the publish gate's check of a Premium file", () => {
  it('passes the files ratefile writes and refuses a line Premium misreads or a rate with one side zero', async () => {
    const built = await files();
    for (const name of ['premium-rates.txt', 'premium-reserves.txt'])
      expect(checkPremiumFile(Buffer.from(built.get(name)!))).toEqual([]);
    const findings = checkPremiumFile(Buffer.from('BTCRUB : 1 = 90\nETHRUB : 1 = 0\nUSDT:RUB : 1 = 2\n'));
    expect(findings.map((f) => [f.line, f.rule])).toEqual([
      [2, 'premium-rate'],
      [3, 'premium-line'],
    ]);
    expect(checkPremiumFile(Buffer.from('BTC = 3\nETH 4\n')).map((f) => [f.line, f.rule])).toEqual([
      [2, 'premium-line'],
    ]);
  });
});
