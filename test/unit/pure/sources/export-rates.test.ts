import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ExportRate, rateOf, readExportRates } from '../../../../src/pure/sources/export-rates.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const rate = (inText: string, outText: string): ExportRate => ({
  index: 1,
  from: 'A',
  to: 'B',
  cities: [],
  in: inText,
  out: outText,
});

describe('readExportRates: an export file as rates', () => {
  it('reads a jsons.info file in the check own order, X as in X : out 1 and -X as in 1 : out X', () => {
    const read = readExportRates(readFileSync(new URL('../../../fixtures/formats/rates.json', import.meta.url)));
    if (!('rates' in read)) throw new Error(read.problem);
    const cash = read.rates.find((item) => item.from === 'USDTTRC20' && item.to === 'CASHRUB');
    expect(cash).toMatchObject({ in: '1', out: '90', cities: ['MSK', 'SPB'] });
    expect(read.rates.find((item) => item.from === 'SBERRUB' && item.to === 'USDTTRC20')).toMatchObject({
      in: '93.76',
      out: '1',
    });
    expect(read.rates.map((item) => item.index)).toEqual(read.rates.map((_, index) => index + 1));
  });

  it('marks the items the check finds an error in, with its finding, and refuses a file failing as a whole', () => {
    const file = `<?xml version="1.0" encoding="UTF-8"?>
<rates>
<item><from>BTC</from><to>SBERRUB</to><in>1</in><out>8942034.14</out><amount>1,5</amount></item>
<item><from>SBERRUB</from><to>BTC</to><in>9012345.12</in><out>1</out><amount>4.85</amount></item>
</rates>`;
    const read = readExportRates(bytes(file));
    if (!('rates' in read)) throw new Error(read.problem);
    expect(read.rates[0]?.refused).toMatch(/item 1 \(BTC → SBERRUB\): <amount> "1,5" has a decimal comma/);
    expect(read.rates[1]?.refused).toBeUndefined();
    expect(readExportRates(bytes('<rates><item>'))).toEqual({
      problem: expect.stringMatching(/^the file fails the check: .*not well-formed XML/),
    });
    expect(readExportRates(bytes('{"exchange": 1}'))).toEqual({
      problem: expect.stringMatching(/^the file fails the check: /),
    });
  });
});

describe('readExportRates: only the items asked for', () => {
  const file = (extra = '') => `<?xml version="1.0" encoding="UTF-8"?>
<rates>${extra}
<item><from>BTC</from><to>SBERRUB</to><in>1</in><out>8942034.14</out><amount>1.5</amount></item>
<item><from>SBERRUB</from><to>BTC</to><in>9012345.12</in><out>1</out><amount>4.85</amount></item>
<item><from>USDTTRC20</from><to>SBERRUB</to><in>1</in><out>98.9</out><amount>1,5</amount></item>
</rates>`;
  const wanted = (_from: string, to: string) => to === 'SBERRUB';

  it('keeps the wanted items with the numbers the check gives them, by the scanner and by the tree alike', () => {
    // A comment is outside the scanner's subset: the tree reads that file, to the same items.
    for (const text of [file(), file('<!-- a comment -->')]) {
      const read = readExportRates(bytes(text), wanted);
      if (!('rates' in read)) throw new Error(read.problem);
      expect(read.rates.map((rate) => [rate.index, rate.from, rate.to, rate.refused !== undefined])).toEqual([
        [1, 'BTC', 'SBERRUB', false],
        [3, 'USDTTRC20', 'SBERRUB', true],
      ]);
      expect(read.rates[1]?.refused).toMatch(/item 3 \(USDTTRC20 → SBERRUB\): <amount> "1,5" has a decimal comma/);
    }
  });
});

describe('rateOf', () => {
  it('divides exactly when the division ends, else to 12 significant digits', () => {
    expect(rateOf(rate('1', '98.9386'), 'out/in')).toBe('98.9386');
    expect(rateOf(rate('300.0606', '3'), 'in/out')).toBe('100.0202');
    expect(rateOf(rate('1', '3'), 'in/out')).toBe('0.333333333333');
    expect(rateOf(rate('3', '2'), 'out/in')).toBe('0.666666666667');
  });
});
