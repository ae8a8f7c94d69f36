// The compete step on synthetic fields (11-field dumps zipped with fflate and read by the real parser): the
// place, the step, ties, ignore and minReserve, the floor and the ceiling, cities, limits at the new rate,
// and every fallback to the normal margin.
import { describe, expect, it } from 'vitest';
import { parseFeed, type BestChangeFeed } from '../../../../src/pure/bestchange/feed.js';
import { competeDirections, type FeedState } from '../../../../src/pure/compete/price.js';
import { Decimal, formatDecimal } from '../../../../src/base/decimal.js';
import type { CompeteRule, Direction } from '../../../../src/model/config.js';
import { priceDirection } from '../../../../src/pure/pricing/price.js';
import { publishedRate } from '../../../../src/pure/pricing/published.js';
import type { Quote, QuoteBook } from '../../../../src/model/source.js';
import { competeCurrency, competeRule, competingDirection } from '../../../support/compete.js';
import { base, competeDump, dump } from '../../../support/bestchange.js';
import type { PricedDirection } from '../../../../src/model/priced.js';

const time = new Date('2026-11-21T12:00:00Z');

function book(...entries: [pair: string, bid: string, ask: string][]): QuoteBook {
  return new Map(
    entries.map(([pair, bid, ask]) => {
      const [b = '', q = ''] = pair.split('/');
      const quote: Quote = {
        pair,
        base: b,
        quote: q,
        bid: new Decimal(bid),
        ask: new Decimal(ask),
        time,
        source: 'test',
      };
      return [pair, quote];
    }),
  );
}

const currency = competeCurrency;
const BTC = currency('BTC', 'BTC', 8);
const SBER = currency('SBERRUB', 'RUB', 2);
const CASH = currency('CASHUSD', 'USD', 2);

const rule = competeRule;

const direction = competingDirection;

// Market: 1 BTC = 5,000,000 RUB (the bid); floor 0.5% → 4,975,000, ceiling 3% → 4,850,000.
const quotes = book(['BTC/RUB', '5000000', '5000100'], ['USDT/RUB', '100', '100'], ['USD/RUB', '90', '90']);

/** from;to;exchanger;give;get;reserve;reviews;unused;min;max;city — currency 1 SBERRUB, 2 BTC, 3 CASHUSD. */
function feedOf(rows: string[], cities = '1;Moscow\n2;Saint Petersburg\n'): BestChangeFeed {
  return parseFeed(
    dump({
      ...base,
      'bm_exch.dat':
        '10;Alpha;;0;1\n20;Beta;;0;1\n30;Gamma;;0;1\n40;Delta;;0;1\n50;Epsilon;;0;1\n60;MyExchanger;;0;1\n',
      'bm_cities.dat': cities,
      'bm_rates.dat': rows.join('\n'),
    }),
  );
}

const field = [
  '2;1;10;1;4960000;10000000;0.1;0;0.001;2;0', // Alpha 4,960,000
  '2;1;20;1;4950000;500;0.1;0;0.001;2;0', // Beta 4,950,000, reserve 500 RUB
  '2;1;30;1;4940000.5;20000000;0.1;0;0.001;2;0', // Gamma
  '2;1;40;1;4900000;3000000;0.1;0;0.001;2;0', // Delta
  '2;1;50;1;4800000;3000000;0.1;0;0.001;2;0', // Epsilon
];

function compete(d: Direction, state: FeedState, q: QuoteBook = quotes) {
  const margined = priceDirection(d, q);
  if ('reason' in margined) throw new Error(margined.reason);
  const result = competeDirections({ priced: [margined], book: q, feeds: new Map([['bc', state]]) });
  return { margined, result, priced: result.priced[0], detail: result.details.get(d.id)! };
}

const published = (p: PricedDirection | undefined) => {
  const form = publishedRate(p!.rate, p!.direction.from, p!.direction.to);
  return `${formatDecimal(form.in)}:${formatDecimal(form.out)}`;
};

