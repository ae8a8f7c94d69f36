// The compete step against a hostile feed (issue 23): rivals at rates so large (or so small) that one published
// step is lost in rounding at Decimal's 40 significant digits. The step used to loop for ever looking for a form
// that beats them; now the search is bounded and such a field prices at the normal margin, with the reason.
import { describe, expect, it } from 'vitest';
import { parseFeed, type BestChangeFeed } from '../../../../src/pure/bestchange/feed.js';
import { competeLines } from '../../../../src/pure/compete/explain.js';
import { atOrBelow, beyond, MAX_STEPS_UP } from '../../../../src/pure/compete/grid.js';
import { competeDirections, type FeedState } from '../../../../src/pure/compete/price.js';
import { Decimal, formatDecimal } from '../../../../src/base/decimal.js';
import type { CompeteRule, Currency, Direction } from '../../../../src/model/config.js';
import { priceDirection } from '../../../../src/pure/pricing/price.js';
import { publishedRate } from '../../../../src/pure/pricing/published.js';
import type { Quote, QuoteBook } from '../../../../src/model/source.js';
import { competeCurrency, competeRule, competingDirection } from '../../../support/compete.js';
import { base, dump } from '../../../support/bestchange.js';

const time = new Date('2026-11-21T12:00:00Z');
const quote = (pair: string, bid: string, ask: string): [string, Quote] => {
  const [b = '', q = ''] = pair.split('/');
  return [pair, { pair, base: b, quote: q, bid: new Decimal(bid), ask: new Decimal(ask), time, source: 'test' }];
};
// 1 BTC = 5,000,000 RUB; 1 USDT = 100 RUB.
const quotes: QuoteBook = new Map([quote('BTC/RUB', '5000000', '5000100'), quote('USDT/RUB', '100', '100')]);

const currency = competeCurrency;
const BTC = currency('BTC', 'BTC', 8);
const SBER = currency('SBERRUB', 'RUB', 2);
const USDT = currency('USDTTRC20', 'USDT', 4);

const rule = (worst: number): CompeteRule => competeRule({ worst });

const direction = (from: Currency, to: Currency, worst: number): Direction => competingDirection(from, to, rule(worst));

/** from;to;exchanger;give;get;reserve;reviews;unused;min;max;city — currency 1 SBERRUB, 2 BTC, 4 USDTTRC20. */
function feedOf(rows: string[]): BestChangeFeed {
  const exchangers = Array.from({ length: 9 }, (_, i) => `${i + 1};Exchanger${i + 1};;0;1`).join('\n');
  return parseFeed(
    dump({
      ...base,
      'bm_cycodes.dat': '1;SBERRUB\n2;BTC\n4;USDTTRC20\n',
      'bm_exch.dat': exchangers,
      'bm_rates.dat': rows.join('\n'),
    }),
  );
}
const row = (from: number, to: number, exchanger: number, give: string, get: string) =>
  `${from};${to};${exchanger};${give};${get};1000000000;0.1;0;0.001;2;0`;

const digits39 = '123456789012345678901234567890123456789';
const e39 = `1${'0'.repeat(39)}`;

function compete(d: Direction, feed: BestChangeFeed) {
  const margined = priceDirection(d, quotes);
  if ('reason' in margined) throw new Error(margined.reason);
  const state: FeedState = { feed, ageSeconds: 5 };
  const result = competeDirections({ priced: [margined], book: quotes, feeds: new Map([['bc', state]]) });
  return { margined, priced: result.priced[0], detail: result.details.get(d.id)! };
}

