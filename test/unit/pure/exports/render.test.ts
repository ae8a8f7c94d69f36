// The classic writer's item path (renderClassic) against the oracle: byte-identical to xmlbuilder2 on randomized items.
import { describe, expect, it } from 'vitest';
import { isRatefileError } from '../../../../src/base/errors.js';
import { renderClassic } from '../../../../src/pure/exports/classic.js';
import { renderWithXmlbuilder2 } from '../../../support/xmlbuilder2.js';
import { random } from '../../../support/random.js';
import { xmlErrors } from '../../../support/xml.js';
import { itemElements, type ExportItem, type ExportModel } from '../../../../src/model/items.js';

// Text that needs escaping, entity look-alikes, quotes, non-ASCII and astral characters, all legal in XML 1.0.
const alphabet = [
  'A',
  'z',
  '0',
  '9',
  '.',
  ' ',
  '&',
  '<',
  '>',
  '"',
  "'",
  '&amp;',
  '&lt;',
  '&#38;',
  '&copy;',
  ']]>',
  'é',
  'Ж',
  '€',
  '𝄞',
  '\t',
  '%',
  '{',
  '/',
];

function randomText(next: () => number): string {
  const length = 1 + Math.floor(next() * 12);
  return Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
}

function randomItem(next: () => number): ExportItem {
  const item: Record<string, string> = {};
  for (const name of itemElements) {
    const required = ['from', 'to', 'in', 'out', 'amount'].includes(name);
    if (required || next() < 0.5) item[name] = randomText(next);
  }
  return item as unknown as ExportItem;
}

/** The writer's bytes as text, for readable differences. */
const rendered = (model: ExportModel) => renderClassic(model).toString('utf8');

describe('renderClassic against renderWithXmlbuilder2 (the oracle)', () => {
  it('writes the same bytes for 2,500 randomized items (across many of its 128-item chunks), including text that needs escaping', async () => {
    const next = random(20261121);
    const model: ExportModel = {
      name: 'r',
      file: 'r.xml',
      items: Array.from({ length: 2500 }, () => randomItem(next)),
    };
    expect(renderClassic(model).equals(Buffer.from(renderWithXmlbuilder2(model), 'utf8'))).toBe(true);
    const fast = rendered(model);
    expect(fast).toBe(renderWithXmlbuilder2(model));
    expect(await xmlErrors(fast)).toEqual([]);
  });

  it('writes the same bytes item by item, so a difference names its item', () => {
    const next = random(7);
    for (let index = 0; index < 200; index++) {
      const model: ExportModel = { name: 'r', file: 'r.xml', items: [randomItem(next)] };
      expect(rendered(model), `item ${index}`).toBe(renderWithXmlbuilder2(model));
    }
  });

  it('writes the same bytes for an empty export', () => {
    const model: ExportModel = { name: 'e', file: 'e.xml', items: [] };
    expect(rendered(model)).toBe(renderWithXmlbuilder2(model));
  });

  it('keeps entity look-alikes as text: "&amp;" and "&copy;" read back unchanged (xmlbuilder2 alone would not escape them)', async () => {
    const model: ExportModel = {
      name: 'x',
      file: 'x.xml',
      items: [{ from: 'A&amp;B', to: 'C&copy;', in: '1', out: '1', amount: '1' }],
    };
    const xml = rendered(model);
    expect(xml).toContain('<from>A&amp;amp;B</from>');
    expect(xml).toContain('<to>C&amp;copy;</to>');
    expect(await xmlErrors(xml)).toEqual([]);
  });

  it.each([
    ['a C0 control', 'M\u0001SK'],
    ['a lone high surrogate', 'M\uD800SK'],
    ['a lone low surrogate', 'M\uDC00SK'],
    ['U+FFFE', 'M\uFFFESK'],
    ['NUL', 'M\u0000SK'],
  ])('refuses %s with an error naming the file, item and element; the reference refuses it too', (_, city) => {
    const plain: ExportItem = { from: 'BTC', to: 'CASHRUB', in: '1', out: '2', amount: '3' };
    // In a later chunk of the writer than the first, so the item's number is counted across chunks.
    const model: ExportModel = {
      name: 'x',
      file: 'x.xml',
      items: [...Array.from({ length: 1500 }, () => plain), { ...plain, city }],
    };
    let caught: unknown;
    try {
      rendered(model);
    } catch (error) {
      caught = error;
    }
    expect(isRatefileError(caught, 'E_RENDER')).toBe(true);
    expect((caught as Error).message).toBe('x.xml: cannot render: item 1501 <city> has a character XML 1.0 forbids');
    expect(() => renderWithXmlbuilder2(model)).toThrow(/x\.xml: cannot render/);
  });
});
