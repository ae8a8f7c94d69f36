// Export formats (format: in a template): classic, EREF 1.1 and jsons.info JSON from the same priced directions;
// full-file snapshots as real files, the numbers of all three compared item by item, what a format cannot say.
import { readFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { build } from '../../../../src/io/build/build.js';
import { checkExport } from '../../../../src/pure/check/index.js';
import { gateFiles } from '../../../../src/pure/check/gate.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { runCycle } from '../../../../src/io/build/cycle.js';
import { Decimal } from '../../../../src/base/decimal.js';
import { isRatefileError } from '../../../../src/base/errors.js';
import { isFault } from '../../../../src/pure/status/health.js';
import { jsonRate } from '../../../../src/pure/exports/json.js';
import { formatRefusal } from '../../../../src/pure/exports/refusals.js';
import { sampleConfig, projectsPerTest } from '../../../support/project.js';
import { xmlErrors } from '../../../support/xml.js';
import { random } from '../../../support/random.js';
import { offlineFetch } from '../../../support/run-cli.js';

const now = () => new Date('2026-11-21T12:00:30Z');
const project = projectsPerTest();

/** The sample exchanger plus what only some formats can say: tiers, floating, delay, labels, a fee with a currency, a minfee. */
const formatsConfig = `${sampleConfig}  - { from: BTC, to: CASHRUB, cities: [MSK], min: 0.01, floating: "1%", delay: 30, params: [verifying, reg], tofee: 0.5 }
  - { from: SBERRUB, to: BTC, min: 10000, margin: 2%, tiers: [{ from: "200000 RUB", margin: 1.5% }, { from: 1000000, margin: 1% }], floating: 15 }
  - { from: USDTTRC20, to: SBERRUB, max: 20000, tiers: [{ from: 5000, margin: 1% }, { from: 10000, margin: 3% }], params: [juridical] }
  - { from: CASHRUB, to: USDTTRC20, cities: [MSK], fromfee: "2 USD" }
  - { from: SBERRUB, to: CASHRUB, cities: [SPB], minfee: 100 }
`;

const threeFormats = {
  'templates/parserfile.yaml': 'description: every direction\n',
  'templates/rates11.yaml': 'format: eref-1.1\nfile: rates-1.1.xml\n',
  'templates/rates.yaml': 'format: json\n',
};

async function buildFormats(files: Record<string, string> = {}) {
  const made = await project({
    'ratefile.config.yaml': formatsConfig,
    ...threeFormats,
    'templates/reffile.yaml': 'include: { tags: [none] }\n',
    'templates/affiliatefile.yaml': 'include: { tags: [none] }\n',
    ...files,
  });
  const config = await loadConfig(made.configPath);
  return build(config, { now });
}

const xml = new XMLParser({
  parseTagValue: false,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name) => ['item', 'step'].includes(name),
});

interface Published {
  in: Decimal;
  out: Decimal;
  amount: Decimal;
  min?: Decimal;
  max?: Decimal;
}

const key = (from: string, to: string, city?: string) => `${from}>${to}${city ? `@${city}` : ''}`;
const decimal = (value: unknown) => (value === undefined ? undefined : new Decimal(String(value)));

/** Classic or EREF 1.1 items by direction, read back with a real XML parser; `min`/`max` are the (legacy) minamount/maxamount. */
function readXml(bytes: Buffer): Map<string, Published & Record<string, unknown>> {
  const items = (xml.parse(bytes.toString('utf8')) as { rates: { item?: Record<string, string>[] } }).rates.item ?? [];
  return new Map(
    items.map((item) => [
      key(item.from!, item.to!, item.city),
      {
        ...item,
        in: new Decimal(item.in!),
        out: new Decimal(item.out!),
        amount: new Decimal(item.amount!),
        ...(item.minamount ? { min: new Decimal(item.minamount) } : {}),
        max: decimal(item.maxamount),
      } as Published & Record<string, unknown>,
    ]),
  );
}

