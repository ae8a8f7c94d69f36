// A zero <amount> is one rule for classic and EREF 1.1 items (src/pure/check/consistency.ts zeroReserve): tolerated
// (a warning, an error with --strict) with the same words, and not reported again by every limit it cannot pay.
import { describe, expect, it } from 'vitest';
import { checkExport } from '../../../../src/pure/check/export.js';

const classic = `<?xml version="1.0" encoding="UTF-8"?>
<rates>
  <item><from>BTC</from><to>SBERRUB</to><in>1</in><out>8800810.33</out><amount>0</amount><minamount>0.001</minamount><maxamount>0.05</maxamount></item>
</rates>
`;
const eref = `<?xml version="1.0" encoding="UTF-8"?>
<rates>
  <item>
    <from>BTC</from>
    <to>SBERRUB</to>
    <in>1</in>
    <out>8800810.33</out>
    <amount>0.00</amount>
    <frommin>0.001</frommin>
    <frommax>0.05</frommax>
    <tomin>8800.82</tomin>
    <tomax>440040.51</tomax>
    <minamount>0.001</minamount>
    <maxamount>0.05</maxamount>
  </item>
</rates>
`;

const findings = (text: string, strict = false) =>
  checkExport(Buffer.from(text), 'rates.xml', strict ? { strict: true } : {}).findings.map(
    (f) => `${f.severity} ${f.rule}: ${f.message}`,
  );

describe('a zero reserve', () => {
  it.each([
    ['classic', classic],
    ['EREF 1.1', eref],
  ])('in a %s item is tolerated, once, in the same words', (_format, text) => {
    const reserve = findings(text).filter((line) => line.includes('reserve'));
    expect(reserve).toEqual(['warning reserve: <amount> (the reserve) is zero: leave the direction out instead']);
    expect(findings(text, true).filter((line) => line.includes('reserve'))).toEqual([
      'error reserve: <amount> (the reserve) is zero: leave the direction out instead',
    ]);
  });
});
