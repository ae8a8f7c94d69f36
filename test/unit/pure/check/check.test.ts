// ratefile check: the export standard's rules on a deliberately broken file, on our own exports, and well-formedness against libxml2.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build } from '../../../../src/io/build/build.js';
import { checkExport, describeItem, formatResult, type Finding } from '../../../../src/pure/check/index.js';
import { gateFiles } from '../../../../src/pure/check/gate.js';
import { parseNumber, rateFormProblem } from '../../../../src/pure/check/values.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { Decimal } from '../../../../src/base/decimal.js';
import { repoRoot } from '../../../support/process.js';
import { makeProject } from '../../../support/project.js';
import { fixedNow } from '../../../support/run-cli.js';
import { xmlErrors } from '../../../support/xml.js';

const brokenPath = fileURLToPath(new URL('../../../fixtures/exports/broken.xml', import.meta.url));
const broken = readFileSync(brokenPath);
const brokenLines = broken.toString('utf8').split('\n');
const check = (xml: string) => checkExport(Buffer.from(xml, 'utf8'), 'test.xml');
const errors = (findings: readonly Finding[]) => findings.filter((f) => f.severity === 'error');

/** A one-item export around the given item body, for rule-by-rule cases. */
const oneItem = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n<item>\n${body}\n</item>\n</rates>\n`;
const goodItem =
  '<from>BTC</from>\n<to>USDTTRC20</to>\n<in>1</in>\n<out>96075.29</out>\n<amount>485000</amount>\n<minamount>0.001</minamount>\n<maxamount>5</maxamount>';

describe('ratefile check on a deliberately broken file', () => {
  // Judged as ratefile's own file (the publish gate): every planted defect is an error.
  const result = checkExport(broken, 'broken.xml', { strict: true });
  const planted = [
    ['number', 1, 'BTC', 'SBERRUB', 'out'],
    ['number', 2, 'USDTTRC20', 'BTC', 'minamount'],
    ['rate-form', 3, 'SBERRUB', 'TCSBRUB', 'in'],
    ['min-max', 4, 'CARDRUB', 'USDTTRC20', 'minamount'],
    ['label', 5, 'SBERRUB', 'BTC', 'param'],
    ['element-order', 6, 'USDTTRC20', 'CASHRUB', 'out'],
  ];
  const where = (findings: readonly Finding[]) =>
    findings.map((f) => [f.rule, f.item?.index, f.item?.from, f.item?.to, f.element]);

  it('reports every defect once, each in its own item, and nothing in the clean item', () => {
    expect(where(errors(result.findings))).toEqual(planted);
    expect(result.findings.filter((f) => f.severity === 'warning')).toEqual([]);
    expect(result.items).toBe(7);
  });

  it("on anyone's file: what a monitor misreads is an error, what it reads despite the standard a warning", () => {
    const anyone = checkExport(broken, 'broken.xml');
    expect(anyone.findings.map((f) => f.message)).toEqual(result.findings.map((f) => f.message));
    // An unknown label is read past (the item is listed, the label ignored): tolerated, as element order and rate form are.
    // An exponent is read by every parser monitors are known to use: tolerated too.
    expect(where(errors(anyone.findings))).toEqual([planted[0]]);
    expect(where(anyone.findings.filter((f) => f.severity === 'warning'))).toEqual([
      planted[1],
      planted[2],
      planted[3],
      planted[4],
      planted[5],
    ]);
  });

  it('says what is wrong and how to write it', () => {
    const messages = errors(result.findings).map((f) => f.message);
    expect(messages[0]).toBe('<out> "8942034,1428" has a decimal comma: write 8942034.1428');
    expect(messages[1]).toBe(
      '<minamount> "2E1" is in exponent notation (20): PHP, Python and Go read it, no monitor profile is known to misread it, but the standard asks for a plain decimal',
    );
    expect(messages[2]).toBe('rate 0.5:1: the side that is not 1 must be at least 1; the same rate is 1:2');
    expect(messages[3]).toBe('minimum 300000 CARDRUB is above the maximum 3000 CARDRUB');
    expect(messages[4]).toMatch(/^unknown label "verifyng" \(did you mean "verifying"\?\)/);
    expect(messages[5]).toMatch(/^<out> comes after <amount>; the standard order is from, to, in, out, amount, /);
  });

  it('points each finding at the line of the element it is about', () => {
    for (const finding of errors(result.findings)) {
      const line = brokenLines[(finding.line ?? 0) - 1] ?? '';
      expect(line, finding.message).toContain(`<${finding.element}>`);
      expect(finding.column).toBe(line.indexOf('<') + 1);
    }
  });

  it('names the item in the readable report', () => {
    const text = formatResult(result);
    expect(text.split('\n')[0]).toBe('broken.xml: 7 items, 6 errors, FAILS');
    expect(text).toContain('error   line 8:5, item 1 (BTC → SBERRUB): <out> "8942034,1428" has a decimal comma');
    expect(text).toContain('line 55:5, item 6 (USDTTRC20 → CASHRUB, MSK): <out> comes after <amount>');
    expect(text).not.toContain('item 7');
  });
});

describe('ratefile check on our own exports', () => {
  it('finds nothing at all in the three demo exports', async () => {
    const config = await loadConfig(join(repoRoot, 'ratefile.config.yaml'), repoRoot);
    const { files } = await build(config, { now: fixedNow });
    expect(files.map((f) => f.file).sort()).toEqual(['affiliatefile.xml', 'parserfile.xml', 'reffile.xml']);
    for (const file of files) {
      const result = checkExport(file.bytes, file.file);
      expect(result.findings, file.file).toEqual([]);
      expect(result.items, file.file).toBeGreaterThan(10);
    }
  });

  it('passes the test project exports (warnings at most: directions without a minimum)', async () => {
    const project = await makeProject();
    try {
      const config = await loadConfig(project.configPath, project.dir);
      const { files } = await build(config, { now: fixedNow });
      for (const file of files) {
        const findings = checkExport(file.bytes, file.file).findings;
        expect(errors(findings), file.file).toEqual([]);
        for (const warning of findings)
          expect(warning.message).toBe('<minamount> is missing; the current BestChange format requires it');
      }
    } finally {
      await project.remove();
    }
  });
});

describe('well-formedness, judged like libxml2', () => {
  it.each([
    ['a mismatched end tag', '<rates><item></rates>', 1],
    ['an undefined entity', '<rates>&nbsp;</rates>', 1],
    ['a bare ampersand', '<rates>a & b</rates>', 1],
    ['a control character', '<rates>\u0001</rates>', 1],
    ['a character reference to a control character', '<rates>&#1;</rates>', 1],
    ['U+FFFE', '<rates>\uFFFE</rates>', 1],
    ['two root elements', '<rates></rates>\n<rates></rates>', 2],
    ['text after the root', '<rates></rates>\njunk', 2],
    ['text before the root', 'junk<rates></rates>', 1],
    ["'<' in an attribute value", '<rates a="<"></rates>', 1],
    ["'--' in a comment", '<rates><!-- a -- b --></rates>', 1],
    ["']]>' in text", '<rates>]]></rates>', 1],
    ['a repeated attribute', '<rates a="1" a="2"></rates>', 1],
    ['an XML declaration not at the start', '\n<?xml version="1.0"?><rates/>', 2],
    ['an unclosed element on line 3', '<rates>\n<item>\n<from>BTC</from>\n</rates>', 4],
    ['an empty file', '', 1],
  ])('rejects %s', async (_name, xml, line) => {
    expect(await xmlErrors(xml), 'libxml2 rejects it too').not.toEqual([]);
    const result = check(xml);
    const first = result.findings.find((f) => f.severity === 'error');
    expect(first?.rule).toMatch(/^(xml|encoding)$/);
    expect(first?.line).toBe(line);
    expect(result.items).toBeUndefined();
  });

  it('reports the line and column of a broken tag', () => {
    const result = check(
      '<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n  <item>\n    <from>BTC</to>\n  </item>\n</rates>\n',
    );
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({ severity: 'error', rule: 'xml', line: 4, column: 14 });
    expect(result.findings[0]?.message).toMatch(/^not well-formed XML: Expected closing tag 'from'/);
  });

  it("says in words where a file cut short ends, and which elements it leaves open (not fast-xml-parser's list)", () => {
    const cut = '<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n  <item>\n    <from>BTC</from>\n    <out>1';
    expect(check(cut).findings).toEqual([
      {
        severity: 'error',
        rule: 'xml',
        message:
          'not well-formed XML: the file ends inside <out>, with <rates>, <item> and <out> never closed: it was cut short, or end tags are missing',
        line: 5,
        column: 11,
      },
    ]);
    expect(
      check('<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n  <item><from>BTC</from></item>\n').findings,
    ).toEqual([
      expect.objectContaining({
        message:
          'not well-formed XML: <rates> is never closed: the file ends before its end tag (cut short, or </rates> is missing)',
        line: 2,
      }),
    ]);
  });

  it('rejects bytes that are not UTF-8, and a DOCTYPE, and UTF-16', () => {
    const latin1 = Buffer.concat([Buffer.from('<rates>\n<item>'), Buffer.from([0xe9]), Buffer.from('</item></rates>')]);
    expect(checkExport(latin1, 'x').findings).toEqual([
      expect.objectContaining({ rule: 'encoding', line: 2, column: 7 }),
    ]);
    expect(errors(check('<!DOCTYPE rates [<!ENTITY e "x">]><rates>&e;</rates>').findings)[0]?.message).toMatch(
      /DOCTYPE/,
    );
    expect(checkExport(Buffer.from('\ufeff<rates/>', 'utf16le'), 'x').findings[0]?.message).toMatch(/UTF-16/);
  });

  it.each([
    [
      'CDATA, comments, processing instructions and character references',
      oneItem(goodItem.replace('<from>BTC</from>', '<!-- c --><from><![CDATA[BT]]>&#67;</from><?pi x?>')),
    ],
    ['a byte order mark', `\ufeff${oneItem(goodItem)}`],
    ['CRLF line ends', oneItem(goodItem).replace(/\n/g, '\r\n')],
  ])('accepts %s', async (_name, xml) => {
    expect(await xmlErrors(xml)).toEqual([]);
    const result = check(xml);
    expect(errors(result.findings)).toEqual([]);
    expect(result.items).toBe(1);
  });
});

describe('the rules of the standard, one by one', () => {
  const only = (body: string) => check(oneItem(body)).findings.map((f) => `${f.severity} ${f.rule}: ${f.message}`);

  it('a good item has no findings', () => {
    expect(only(goodItem)).toEqual([]);
  });

  it.each([
    [
      'a missing <amount>',
      goodItem.replace('<amount>485000</amount>\n', ''),
      'error element-missing: <amount> is missing',
    ],
    [
      'a repeated <in>',
      goodItem.replace('<in>1</in>', '<in>1</in>\n<in>1</in>'),
      'error element-repeated: <in> appears more than once',
    ],
    [
      'a child element',
      goodItem.replace('<in>1</in>', '<in><b>1</b></in>'),
      'error element-content: <in> must hold text, not elements (<b>)',
    ],
    [
      'a neither-side-is-1 rate',
      goodItem.replace('<in>1</in>', '<in>2</in>').replace('96075.29', '3'),
      'warning rate-form: rate 2:3: one side must be exactly 1 and the other at least 1; the same rate is 1:1.5',
    ],
    [
      'a rate side below 1',
      goodItem.replace('96075.29', '0.96'),
      'warning rate-form: rate 1:0.96: the side that is not 1 must be at least 1; the same rate is about 1.04166667:1',
    ],
    [
      'a zero rate side',
      goodItem.replace('96075.29', '0'),
      'error rate-form: a side of the rate is zero: leave the direction out instead',
    ],
    [
      'a zero reserve',
      goodItem.replace('485000', '0'),
      'warning reserve: <amount> (the reserve) is zero: leave the direction out instead',
    ],
    [
      'a zero maximum',
      goodItem.replace('<minamount>0.001', '<minamount>0').replace('<maxamount>5', '<maxamount>0'),
      'warning limit: <maxamount> is zero: leave the direction out instead',
    ],
    [
      'elements out of order',
      goodItem.replace('<in>1</in>\n<out>96075.29</out>', '<out>96075.29</out>\n<in>1</in>'),
      'warning element-order: <in> comes after <out>; the standard order is from, to, in, out, amount, minfee, fromfee, tofee, minamount, maxamount, floating, delay, param, city, url',
    ],
    [
      'a limit with a currency suffix',
      goodItem.replace('<minamount>0.001', '<minamount>0.001 BTC'),
      'warning limit-unit: <minamount> "0.001 BTC" has a currency suffix (the classic form); the current format is a plain number in the from currency',
    ],
    [
      'a decimal comma',
      goodItem.replace('96075.29', '96075,29'),
      'error number: <out> "96075,29" has a decimal comma: write 96075.29',
    ],
    [
      'the same currency on both sides',
      goodItem.replace('USDTTRC20', 'BTC').replace('96075.29', '1'),
      'error currency: from and to are the same currency (BTC)',
    ],
    // Read as written like a zero one (no order can be made): the same severity as zero, not an error.
    [
      'a negative amount',
      goodItem.replace('485000', '-5'),
      'warning reserve: <amount> (the reserve) "-5" is negative: read as written, like zero no order can be made; leave the direction out instead',
    ],
    [
      'a negative maximum',
      goodItem.replace('<minamount>0.001', '<minamount>0').replace('<maxamount>5', '<maxamount>-5'),
      'warning limit: <maxamount> "-5" is negative: read as written, like zero no order can be made; leave the direction out instead',
    ],
    [
      'a negative maximum with a unit',
      goodItem.replace('<minamount>0.001', '<minamount>0').replace('<maxamount>5', '<maxamount>-5 BTC'),
      'warning limit: <maxamount> "-5 BTC" is negative: read as written, like zero no order can be made; leave the direction out instead',
    ],
    ['a negative rate side', goodItem.replace('96075.29', '-5'), 'error number: <out> "-5" is negative'],
    [
      'an unknown label beside known ones',
      `${goodItem}\n<param>manual,delivery</param>`,
      'warning label: unknown label "delivery"; monitors ignore it; known labels: manual, juridical, verifying, cardverify, reg, otherin, otherout',
    ],
    [
      'a thousands separator',
      goodItem.replace('96075.29', '96,075.29'),
      'error number: <out> "96,075.29" has a comma: use a dot as the decimal point and no thousands separators',
    ],
    [
      'an unknown currency code',
      goodItem.replace('USDTTRC20', 'USDTTRC2O'),
      'warning currency: unknown currency code "USDTTRC2O" in <to> (closest known: "USDTTRC20")',
    ],
    [
      'an unknown city',
      `${goodItem}\n<city>MSKK</city>`,
      'warning city: unknown city code "MSKK" (closest known: "MSK")',
    ],
    [
      'a misspelt element',
      `${goodItem}\n<delai>5</delai>`,
      'warning element-unknown: unknown element <delai> (did you mean <delay>?); monitors ignore it',
    ],
    [
      'a bad fee',
      goodItem.replace('<minamount>', '<tofee>1,5 %</tofee>\n<minamount>'),
      'error fee: <tofee> "1,5 %" has a decimal comma: write 1.5',
    ],
    [
      'a fee in exponent notation',
      goodItem.replace('<minamount>', '<fromfee>1E5</fromfee>\n<minamount>'),
      'error fee: <fromfee> "1E5" is in exponent notation: write 100000',
    ],
    [
      'a fee in an unknown currency',
      goodItem.replace('<minamount>', '<fromfee>2 USDD</fromfee>\n<minamount>'),
      'warning currency: unknown currency "USDD" in <fromfee> (closest known: "USDC")',
    ],
    [
      'a bad floating',
      `${goodItem}\n<floating>soon</floating>`,
      'error number: <floating> "soon" is not a number (expected minutes like 15 or a move like 1%)',
    ],
    [
      'a cash currency without a city',
      goodItem.replace('USDTTRC20', 'CASHUSD'),
      'warning city: cash currency CASHUSD without a <city>: monitors list cash directions by city',
    ],
  ])('%s', (_name, body, expected) => {
    expect(only(body)).toEqual([expected]);
  });

  it('a limit beyond what the reserve pays is a warning, a minimum beyond it an error for our own files', () => {
    const body = goodItem.replace('0.001', '6').replace('<maxamount>5', '<maxamount>7');
    expect(only(body)).toEqual([
      'warning reserve: the reserve 485000 USDTTRC20 cannot pay the minimum order 6 BTC (576451.74 USDTTRC20)',
      'warning reserve: the maximum order 7 BTC pays 672527.03 USDTTRC20, more than the reserve 485000 USDTTRC20',
    ]);
    expect(
      checkExport(Buffer.from(oneItem(body)), 'x', { strict: true }).findings.map(
        (f) => `${f.severity} ${f.rule}: ${f.message}`,
      ),
    ).toEqual([
      'error reserve: the reserve 485000 USDTTRC20 cannot pay the minimum order 6 BTC (576451.74 USDTTRC20)',
      'warning reserve: the maximum order 7 BTC pays 672527.03 USDTTRC20, more than the reserve 485000 USDTTRC20',
    ]);
  });

  it('flags duplicate directions with both items named, and a city makes them distinct', () => {
    const item = (city: string, out = '96075.29') =>
      `<item>${goodItem.replace('<from>BTC</from>\n<to>USDTTRC20</to>', '<from>BTC</from>\n<to>CASHRUB</to>').replace('96075.29', out)}<city>${city}</city></item>`;
    const result = check(`<rates>\n${item('MSK')}\n${item('SPB')}\n${item('MSK', '96000')}\n</rates>`);
    const duplicates = result.findings.filter((f) => f.rule === 'duplicate');
    expect(duplicates).toHaveLength(1);
    expect(duplicates[0]?.item).toEqual({ index: 3, from: 'BTC', to: 'CASHRUB', city: 'MSK' });
    expect(duplicates[0]?.severity).toBe('error');
    expect(duplicates[0]?.message).toBe(
      'duplicate direction: same from and to and city as item 1 (BTC → CASHRUB, MSK), with other values: a monitor reads one of them, which one is its choice',
    );
  });

  it('warns about an item repeated value for value (a monitor reads the same either way); the gate refuses it', () => {
    const twice = `<rates>\n<item>${goodItem}</item>\n<item>\n${goodItem}\n</item>\n</rates>`;
    const duplicates = (strict: boolean) =>
      checkExport(Buffer.from(twice), 'x.xml', { strict })
        .findings.filter((f) => f.rule === 'duplicate')
        .map((f) => f.severity);
    expect(duplicates(false)).toEqual(['warning']);
    expect(duplicates(true)).toEqual(['error']);
  });

  it('warns about a number in exponent notation, which PHP, Python and Go read; the gate refuses it', () => {
    const findings = (strict: boolean) =>
      checkExport(Buffer.from(oneItem(goodItem.replace('96075.29', '3.849952E-7'))), 'x.xml', { strict }).findings;
    expect(findings(false).filter((f) => f.rule === 'number')).toMatchObject([
      {
        severity: 'warning',
        element: 'out',
        message:
          '<out> "3.849952E-7" is in exponent notation (0.0000003849952): PHP, Python and Go read it, no monitor profile is known to misread it, but the standard asks for a plain decimal',
      },
    ]);
    expect(findings(false).filter((f) => f.severity === 'error')).toEqual([]);
    expect(
      findings(true)
        .filter((f) => f.rule === 'number')
        .map((f) => f.severity),
    ).toEqual(['error']);
  });

  it('requires <rates> as the root and only <item> inside it', () => {
    expect(check('<rate></rate>').findings.map((f) => f.message)).toContain(
      "the root element is <rate>; an export file's root is <rates>",
    );
    expect(
      errors(check(`<rates><items></items>${oneItem(goodItem).split('<rates>')[1]}`).findings).map((f) => f.message),
    ).toEqual(['<items> inside <rates>: only <item> elements belong there']);
    expect(
      check('<?xml version="1.0" encoding="windows-1251"?><rates></rates>').findings.map(
        (f) => `${f.severity} ${f.message}`,
      ),
    ).toEqual([
      'error declared encoding windows-1251: the standard requires UTF-8',
      'warning no items: the monitors will list none of your directions',
    ]);
  });

  it('describes items with and without their direction', () => {
    expect(describeItem({ index: 4 })).toBe('item 4');
    expect(describeItem({ index: 2, from: 'BTC' })).toBe('item 2 (BTC → ?)');
  });
});

describe('number and rate forms', () => {
  it.each([
    ['12', true],
    ['0.5', true],
    ['1,5', 'has a decimal comma: write 1.5'],
    ['1e-7', 'is in exponent notation: write 0.0000001'],
    ['1.5E+3', 'is in exponent notation: write 1500'],
    ['+3', 'has a sign: write 3'],
    ['.5', 'has no digit before the dot: write 0.5'],
    ['5.', 'ends with a dot: write 5'],
    ['1 000', 'has spaces inside'],
    ['', 'is empty'],
    ['NaN', 'is not a number'],
  ])('%j', (text, expected) => {
    const parsed = parseNumber(text);
    expect(parsed.ok ? true : parsed.problem).toBe(expected);
  });

  it.each([
    ['1', '93.45', undefined],
    ['96.85', '1', undefined],
    ['1', '1', undefined],
    ['1', '0.25', 'rate 1:0.25: the side that is not 1 must be at least 1; the same rate is 4:1'],
    ['1', '0.3', 'rate 1:0.3: the side that is not 1 must be at least 1; the same rate is about 3.33333334:1'],
    ['0', '5', 'a side of the rate is zero: leave the direction out instead'],
  ])('%s:%s', (inText, outText, expected) => {
    expect(rateFormProblem(new Decimal(inText), new Decimal(outText))).toBe(expected);
  });
});

describe('same severity for the same effect (issue 23.9)', () => {
  const erefItem = (amount: string, max: string, labels = '') =>
    `<item>\n<from>BTC</from>\n<to>SBERRUB</to>\n<in>1</in>\n<out>8800810.33</out>\n<amount>${amount}</amount>\n<frommin>0</frommin>\n<frommax>${max}</frommax>\n<tomin>0</tomin>\n<tomax>100</tomax>\n${labels}<minamount>0</minamount>\n<maxamount>${max}</maxamount>\n</item>`;
  const xmlFile = (item: string) =>
    Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<rates>\n${item}\n</rates>\n`, 'utf8');
  const jsonFile = (amount: string, max: string) =>
    Buffer.from(
      `{"version": "1.3", "currencies": {"list": {"1": "BTC", "2": "SBERRUB"}}, "exchange": {"1": {"to": {"2": {"xr": -5, "amount": "${amount}", "max": ${max}}}}}}\n`,
      'utf8',
    );
  /** Severity and rule of every finding, anyone's file and ratefile's own (the gate). */
  const levels = (bytes: Buffer) => ({
    anyone: checkExport(bytes, 'x').findings.map((f) => `${f.severity} ${f.rule}`),
    own: gateFiles([{ file: 'x', bytes }]).refused.flatMap((r) => r.errors.map((f) => `${f.severity} ${f.rule}`)),
  });
  const classic = (amount: string, max: string) =>
    xmlFile(
      `<item>\n${goodItem.replace('485000', amount).replace('<minamount>0.001', '<minamount>0').replace('<maxamount>5', `<maxamount>${max}`)}\n</item>`,
    );

  it.each([
    ['classic reserve', classic('0', '5'), classic('-5', '5'), ['warning reserve']],
    ['classic maximum', classic('485000', '0'), classic('485000', '-5'), ['warning limit']],
    ['EREF 1.1 reserve', xmlFile(erefItem('0', '5')), xmlFile(erefItem('-5', '5')), ['warning reserve']],
    [
      'EREF 1.1 maximum',
      xmlFile(erefItem('485000', '0')),
      xmlFile(erefItem('485000', '-5')),
      ['warning limit', 'warning limit'],
    ],
    ['JSON reserve', jsonFile('0', '1'), jsonFile('-5', '1'), ['warning reserve']],
    ['JSON maximum', jsonFile('10', '0'), jsonFile('10', '-5'), ['warning limit']],
  ])(
    '%s: negative is what zero is, a warning for anyone and refused by the gate',
    (_name, zero, negative, expected) => {
      expect(levels(zero).anyone).toEqual(expected);
      expect(levels(negative)).toEqual(levels(zero));
      expect(levels(negative).own).toEqual(expected.map((finding) => finding.replace('warning', 'error')));
    },
  );

  it('an unknown label, alone or beside known ones, is read past: a warning for anyone, refused by the gate', () => {
    for (const param of ['manual,delivery', 'delivery', 'manual, verifyng']) {
      const bytes = xmlFile(`<item>\n${goodItem}\n<param>${param}</param>\n</item>`);
      expect(levels(bytes), param).toEqual({ anyone: ['warning label'], own: ['error label'] });
    }
  });
});