describe('three formats from one build', () => {
  it('render as the stored snapshots (real files), the XML ones well-formed per libxml2, all passing the strict check', async () => {
    const { files } = await buildFormats();
    expect(files.map((file) => file.file).sort()).toEqual([
      'affiliatefile.xml',
      'parserfile.xml',
      'rates-1.1.xml',
      'rates.json',
      'reffile.xml',
    ]);
    for (const file of files.filter((f) => ['parserfile.xml', 'rates-1.1.xml', 'rates.json'].includes(f.file))) {
      const text = file.bytes.toString('utf8');
      if (file.file.endsWith('.xml')) expect(await xmlErrors(text, file.file)).toEqual([]);
      else expect(() => JSON.parse(text) as unknown).not.toThrow();
      expect(
        checkExport(file.bytes, file.file, { strict: true }).findings.filter((f) => f.severity === 'error'),
      ).toEqual([]);
      await expect(text).toMatchFileSnapshot(`../../../fixtures/formats/${file.file}`);
    }
  });

  it('carry the same rates, reserves and limits item for item (JSON within its 6-decimal rounding against the client)', async () => {
    const { files, report } = await buildFormats();
    const byName = new Map(files.map((file) => [file.file, file.bytes]));
    const classic = readXml(byName.get('parserfile.xml')!);
    const eref = readXml(byName.get('rates-1.1.xml')!);
    const json = JSON.parse(byName.get('rates.json')!.toString('utf8')) as {
      currencies: { list: Record<string, string> };
      exchange: Record<
        string,
        { to: Record<string, { xr: number; amount: string; min?: number; max?: number; cities?: string[] }> }
      >;
    };
    const list = json.currencies.list;
    const jsonItems = new Map<string, { xr: number; amount: string; min?: number; max?: number }>();
    for (const [from, { to }] of Object.entries(json.exchange)) {
      for (const [target, entry] of Object.entries(to))
        for (const city of entry.cities ?? [undefined]) jsonItems.set(key(list[from]!, list[target]!, city), entry);
    }
    // The directions with a minfee or a fee in a currency are left out of EREF 1.1 and JSON alone, with a reason.
    const leftOut = ['CASHRUB>USDTTRC20@MSK', 'SBERRUB>CASHRUB@SPB'];
    expect([...classic.keys()].filter((k) => !eref.has(k)).sort()).toEqual(leftOut);
    expect([...classic.keys()].filter((k) => !jsonItems.has(k)).sort()).toEqual(leftOut);
    expect(
      report.withheld
        .map((w) => `${w.kind} ${w.reason}`)
        .filter((reason) => reason.includes(' rates'))
        .sort(),
    ).toEqual([
      'format rates-1.1.xml: fromfee 2 USD names a currency; eref-1.1 takes a plain number in the from currency or a percentage',
      'format rates-1.1.xml: minfee 100 has no element in eref-1.1',
      'format rates.json: fromfee 2 USD names a currency; json takes a plain number in the from currency or a percentage',
      'format rates.json: minfee 100 has no element in json',
    ]);
    // The config's doing, alike in every build: not a fault that degrades health or raises an alert.
    expect(isFault('format')).toBe(false);
    expect(eref.size).toBe(classic.size - 2);
    for (const [k, item] of eref) {
      const base = classic.get(k)!;
      expect(item.in.equals(base.in) && item.out.equals(base.out), k).toBe(true);
      expect(item.amount.equals(base.amount), k).toBe(true);
      expect(decimal(item.frommin)?.toString(), k).toBe(base.min?.toString());
      expect(decimal(item.frommax)!.equals(base.max!), k).toBe(true);
      expect(decimal(item.minamount)?.toString(), k).toBe(base.min?.toString());
      expect(decimal(item.maxamount)!.equals(base.max!), k).toBe(true);
    }
    const step = new Decimal('0.000001');
    for (const [k, entry] of jsonItems) {
      const base = classic.get(k)!;
      const xr = new Decimal(String(entry.xr));
      if (xr.isNegative()) {
        // 1 from = X to: X no more than the published out/in, and less than one step below it.
        const exact = base.out.div(base.in);
        expect(xr.abs().lessThanOrEqualTo(exact) && exact.minus(xr.abs()).lessThan(step), `${k}: ${entry.xr}`).toBe(
          true,
        );
      } else {
        // X from = 1 to: X no less than the published in/out, and less than one step above it.
        const exact = base.in.div(base.out);
        expect(xr.greaterThanOrEqualTo(exact) && xr.minus(exact).lessThan(step), `${k}: ${entry.xr}`).toBe(true);
      }
      expect(new Decimal(entry.amount).equals(base.amount), k).toBe(true);
      expect(decimal(entry.min)?.toString(), k).toBe(base.min?.toString());
      expect(decimal(entry.max)!.equals(base.max!), k).toBe(true);
    }
  });
});