describe('competeDirections: BTC → SBERRUB against a synthetic field', () => {
  const feed = feedOf(field);
  const fresh: FeedState = { feed, ageSeconds: 10, maxAgeSeconds: 60 };

  it.each([
    // [what, rule, published, place, basis]
    ['place 2: one step above the competitor at 2', rule(), '1:4950000.01', 2, 'place'],
    [
      'ignored by name (any case) and id',
      rule({ ignoreNames: new Set(['alpha']), ignoreIds: new Set([20]) }),
      '1:4900000.01',
      2,
      'place',
    ],
    [
      'a smaller reserve does not count',
      rule({ minReserve: { value: new Decimal(1000), asset: 'RUB' } }),
      '1:4940000.51',
      2,
      'place',
    ],
    [
      'minReserve in another asset, converted through the quotes (10 USDT = 1,000 RUB)',
      rule({ minReserve: { value: new Decimal(10), asset: 'USDT' } }),
      '1:4940000.51',
      2,
      'place',
    ],
    ['step 0.01% better than the competitor', rule({ step: new Decimal('0.0001') }), '1:4950495', 2, 'place'],
    ['place 1', rule({ worst: 1, best: 1, target: '1' }), '1:4960000.01', 1, 'place'],
    ['a range holds its worst place', rule({ best: 1, worst: 3, target: '1-3' }), '1:4940000.51', 3, 'place'],
    [
      'the floor wins over the place; the tie at the floor ranks behind',
      rule({ worst: 1, floor: new Decimal('0.01') }),
      '1:4950000',
      3,
      'floor',
    ],
    ['fewer competitors than the place: the ceiling', rule({ worst: 10 }), '1:4850000', 5, 'ceiling'],
    ['the place needs less than the ceiling gives: the ceiling', rule({ worst: 5 }), '1:4850000', 5, 'ceiling'],
  ])('%s', (_what, r, rate, place, basis) => {
    const { priced, detail } = compete(direction(BTC, SBER, r), fresh);
    expect(published(priced)).toBe(rate);
    expect(priced?.compete).toMatchObject({ place, basis, target: r.target, feedAgeSeconds: 10 });
    expect(detail.outcome).toEqual(priced?.compete);
  });

  it('says a clamp of a rate below 1 in the form it is published in, from per to (X:1)', () => {
    // SBERRUB → BTC at 1 ÷ 5,000,100; Alpha gives 1 BTC for 5,010,000 RUB, cheaper than the 1% floor allows.
    const give = feedOf(['1;2;10;5010000;1;5;0.1;0;1000;1000000;0', '1;2;20;5100000;1;5;0.1;0;1000;1000000;0']);
    const { priced } = compete(direction(SBER, BTC, rule({ worst: 1, floor: new Decimal('0.01') })), {
      feed: give,
      ageSeconds: 10,
      maxAgeSeconds: 60,
    });
    expect(priced?.compete?.reason).toBe(
      'the field is cheaper than the floor: place 1 needs 5009999.99 SBERRUB per BTC, the floor allows 5050606.07 SBERRUB per BTC (market ÷ (1 − 1%))',
    );
  });

  it('says why it clamps, and counts the competitors', () => {
    expect(
      compete(direction(BTC, SBER, rule({ worst: 1, floor: new Decimal('0.01') })), fresh).priced?.compete,
    ).toEqual({
      target: '1',
      place: 3,
      competitors: 5,
      basis: 'floor',
      reason:
        'the field is cheaper than the floor: place 1 needs 4960000.01, the floor allows 4950000 (market × (1 − 1%))',
      feedAgeSeconds: 10,
    });
    expect(compete(direction(BTC, SBER, rule({ worst: 10 })), fresh).priced?.compete?.reason).toBe(
      '5 competitors counted, fewer than place 10: the ceiling',
    );
  });

  it('no rows at all for the codes: the ceiling, and the reason says to check the codes', () => {
    const { priced } = compete(direction(BTC, { ...SBER, code: 'SBERRUB2' }, rule()), fresh);
    expect(published(priced)).toBe('1:4850000');
    expect(priced?.compete?.reason).toBe(
      'the feed has no rows for BTC → SBERRUB2 (codes as in bm_cycodes.dat): the ceiling',
    );
  });

  it("by API v2 the reason names v2's currencies list, not info.zip's file", () => {
    const v2: FeedState = { ...fresh, feed: { ...feed, order: 'rankrate' } };
    const { priced } = compete(direction(BTC, { ...SBER, code: 'SBERRUB2' }, rule()), v2);
    expect(published(priced)).toBe('1:4850000');
    expect(priced?.compete?.reason).toBe(
      "the feed has no rows for BTC → SBERRUB2 (codes as in API v2's currencies list): the ceiling",
    );
  });

  it('follows the competitor above down: when it worsens, so does the rate', () => {
    const worse = feedOf(field.map((row) => row.replace(';4950000;', ';4930000;')));
    expect(published(compete(direction(BTC, SBER, rule()), { feed: worse }).priced)).toBe('1:4940000.51');
  });

  it('publishes the limits at the compete rate, not the margin rate', () => {
    const d = direction(BTC, SBER, rule(), { max: { value: new Decimal('1000000'), asset: 'RUB' } });
    const { priced, margined } = compete(d, fresh);
    // 1,000,000 RUB at 4,950,000.01 RUB per BTC is 0.20202020… BTC, rounded down.
    expect(formatDecimal(priced!.published.limits.max)).toBe('0.2020202');
    expect(formatDecimal(margined.published.limits.max)).toBe('0.20408163'); // at the 2% margin's 4,900,000
  });
});

