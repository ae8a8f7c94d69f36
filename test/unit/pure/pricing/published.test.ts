// What a direction publishes is made in one place (src/pure/pricing/published.ts) and read by everyone: pricing makes it
// without a markup, compete remakes it at its rate, and every export publishes exactly that object (or the one its
// markup's publisher made once), never a second computation of its own.
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../../../src/pure/bestchange/feed.js';
import { competeDirections } from '../../../../src/pure/compete/price.js';
import { Decimal, formatDecimal } from '../../../../src/base/decimal.js';
import { exportWalker } from '../../../../src/pure/exports/select.js';
import type { ExportTemplate } from '../../../../src/model/config.js';
import type { PricedDirection, PublishedLimits, RateEntry } from '../../../../src/model/priced.js';
import { priceDirections } from '../../../../src/pure/pricing/price.js';
import { limitsAt, publicationAt, publishedRate, publisherAt } from '../../../../src/pure/pricing/published.js';
import type { QuoteBook } from '../../../../src/model/source.js';
import { base, dump } from '../../../support/bestchange.js';
import { competeRule } from '../../../support/compete.js';
import { quoteBook, testCurrency, testDirection } from '../../../support/model.js';

const time = new Date('2026-11-21T12:00:00Z');

const book = (...rows: [pair: string, bid: string, ask: string][]): QuoteBook => quoteBook(time, 't', ...rows);

const currency = testCurrency;

const BTC = currency('BTC', 'BTC', 8);
const SBER = currency('SBERRUB', 'RUB', 2);
const TCSB = currency('TCSBRUB', 'RUB', 2);

const direction = testDirection;

const template = (file: string, markup: string): ExportTemplate => ({
  name: file,
  file,
  format: 'classic',
  excludeTags: [],
  aliases: {},
  markup: new Decimal(markup),
});

const quotes = book(['BTC/RUB', '5000000', '5000100']);

/** Each visit of each export: the direction and the very objects it was given. */
function walkAll(priced: readonly PricedDirection[], templates: ExportTemplate[]) {
  const walk = exportWalker(priced, templates);
  return templates.map((_, index) => {
    const visits = new Map<string, { rate: RateEntry; limits: PublishedLimits }>();
    const withheld = walk(index, (p, rate, limits) => {
      visits.set(p.direction.id, { rate, limits });
      return undefined;
    });
    return { visits, withheld };
  });
}

describe('a direction’s publication, made once and read by every export', () => {
  // Alike: the same chain, margin, precisions and limits; only the to currency's code differs.
  const alike = [direction(BTC, SBER), direction(BTC, TCSB)];
  const { priced } = priceDirections(alike, quotes);
  const templates = [
    template('a.xml', '0'),
    template('b.xml', '0.01'),
    template('c.xml', '0'),
    template('d.xml', '0.01'),
  ];

  it('is the publication at the direction’s rate, shared by directions priced alike', () => {
    const [sber, tcsb] = priced as [PricedDirection, PricedDirection];
    const form = publishedRate(sber.rate, BTC, SBER);
    expect(sber.published.rate).toEqual({ in: formatDecimal(form.in), out: formatDecimal(form.out), form });
    expect(sber.published.limits).toEqual(limitsAt(sber.direction, sber.terms, form));
    expect(tcsb.published).toBe(sber.published);
  });

  it('is what an export without a markup publishes, the very object', () => {
    const [a, , c] = walkAll(priced, templates);
    for (const p of priced)
      for (const walked of [a!, c!]) {
        expect(walked.visits.get(p.direction.id)?.rate).toBe(p.published.rate);
        expect(walked.visits.get(p.direction.id)?.limits).toBe(p.published.limits);
      }
  });

  it('is made once per markup: exports with one markup and directions alike get one object, at rate × (1 − markup)', () => {
    const [, b, , d] = walkAll(priced, templates);
    const [sber, tcsb] = priced as [PricedDirection, PricedDirection];
    const atMarkup = publicationAt(sber.direction, sber.terms, sber.rate.times('0.99'));
    if ('reason' in atMarkup) throw new Error(atMarkup.reason);
    const first = b!.visits.get(sber.direction.id)!;
    expect(first).toEqual(atMarkup);
    expect(first.rate).not.toBe(sber.published.rate);
    expect(d!.visits.get(sber.direction.id)).toEqual(first);
    expect(d!.visits.get(sber.direction.id)?.rate).toBe(first.rate);
    expect(b!.visits.get(tcsb.direction.id)?.limits).toBe(first.limits);
  });

  it('refuses at a markup where the limits cross: left out of that export alone, once', () => {
    // 0.001 BTC buys 4,900 RUB at the rate; a 4,880 RUB minimum still fits, but not at a 1% markup's 4,851.
    const tight = direction(BTC, SBER, {
      min: { value: new Decimal('4880'), asset: 'RUB' },
      max: { value: new Decimal('0.001'), asset: 'BTC' },
    });
    const { priced: one } = priceDirections([tight], quotes);
    expect(one).toHaveLength(1);
    const publish = publisherAt(new Decimal('0.01'));
    const refused = publish(one[0]!);
    expect(refused).toEqual({
      kind: 'limits',
      reason: 'minimum 0.00100598 BTC is above the maximum 0.001 BTC',
    });
    expect(publish(one[0]!)).toBe(refused);
    const [, b] = walkAll(one, templates);
    expect(b!.withheld.map((w) => w.reason)).toEqual(['b.xml: minimum 0.00100598 BTC is above the maximum 0.001 BTC']);
  });
});

describe('a competing direction’s publication', () => {
  it('is remade at the compete rate, and that is what its exports publish', () => {
    const rule = competeRule({ worst: 1, target: '1' });
    const d = direction(BTC, SBER, { compete: rule, max: { value: new Decimal('1000000'), asset: 'RUB' } });
    const margined = priceDirections([d], quotes).priced[0]!;
    // One competitor at 4,960,000 RUB per BTC: place 1 needs one step more.
    const feed = parseFeed(
      dump({
        ...base,
        'bm_exch.dat': '10;Alpha;;0;1\n',
        'bm_cities.dat': '',
        'bm_rates.dat': '2;1;10;1;4960000;10000000;0.1;0;0.001;2;0',
      }),
    );
    const { priced } = competeDirections({ priced: [margined], book: quotes, feeds: new Map([['bc', { feed }]]) });
    const competed = priced[0]!;
    expect(competed.compete?.basis).toBe('place');
    expect(competed.published.rate.out).toBe('4960000.01');
    expect(competed.published).toEqual(publicationAt(d, competed.terms, competed.rate));
    // 1,000,000 RUB at 4,960,000.01 RUB per BTC, rounded down to 8 places.
    expect(competed.published.limits.max.toFixed()).toBe('0.2016129');
    const [a] = walkAll(priced, [template('a.xml', '0')]);
    expect(a!.visits.get(d.id)?.rate).toBe(competed.published.rate);
    expect(a!.visits.get(d.id)?.limits).toBe(competed.published.limits);
  });
});