describe('EREF 1.1 as its schema types it', () => {
  it('writes each label as <label>true</label> (the 1.1 XSD types labels as xs:boolean), which the check takes without a finding', async () => {
    const { files } = await buildFormats();
    const eref = files.find((file) => file.file === 'rates-1.1.xml')!.bytes.toString('utf8');
    expect(eref).toContain('<verifying>true</verifying>\n    <reg>true</reg>');
    expect(eref).toContain('<manual>true</manual>');
    expect(eref).not.toMatch(/<(manual|juridical|verifying|cardverify|reg|otherin|otherout)\/>/);
    expect(
      checkExport(Buffer.from(eref), 'rates-1.1.xml', { strict: true }).findings.filter((f) => f.rule === 'label'),
    ).toEqual([]);
  });

  it("writes a fee in its side's own currency (tofee: 4 USDT on USDTERC20) as the plain number, in EREF 1.1 and JSON alike", async () => {
    const config =
      sampleConfig.replace(
        '  SBERRUB: { reserve: "5000000" }\n',
        '  SBERRUB: { reserve: "5000000" }\n  USDTERC20: { precision: 2, reserve: "50000" }\n',
      ) +
      '  - { from: BTC, to: USDTERC20, tofee: "4 USDT" }\n  - { from: SBERRUB, to: BTC, fromfee: "100 SBERRUB", tofee: "0.0001 BTC" }\n  - { from: USDTTRC20, to: SBERRUB, tofee: "50 RUB" }\n  - { from: CASHRUB, to: USDTTRC20, cities: [MSK], fromfee: "2 USD" }\n';
    const made = await project({ 'ratefile.config.yaml': config, ...threeFormats });
    const { files, report } = await build(await loadConfig(made.configPath), { now });
    const byName = new Map(files.map((file) => [file.file, file.bytes.toString('utf8')]));
    const erefItems = readXml(Buffer.from(byName.get('rates-1.1.xml')!));
    expect(erefItems.get('BTC>USDTERC20')).toMatchObject({ tofee: '4' });
    expect(erefItems.get('SBERRUB>BTC')).toMatchObject({ fromfee: '100', tofee: '0.0001' });
    expect(erefItems.get('USDTTRC20>SBERRUB')).toMatchObject({ tofee: '50' });
    expect(erefItems.has('CASHRUB>USDTTRC20@MSK')).toBe(false);
    // The classic file keeps the unit as configured.
    expect(readXml(Buffer.from(byName.get('parserfile.xml')!)).get('BTC>USDTERC20')).toMatchObject({ tofee: '4 USDT' });
    const json = byName.get('rates.json')!;
    expect(json).toContain('"outFee": 4}');
    expect(json).toContain('"inFee": 100, "outFee": 0.0001');
    expect(json).toContain('"outFee": 50');
    // Only the fee in another currency is still withheld, from those two exports alone.
    expect(
      report.withheld
        .filter((w) => w.kind === 'format')
        .map((w) => w.reason)
        .sort(),
    ).toEqual([
      'rates-1.1.xml: fromfee 2 USD names a currency; eref-1.1 takes a plain number in the from currency or a percentage',
      'rates.json: fromfee 2 USD names a currency; json takes a plain number in the from currency or a percentage',
    ]);
    for (const file of ['rates-1.1.xml', 'rates.json'])
      expect(
        checkExport(Buffer.from(byName.get(file)!), file, { strict: true }).findings.filter(
          (f) => f.severity === 'error',
        ),
      ).toEqual([]);
  });

  it('withholds a direction whose tomax rounds to 0 (a maximum no order can meet) from EREF 1.1 alone, with the reason', async () => {
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}  - { from: SBERRUB, to: BTC, max: 0.01 }\n`,
      ...threeFormats,
    });
    const { files, report } = await build(await loadConfig(made.configPath), { now });
    const text = (name: string) => files.find((file) => file.file === name)!.bytes.toString('utf8');
    expect(readXml(Buffer.from(text('parserfile.xml'))).get('SBERRUB>BTC')).toMatchObject({ maxamount: '0.01' });
    expect(readXml(Buffer.from(text('rates-1.1.xml'))).has('SBERRUB>BTC')).toBe(false);
    expect(report.withheld.filter((w) => w.direction.id === 'SBERRUB>BTC').map((w) => `${w.kind} ${w.reason}`)).toEqual(
      ['limits rates-1.1.xml: tomax rounds to 0 at 8 decimals'],
    );
  });

  const erefFile = (labels: string) =>
    Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n  <item>\n    <from>BTC</from>\n    <to>SBERRUB</to>\n    <in>1</in>\n    <out>8800810.33</out>\n    <amount>5000000</amount>\n` +
        `    <frommin>0.001</frommin>\n    <frommax>0.5</frommax>\n    <tomin>8800.82</tomin>\n    <tomax>4400405.16</tomax>\n${labels}    <minamount>0.001</minamount>\n    <maxamount>0.5</maxamount>\n  </item>\n</rates>\n`,
    );
  const labelFindings = (labels: string, strict = false) =>
    checkExport(erefFile(labels), 'x.xml', { strict }).findings.map((f) => `${f.severity} ${f.rule}: ${f.message}`);

  it('check takes both label spellings: <manual>true</manual> (and false, 1, 0) silently, the empty <manual/> with a warning', () => {
    expect(
      labelFindings(
        '    <manual>true</manual>\n    <verifying>1</verifying>\n    <reg>false</reg>\n    <otherin>0</otherin>\n',
      ),
    ).toEqual([]);
    expect(labelFindings('    <manual/>\n')).toEqual([
      'warning label: <manual/> is empty; the EREF 1.1 schema types labels as xs:boolean: write <manual>true</manual>',
    ]);
    // Ratefile's own files are judged strictly: it never publishes the form that fails the schema.
    expect(labelFindings('    <manual/>\n', true)).toEqual([
      'error label: <manual/> is empty; the EREF 1.1 schema types labels as xs:boolean: write <manual>true</manual>',
    ]);
    expect(labelFindings('    <manual>yes</manual>\n')).toEqual([
      'warning label: <manual> "yes": expected true or false (the EREF 1.1 schema types labels as xs:boolean)',
    ]);
  });
});

