import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import { directionText, templateText } from '../../../../src/pure/exports/classic-text.js';
import type { ExportTemplate } from '../../../../src/model/config.js';
import { testCurrency, testDirection } from '../../../support/model.js';

const BTC = testCurrency('BTC', 'BTC', 8);
const ETH = testCurrency('ETH', 'ETH', 8);
const CASH = testCurrency('CASHRUB', 'RUB', 0);

describe('the classic text kept across builds', () => {
  it('is references to text shared by directions alike, with neither codes nor url in it', () => {
    const btc = testDirection(BTC, CASH, { cities: ['MSK', 'SPB'], params: ['verifying'] as never });
    const eth = testDirection(ETH, CASH, { cities: ['MSK', 'SPB'], params: ['verifying'] as never });
    const [a, b] = [directionText(btc), directionText(eth)];
    expect(a).not.toBe(b);
    expect(b.item).toBe(a.item);
    expect(a.item.tails).toEqual([
      '\n    <param>verifying</param>\n    <city>MSK</city>',
      '\n    <param>verifying</param>\n    <city>SPB</city>',
    ]);
    expect(JSON.stringify(a.item)).not.toMatch(/BTC|CASHRUB|url/);
    // Asked again for the same object: the same entry, made once.
    expect(directionText(btc)).toBe(a);
  });

  it('makes a copied direction its own entry, and a reserve read from a source its own text', () => {
    const direction = testDirection(BTC, CASH);
    const first = directionText(direction);
    const read = directionText({ ...direction, reserveSource: 'bank', reserve: new Decimal('700') });
    expect(read).not.toBe(first);
    expect(read.item.amount).toBe('\n    <amount>700</amount>');
    const again = directionText({ ...direction, reserveSource: 'bank', reserve: new Decimal('700') });
    expect(again.item).not.toBe(read.item);
  });

  it('gives each template its codes after aliases, once per code', () => {
    const template = { name: 't', file: 't.xml', aliases: { BTC: 'BTC&' }, url: 'https://x/?a={from}&b' };
    const texts = templateText(template as unknown as ExportTemplate);
    expect(texts.from('BTC')).toEqual({ text: '\n  <item>\n    <from>BTC&amp;</from>' });
    expect(texts.from('BTC')).toBe(texts.from('BTC'));
    expect(texts.to('ETH')).toEqual({ text: '\n    <to>ETH</to>' });
    expect(texts.url?.('X&', 'Y', '')).toBe('https://x/?a=X%26&amp;b');
    // A pattern XML 1.0 cannot hold refuses every item with a url (the writer names the element).
    const spoilt = templateText({ ...template, url: 'https://x/\u0001{from}' } as unknown as ExportTemplate);
    expect(spoilt.url).toBeNull();
  });
});