describe('a field no published step can beat: the normal margin, with the reason, never a loop', () => {
  it('two rivals at a 39-digit rate (BTC → SBERRUB, place 2): one kopeck more is lost at 40 digits', () => {
    const feed = feedOf([
      row(2, 1, 1, '1', digits39),
      row(2, 1, 2, '1', digits39),
      row(2, 1, 3, '1', '4960000'),
      row(2, 1, 4, '1', '4950000'),
      row(2, 1, 5, '1', '4940000'),
    ]);
    const d = direction(BTC, SBER, 2);
    const { priced, margined, detail } = compete(d, feed);
    expect(priced?.rate).toBe(margined.rate);
    expect(priced?.compete).toMatchObject({
      basis: 'fallback',
      reason:
        'no published rate beats the competitor at place 2, 123456789012350000000000000000000000000…: one published step more is lost in rounding: that form would need more than 40 significant digits',
    });
    // The median of the top five (4,960,000) is trusted: the rival, not the median, is why.
    expect(detail.fields[0]?.median?.toString()).toBe('4960000');
    expect(detail.fields[0]?.needed).toBeUndefined();
    const lines = competeLines(detail, d).join('\n');
    expect(lines).toMatch(
      /^ {2}Target: the competitor at place 2 gives 123456789012350{25}… SBERRUB per BTC; better by 0%: 123456789012350{25}… SBERRUB per BTC; no published rate beats it: one published step more is lost in rounding/m,
    );
    expect(lines).toMatch(
      /^ {2}NOT TRUSTED: no published rate beats the competitor at place 2, .*; priced at the normal margin 2%: 4900000$/m,
    );
  });

  it('five rivals at 1e39: the median is not trusted, and the rival is still found unbeatable without a loop', () => {
    const feed = feedOf([1, 2, 3, 4, 5].map((id) => row(2, 1, id, '1', e39)));
    const { priced, margined, detail } = compete(direction(BTC, SBER, 1), feed);
    expect(priced?.rate).toBe(margined.rate);
    expect(priced?.compete).toMatchObject({
      basis: 'fallback',
      reason: `the median of the top 5 competitors, ${e39}, is ${formatDecimal(new Decimal(e39).minus(5_000_000).div(5_000_000).times(100).toDecimalPlaces(2))}% from the market 5000000 (limit 10%)`,
    });
    expect(detail.fields[0]?.unbeatable).toMatch(/lost in rounding/);
  });

  it('a USDT rival at 1e39 per RUB (SBERRUB → USDTTRC20, place 1) among ordinary ones', () => {
    const feed = feedOf([
      row(1, 4, 1, '1', e39),
      row(1, 4, 2, '101', '1'),
      row(1, 4, 3, '101.5', '1'),
      row(1, 4, 4, '102', '1'),
      row(1, 4, 5, '103', '1'),
    ]);
    const { priced, margined } = compete(direction(SBER, USDT, 1), feed);
    expect(priced?.rate).toBe(margined.rate);
    expect(publishedRate(priced!.rate, SBER, USDT).in.toString()).toBe('102.05'); // 100 ÷ 0.98 RUB per USDT, rounded against the client at SBERRUB's 2 places
    expect(priced?.compete).toMatchObject({
      basis: 'fallback',
      reason: `no published rate beats the competitor at place 1, ${e39}: one published step more is lost in rounding: that form would need more than 40 significant digits`,
    });
  });

  it('the in side: a rival asking 1e39 RUB for a BTC (SBERRUB → BTC, place 6): one step off the give is lost too', () => {
    const ordinary = ['5040000', '5050000', '5060000', '5070000', '5080000'].map((give, i) =>
      row(1, 2, i + 1, give, '1'),
    );
    const { priced, margined } = compete(direction(SBER, BTC, 6), feedOf([...ordinary, row(1, 2, 6, e39, '1')]));
    expect(priced?.rate).toBe(margined.rate);
    expect(priced?.compete).toMatchObject({
      basis: 'fallback',
      reason: expect.stringMatching(
        /^no published rate beats the competitor at place 6, 0\.000000000000000000000000000000000000001: one published step more is lost in rounding/,
      ),
    });
  });

  it('a rate of 1e79 (1e39 for a give of 1e-40), past anything 40 digits hold: the same fallback', () => {
    const tiny = `0.${'0'.repeat(39)}1`;
    const feed = feedOf([
      row(2, 1, 1, tiny, e39),
      row(2, 1, 2, '1', '4960000'),
      row(2, 1, 3, '1', '4950000'),
      row(2, 1, 4, '1', '4940000'),
      row(2, 1, 5, '1', '4930000'),
    ]);
    const { priced, margined } = compete(direction(BTC, SBER, 1), feed);
    expect(priced?.rate).toBe(margined.rate);
    expect(priced?.compete).toMatchObject({
      basis: 'fallback',
      reason: `no published rate beats the competitor at place 1, 1${'0'.repeat(79)}: one published step more is lost in rounding: that form would need more than 40 significant digits`,
    });
  });

  it('an ordinary field is unchanged: one step above the competitor at the place', () => {
    const feed = feedOf([row(2, 1, 1, '1', '4960000'), row(2, 1, 2, '1', '4950000'), row(2, 1, 3, '1', '4940000')]);
    const { priced } = compete(direction(BTC, SBER, 2), feed);
    expect(priced?.compete?.basis).toBe('place');
    expect(publishedRate(priced!.rate, BTC, SBER).out.toString()).toBe('4950000.01');
  });
});

describe('beyond: the search for a form that beats a row is bounded', () => {
  const competitor = { exchangerId: 1, exchanger: 'Exchanger1', give: '1', get: '4950000', reserve: '1' };

  it('finds the step above a tie', () => {
    expect(beyond(atOrBelow(new Decimal('4950000'), BTC, SBER), competitor, BTC, SBER)).toEqual({
      in: new Decimal(1),
      out: new Decimal('4950000.01'),
    });
  });

  it(`gives up after ${MAX_STEPS_UP} steps rather than walking up from far below`, () => {
    const result = beyond(atOrBelow(new Decimal('4900000'), BTC, SBER), competitor, BTC, SBER);
    expect(result).toEqual({
      unbeatable: `${MAX_STEPS_UP} published steps above the target still do not beat it at 40 significant digits`,
    });
  });

  it('stops at once when a step is lost in rounding', () => {
    const huge = { ...competitor, get: e39 };
    expect(beyond(atOrBelow(new Decimal(e39), BTC, SBER), huge, BTC, SBER)).toEqual({
      unbeatable: 'one published step more is lost in rounding: that form would need more than 40 significant digits',
    });
  });
});