describe('amount tiers', () => {
  it('are EREF 1.1 <step>s from the minimum, each ending one step below the next, at the market after each margin', async () => {
    const { files } = await buildFormats();
    const eref = readXml(files.find((f) => f.file === 'rates-1.1.xml')!.bytes);
    const item = eref.get('SBERRUB>BTC')! as unknown as {
      step: { frommin: string; frommax: string; in: string; out: string }[];
      frommax: string;
    };
    expect(item.step.map((s) => `${s.frommin}..${s.frommax}`)).toEqual([
      '10000..199999.99',
      '200000..999999.99',
      `1000000..${item.frommax}`,
    ]);
    // Better tiers for bigger orders: fewer RUB per BTC.
    const ins = item.step.map((s) => new Decimal(s.in));
    expect(ins[1]!.lessThan(ins[0]!) && ins[2]!.lessThan(ins[1]!)).toBe(true);
    expect(item.step.every((s) => s.out === '1')).toBe(true);
  });

  it('end the published range below a tier worse for the client than the listed rate, in every format alike', async () => {
    const { files } = await buildFormats();
    const classic = readXml(files.find((f) => f.file === 'parserfile.xml')!.bytes);
    const eref = readXml(files.find((f) => f.file === 'rates-1.1.xml')!.bytes);
    // USDTTRC20>SBERRUB: max 20000, a better tier from 5000 and a worse one (3% against 1.5%) from 10000.
    expect(classic.get('USDTTRC20>SBERRUB')!.max!.toFixed()).toBe('9999.99');
    const item = eref.get('USDTTRC20>SBERRUB')! as unknown as { step: { frommin: string; frommax: string }[] };
    expect(item.step.map((s) => `${s.frommin}..${s.frommax}`)).toEqual(['0..4999.99', '5000..9999.99']);
  });

  it('withhold a direction whose first tier is not above its minimum, with the reason', async () => {
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}  - { from: SBERRUB, to: BTC, min: "100 USDT", tiers: [{ from: 5000, margin: 1% }] }\n`,
    });
    const { report, files } = await build(await loadConfig(made.configPath), { now });
    expect(report.withheld.map((w) => `${w.direction.id}: ${w.reason}`)).toContain(
      'SBERRUB>BTC: parserfile.xml: tier from 5000 SBERRUB is not above the minimum order 9235 SBERRUB',
    );
    expect(files.find((f) => f.file === 'parserfile.xml')!.bytes.toString()).not.toContain('<to>BTC</to>');
  });
});

describe('jsonRate: X or -X, at most 6 decimals, rounded against the client', () => {
  it.each([
    ['93.76', '1', '93.76'],
    ['1', '8800810.33', '-8800810.33'],
    ['1', '1', '1'],
    ['1.23456789', '1', '1.234568'],
    ['1', '1.23456789', '-1.234567'],
    ['1.0000001', '1', '1.000001'],
    ['1', '1.0000009', '-1'],
    ['1', '0.3', '3.333334'],
    ['3', '1', '3'],
    ['2', '3', '-1.5'],
  ])('in %s, out %s → %s', (given, got, expected) => {
    expect(jsonRate(given, got)).toBe(expected);
  });

  it('leaves out a number a double cannot hold, never rounding it through a float', () => {
    expect(formatRefusal('json', { in: '1', out: '12345678901234.123456' })).toBe(
      'rate -12345678901234.123456 cannot be read back exactly from JSON (more digits than a double holds)',
    );
    expect(formatRefusal('json', { in: '1', out: '2', maxamount: '123456789012345678' })).toMatch(
      /^max 123456789012345678 cannot be read back/,
    );
    expect(formatRefusal('json', { in: '1', out: '12345678.123456', maxamount: '5.5' })).toBeUndefined();
    expect(formatRefusal('eref-1.1', { in: '1', out: '12345678901234.123456' })).toBeUndefined();
  });
});

describe('the format: and file: keys of a template', () => {
  it('are config errors naming the template file: a wrong extension, an unknown format, a url outside classic', async () => {
    const made = await project({
      'templates/rates.yaml': 'format: json\nfile: rates.xml\n',
      'templates/eref.yaml': 'format: eref-1.1\nfile: eref.json\nurl: "https://x.example/?f={from}"\n',
      'templates/odd.yaml': 'format: yaml\n',
      'templates/premium.yaml': 'format: premium-rates\nfile: premium.xml\n',
    });
    const error = await loadConfig('ratefile.config.yaml', made.dir).catch((caught: unknown) => caught);
    expect(isRatefileError(error, 'E_CONFIG')).toBe(true);
    expect((error as { details: string[] }).details.filter((line) => !line.startsWith('ratefile.config.yaml'))).toEqual(
      [
        'templates/eref.yaml: file: expected a name ending in .xml for the eref-1.1 format, got "eref.json" (line 2)',
        'templates/eref.yaml: url: only the classic format has a <url> element; eref-1.1 has none (line 3)',
        'templates/odd.yaml: format: expected one of classic, eref-1.1, json, premium-rates, premium-reserves, got "yaml" (line 1)',
        'templates/premium.yaml: file: expected a name ending in .txt for the premium-rates format, got "premium.xml" (line 2)',
        'templates/rates.yaml: file: expected a name ending in .json for the json format, got "rates.xml" (line 2)',
      ],
    );
  });

  it('name the file: <template>.json for json by default, and two templates writing one file are refused', async () => {
    const made = await project({
      'templates/rates.yaml': 'format: json\n',
      'templates/other.yaml': 'format: eref-1.1\nfile: RATES.json\n',
    });
    const error = await loadConfig('ratefile.config.yaml', made.dir).catch((caught: unknown) => caught);
    expect((error as { details: string[] }).details).toContain(
      'templates/rates.yaml: writes rates.json, as templates/other.yaml does; keep one of the two templates',
    );
    const ok = await project({ 'templates/rates.yaml': 'format: json\n' });
    expect((await loadConfig(ok.configPath)).exports.map((e) => `${e.file} ${e.format}`)).toContain('rates.json json');
  });
});

describe('ratefile check on EREF 1.1 and JSON files, told apart by their content', () => {
  const lines = (file: string) =>
    checkExport(readFileSync(new URL(`../../../fixtures/formats/${file}`, import.meta.url)), file).findings.map(
      (f) => `${f.severity} ${f.item ? `item ${f.item.index} ` : ''}${f.rule}: ${f.message}`,
    );

  // Each file has one clean item or entry first, then one planted defect per item (two where a defect shows twice).
  it.each([
    [
      'broken-1.1.xml',
      [
        'warning item 2 min-max: <frommin> 0.1 is above <frommax> 0.05',
        'warning item 2 min-max: <minamount> 0.1 is above <maxamount> 0.05',
        'error item 3 fee: <fromfee> "2 USD" names a currency (EREF 1.1: a number in the from currency or N%)',
        'error item 4 step: <step> from 400000 overlaps or precedes the step before it (up to 500000)',
        'error item 5 floating: <floating minutes="1.5">: expected whole minutes',
        'error item 6 number: <out> "0,9071" has a decimal comma: write 0.9071',
        'warning item 7 element-unknown: unknown element <param>; EREF 1.1 gives each label its own element, like <manual>true</manual>; monitors ignore it',
        'warning item 7 limit: <minamount> 200 differs from <frommin> 100; monitors reading either should see one limit',
      ],
    ],
    [
      'broken.json',
      [
        'error currency: currency number "0": expected 1-9 and a-z, never 0',
        'error item 2 rate: the rate is not a number; expected X (X from = 1 to) or -X (1 from = X to)',
        'warning item 3 min-max: "min" 0.5 is above "max" 0.34',
        'warning item 4 rate-form: the rate 93.7612345 has more than 6 decimals',
        'error item 4 fee: "inFee": expected a non-negative number, {"%": p} or ["+", …]',
        'error item 5 currency: exchange to currency number "9", which "currencies.list" does not have',
        'error item 6 rate: the rate is zero: leave the direction out instead',
        'warning item 7 city: cash currency CASHRUB without "cities": monitors list cash directions by city',
      ],
    ],
  ])('finds each planted defect of %s once, in its item', (file, expected) => {
    expect(lines(file)).toEqual(expected);
  });

  it('reads a classic file as classic still, and a JSON syntax error with its line and column', () => {
    expect(checkExport(Buffer.from('{\n  "exchange": {,}\n}\n'), 'x.json').findings).toEqual([
      {
        severity: 'error',
        rule: 'json',
        message: expect.stringMatching(/^not JSON: /) as unknown as string,
        line: 2,
        column: 16,
      },
    ]);
    const item = '<from>BTC</from><to>SBERRUB</to><in>1</in><out>2</out><amount>3</amount><maxamount>1</maxamount>';
    const messages = (extra: string) =>
      checkExport(
        Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n<item>${item}${extra}</item>\n</rates>\n`),
        'c.xml',
      ).findings.map((f) => f.message);
    expect(messages('')).toEqual(['<minamount> is missing; the current BestChange format requires it']);
    expect(messages('<frommax>1</frommax>')).toEqual([
      '<frommin> is missing; EREF 1.1 gives the order limits in the from currency',
      '<minamount> is missing; monitor cabinets still read the legacy limits',
      '<frommax> comes after <maxamount>; the EREF 1.1 order is from, to, in, out, amount, frommin, frommax, tomin, tomax, fromfee, tofee, step, delay, floating, label, city, minamount, maxamount',
    ]);
  });

  it('is the publish gate for every format: a JSON export with an error is refused', () => {
    const bad = readFileSync(new URL('../../../fixtures/formats/broken.json', import.meta.url));
    const { refused, passing } = gateFiles([
      { file: 'rates.json', bytes: bad },
      {
        file: 'ok.json',
        bytes: Buffer.from(
          '{"version": "1.3", "currencies": {"list": {"1": "BTC", "2": "SBERRUB"}}, "exchange": {"1": {"to": {"2": {"xr": -5, "amount": "10", "max": 1}}}}}\n',
        ),
      },
    ]);
    // Strict, as for every file ratefile publishes: the two departures monitors tolerate are errors too.
    expect(refused.map((r) => `${r.file} ${r.errors.length}`)).toEqual(['rates.json 7']);
    expect(passing.map((p) => p.file)).toEqual(['ok.json']);
  });
});