describe('the in side: SBERRUB → BTC', () => {
  it('one step of the from currency better than the competitor, written give:get', () => {
    // Market: 1 RUB = 1/5,000,100 BTC; competitors ask 5,040,000 and 5,060,000.5 RUB for 1 BTC.
    const feed = feedOf([
      '1;2;10;5040000;1;5;0.1;0;1000;100000;0',
      '1;2;20;5060000.5;1;5;0.1;0;1000;100000;0',
      '1;2;30;5100000;1;5;0.1;0;1000;100000;0',
    ]);
    const { priced } = compete(direction(SBER, BTC, rule()), { feed });
    expect(published(priced)).toBe('5060000.49:1');
    expect(priced?.compete).toMatchObject({ place: 2, basis: 'place' });
  });
});

describe('cash: one rate for every city, holding the place in each', () => {
  // SBERRUB → CASHUSD at market 1/90 USD per RUB: in Moscow the second gives 1 USD for 91.5 RUB, in St Petersburg for 92.
  const feed = feedOf([
    '1;3;10;91;1;50000;0.1;0;1000;100000;1',
    '1;3;20;91.5;1;50000;0.1;0;1000;100000;1',
    '1;3;30;91.2;1;50000;0.1;0;1000;100000;2',
    '1;3;40;92;1;50000;0.1;0;1000;100000;2',
    '1;3;50;89;1;50000;0.1;0;1000;100000;0', // not cash in a city: another field
  ]);

  it('takes the city that needs the most, and reports the worst place', () => {
    const d = direction(SBER, CASH, rule(), { cities: ['MSK', 'SPB'] });
    const { priced, detail } = compete(d, { feed });
    expect(published(priced)).toBe('91.49:1');
    expect(detail.fields.map((f) => [f.city, f.counted.length, f.place])).toEqual([
      ['MSK', 2, 2],
      ['SPB', 2, 2],
    ]);
    expect(priced?.compete).toMatchObject({ place: 2, competitors: 2, basis: 'place' });
  });

  it('a city with fewer competitors than the place does not push the rate up', () => {
    const d = direction(SBER, CASH, rule({ worst: 2 }), { cities: ['MSK', 'VVO'] });
    const { priced, detail } = compete(d, { feed });
    expect(published(priced)).toBe('91.49:1');
    expect(detail.fields.map((f) => [f.city, f.counted.length, f.place])).toEqual([
      ['MSK', 2, 2],
      ['VVO', 0, 1],
    ]);
  });
});

describe('fallback: the normal margin when the field is not trusted', () => {
  const d = direction(BTC, SBER, rule());
  it.each([
    [
      'no feed (the source failed with no stand-in)',
      { error: 'bc: GET /info.zip: HTTP 503' },
      'feed bc has no data: bc: GET /info.zip: HTTP 503',
    ],
    [
      'a feed older than its maxAge',
      { feed: feedOf(field), ageSeconds: 200, maxAgeSeconds: 60 },
      'feed bc is 200 s old (limit 60 s)',
    ],
    [
      'the median of the top five far from the market',
      {
        feed: feedOf(
          field.map((row) =>
            row.replace(/;(4\d{6}(\.\d+)?);/, (_m, rate: string) => `;${new Decimal(rate).times('0.85').toFixed()};`),
          ),
        ),
      },
      'the median of the top 5 competitors, 4199000.425, is 16.02% from the market 5000000 (limit 10%)',
    ],
  ] satisfies [string, FeedState, string][])('%s', (_what, state, reason) => {
    const { priced, margined } = compete(d, state);
    expect(priced?.rate).toBe(margined.rate);
    expect(priced?.compete).toMatchObject({ basis: 'fallback', reason });
  });

  it('a minReserve the quotes cannot convert', () => {
    const { priced, margined } = compete(
      direction(BTC, SBER, rule({ minReserve: { value: new Decimal(5), asset: 'ETH' } })),
      { feed: feedOf(field) },
    );
    expect(priced?.rate).toBe(margined.rate);
    expect(priced?.compete).toMatchObject({
      basis: 'fallback',
      reason: 'cannot convert minReserve 5 ETH to RUB: no quotes',
    });
  });

  it('a deviation inside the limit is trusted', () => {
    expect(compete(d, { feed: feedOf(field) }).priced?.compete?.basis).toBe('place');
  });
});

describe("the README's worked example (the field of test/support's competeDump)", () => {
  const feed = parseFeed(competeDump());
  const worked = (extra: Partial<CompeteRule>) =>
    compete(direction(BTC, SBER, rule({ ignore: ['Alpha'], ignoreNames: new Set(['alpha']), ...extra })), { feed })
      .priced;
  it.each([
    ['place 2', {}, '1:4940000.51', 2, 'place'],
    ['step 0.01%, rounded against the client', { step: new Decimal('0.0001') }, '1:4940494.5', 2, 'place'],
    [
      'place 1 with a floor of 1%',
      { worst: 1, best: 1, target: '1', floor: new Decimal('0.01') },
      '1:4950000',
      2,
      'floor',
    ],
  ] satisfies [string, Partial<CompeteRule>, string, number, string][])('%s', (_what, extra, rate, place, basis) => {
    const priced = worked(extra);
    expect(published(priced)).toBe(rate);
    expect(priced?.compete).toMatchObject({ place, basis });
  });
});
