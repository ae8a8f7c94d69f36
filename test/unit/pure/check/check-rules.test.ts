// The classic item's rule table (src/pure/check/rules.ts) is the one place its rules live: a rule changed in the table
// is seen by the general path (item.ts) and by the fast path (the scanner's pattern and clean.ts's quick test) alike.
import { describe, expect, it } from 'vitest';
import { checkExportGeneral, checkExportTraced } from '../../../../src/pure/check/export.js';
import { classicRules, itemRules, type ElementRule } from '../../../../src/pure/check/rules.js';
import { itemElements } from '../../../../src/model/items.js';

const item = (elements: string) => `  <item>\n${elements}\n  </item>`;
const lines = (pairs: [string, string][]) => pairs.map(([name, value]) => `    <${name}>${value}</${name}>`).join('\n');

/** Two items as ratefile writes them, with nothing to report: one with labels and an address, one cash in a city. */
const file = Buffer.from(
  [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rates>',
    item(
      lines([
        ['from', 'BTC'],
        ['to', 'SBERRUB'],
        ['in', '1'],
        ['out', '8800810.33'],
        ['amount', '5000000'],
        ['minamount', '0.01'],
        ['maxamount', '0.5'],
        ['param', 'verifying'],
        ['url', 'https://exchanger.example/?from=BTC&amp;to=SBERRUB'],
      ]),
    ),
    item(
      lines([
        ['from', 'BTC'],
        ['to', 'CASHRUB'],
        ['in', '1'],
        ['out', '8700000'],
        ['amount', '5000000'],
        ['minamount', '0.01'],
        ['maxamount', '0.5'],
        ['param', 'manual'],
        ['city', 'MSK'],
      ]),
    ),
    '</rates>',
    '',
  ].join('\n'),
);

/** The table with one element's rule changed. */
const changed = (name: string, change: Partial<ElementRule>): ElementRule[] =>
  classicRules.map((rule) => (rule.name === name ? { ...rule, ...change } : rule));

/** The findings of both paths under `table`: identical, and what they are (rule, element, message). */
function bothPaths(table: readonly ElementRule[]) {
  const rules = itemRules(table);
  const fast = checkExportTraced(file, 'x.xml', { strict: true }, rules);
  const general = checkExportTraced(file, 'x.xml', { strict: true, general: true }, rules);
  expect(fast.path).toBe('fast');
  expect(fast.result).toStrictEqual(general.result);
  return { cleared: fast.cleared, findings: fast.result.findings.map((f) => `${f.rule} ${f.message}`) };
}

describe('the classic rule table', () => {
  it('orders the elements as the writer writes them', () => {
    expect(classicRules.map((rule) => rule.name)).toEqual([...itemElements]);
  });

  it('as shipped: both items are in the standard form, cleared by the quick test, nothing to report', () => {
    expect(bothPaths(classicRules)).toEqual({ cleared: 2, findings: [] });
    expect(checkExportGeneral(file, 'x.xml', { strict: true }).findings).toEqual([]);
  });

  it.each([
    [
      'an element made required',
      changed('delay', { missing: { level: 'error', message: '<delay> is missing' } }),
      ['element-missing <delay> is missing', 'element-missing <delay> is missing'],
    ],
    [
      'another order',
      [...classicRules.filter((rule) => rule.name !== 'param'), classicRules.find((rule) => rule.name === 'param')!],
      [
        'element-order <url> comes after <param>; the standard order is from, to, in, out, amount, minfee, fromfee, tofee, minamount, maxamount, floating, delay, city, url, param',
        'element-order <city> comes after <param>; the standard order is from, to, in, out, amount, minfee, fromfee, tofee, minamount, maxamount, floating, delay, city, url, param',
      ],
    ],
    [
      'another kind of value for an element the quick test weighs with others (the city)',
      changed('city', { value: 'currency' }),
      ['currency unknown currency code "MSK" in <city> (closest known: "LSK")'],
    ],
    [
      'another kind of value for an element the quick test reads alone (the address)',
      changed('url', { value: 'number' }),
      ['number <url> "https://exchanger.example/?from=BTC&to=SBERRUB" is not a number'],
    ],
  ])('changed (%s): both paths report what the changed table says', (_, table, findings) => {
    expect(bothPaths(table).findings).toEqual(findings);
  });
});