describe('tiers: in the config', () => {
  const withTiers = (tiers: string) => `${sampleConfig}  - { from: SBERRUB, to: BTC, min: 5000, tiers: ${tiers} }\n`;
  const loadWith = async (tiers: string) => {
    const made = await project({ 'ratefile.config.yaml': withTiers(tiers) });
    return loadConfig('ratefile.config.yaml', made.dir).catch((error: unknown) => error as { details: string[] });
  };

  it('are amounts of the from currency, above 0 and ascending, each a problem naming its place and line', async () => {
    const error = (await loadWith(
      '[{ from: "100 USDT", margin: 1% }, { from: 0, margin: 1% }, { from: 50000, margin: 1% }, { from: "40000 SBERRUB", margin: 0.5% }, { from: 1, margin: abc }]',
    )) as { details: string[] };
    expect(error.details).toEqual([
      'directions[3].tiers[4].margin: expected a percentage like "1.5%", got "abc" (line 15)',
      'directions[3].tiers[0].from: expected an amount of the from currency (RUB) or a plain number, got "100 USDT" (line 15)',
      "directions[3].tiers[1].from: expected an amount above 0: the direction's own margin applies from its minimum (line 15)",
      'directions[3].tiers[3].from: expected amounts in ascending order, got "40000 SBERRUB" after 50000 (line 15)',
      'directions[3].tiers[4].from: expected amounts in ascending order, got "1" after 40000 (line 15)',
    ]);
  });

  it('load as amounts and fractions; a tier worse for the client than the direction is a warning', async () => {
    const config = (await loadWith('[{ from: "100000 RUB", margin: 1% }, { from: 200000, margin: 2% }]')) as Awaited<
      ReturnType<typeof loadConfig>
    >;
    expect(config.directions.at(-1)!.tiers!.map((t) => `${t.from.toFixed()} ${t.margin.toFixed()}`)).toEqual([
      '100000 0.01',
      '200000 0.02',
    ]);
    expect(config.warnings).toContain(
      "directions[3].tiers[1].margin: 2% is worse for the client than the direction's 1.5%: the published range ends below 200000 while this tier's rate is worse than the listed one (line 15)",
    );
  });
});

describe('amount tiers on randomized directions', () => {
  it('never list a client less than the listed rate: steps contiguous from the minimum to the maximum, each at least as good, each payable from the reserve', async () => {
    // FORMATS_SEED explores other seeds.
    const next = random(Number(process.env.FORMATS_SEED ?? 20261123));
    const codes = ['BTC', 'USDTTRC20', 'USDTERC20', 'SBERRUB', 'TCSBRUB'];
    const percent = () => `${(next() * 4 - 0.5).toFixed(2)}%`;
    const lines: string[] = [];
    const tiersOf = new Map<string, { tiers: { from: Decimal }[] }>();
    for (const from of codes) {
      for (const to of codes) {
        if (from === to) continue;
        const unit = from === 'BTC' ? 0.05 : from.startsWith('USDT') ? 500 : 50000;
        let at = unit * (0.2 + next());
        const tiers = Array.from({ length: 1 + Math.floor(next() * 4) }, () => {
          const tier = {
            from: (at = at + unit * (0.1 + next() * 2)).toFixed(from === 'BTC' ? 4 : 2),
            margin: percent(),
          };
          return tier;
        });
        const margin = percent();
        const min = next() < 0.7 ? `, min: ${(unit * 0.1).toFixed(from === 'BTC' ? 4 : 2)}` : '';
        tiersOf.set(`${from}>${to}`, { tiers: tiers.map((t) => ({ from: new Decimal(t.from) })) });
        lines.push(
          `  - { from: ${from}, to: ${to}, margin: "${margin}"${min}, tiers: [${tiers.map((t) => `{ from: ${t.from}, margin: "${t.margin}" }`).join(', ')}] }`,
        );
      }
    }
    const config = `sources:\n  backoffice: { type: file, path: quotes.json }\ncurrencies:\n  BTC: { reserve: "0.8" }\n  USDTTRC20: { precision: 2, reserve: "30000" }\n  USDTERC20: { precision: 2, ratePrecision: 4, reserve: "9000" }\n  SBERRUB: { reserve: "2500000" }\n  TCSBRUB: { reserve: "900000" }\ndirections:\n${lines.join('\n')}\n`;
    const made = await project({
      'ratefile.config.yaml': config,
      ...threeFormats,
      'templates/marked.yaml': 'format: eref-1.1\nmarkup: 0.7%\n',
      'templates/reffile.yaml': 'include: { tags: [none] }\n',
      'templates/affiliatefile.yaml': 'include: { tags: [none] }\n',
    });
    const { files } = await build(await loadConfig(made.configPath), { now });
    const classic = readXml(files.find((f) => f.file === 'parserfile.xml')!.bytes);
    let stepped = 0;
    for (const file of ['rates-1.1.xml', 'marked.xml']) {
      const eref = readXml(files.find((f) => f.file === file)!.bytes);
      expect(eref.size, file).toBeGreaterThan(10);
      for (const [k, item] of eref) {
        const {
          step: steps = [],
          frommin,
          frommax,
        } = item as unknown as {
          step?: { frommin: string; frommax: string; in: string; out: string }[];
          frommin?: string;
          frommax: string;
        };
        if (file === 'rates-1.1.xml') expect(new Decimal(frommax).equals(classic.get(k)!.max!), k).toBe(true);
        const unit = new Decimal(1).div(new Decimal(10).pow(k.startsWith('BTC') ? 8 : 2));
        // Every tier starting within the published range has its own step: none is silently folded into another rate.
        const starts = tiersOf
          .get(k)!
          .tiers.map((tier) => tier.from)
          .filter((start) => start.lessThanOrEqualTo(frommax) && (frommin === undefined || start.greaterThan(frommin)));
        expect(
          starts.every((start) => steps.some((step) => new Decimal(step.frommin).equals(start))),
          `${file} ${k}: tiers ${starts.join(', ')}`,
        ).toBe(true);
        if (steps.length === 0) continue;
        stepped += 1;
        expect(steps[0]!.frommin, k).toBe(frommin ?? '0');
        expect(steps.at(-1)!.frommax, k).toBe(frommax);
        steps.forEach((step, i) => {
          const [sIn, sOut] = [new Decimal(step.in), new Decimal(step.out)];
          // At least as good for the client as the listed rate: out/in no lower.
          expect(sOut.times(item.in).greaterThanOrEqualTo(item.out.times(sIn)), `${file} ${k} step ${i}`).toBe(true);
          // Its largest order is payable from the reserve.
          expect(
            new Decimal(step.frommax).times(sOut).lessThanOrEqualTo(item.amount.times(sIn)),
            `${file} ${k} step ${i} reserve`,
          ).toBe(true);
          if (i > 0)
            expect(
              new Decimal(step.frommin).minus(unit).equals(new Decimal(steps[i - 1]!.frommax)),
              `${file} ${k} step ${i} contiguous`,
            ).toBe(true);
        });
      }
    }
    expect(stepped).toBeGreaterThan(10);
  });
});

describe('a format export in the output folder', () => {
  it('is written with its .gz/.br copies and removed with them once no template declares it', async () => {
    const made = await project({ 'templates/rates.yaml': 'format: json\n' });
    const out = join(made.dir, 'public');
    const first = await runCycle(await loadConfig(made.configPath), out, { now, fetch: offlineFetch });
    expect(first.build.report.exports.map((e) => e.file)).toContain('rates.json');
    expect((await readdir(out)).filter((name) => name.startsWith('rates.json')).sort()).toEqual([
      'rates.json',
      'rates.json.br',
      'rates.json.gz',
    ]);
    await rm(join(made.dir, 'templates', 'rates.yaml'));
    const second = await runCycle(await loadConfig(made.configPath), out, { now, fetch: offlineFetch });
    expect(second.removed).toEqual(['rates.json']);
    expect((await readdir(out)).filter((name) => name.startsWith('rates'))).toEqual([]);
  });
});
