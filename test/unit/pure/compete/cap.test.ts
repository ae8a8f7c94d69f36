// The cap against outliers (src/pure/compete/cap.ts) and `self:` on synthetic fields read by the real parser: one broken
// competitor far ahead does not pull the rate past the best of the rest + k typical steps, the typical step is
// the lower median of the top ten's gaps, and the exchanger's own rows are never counted.
import { describe, expect, it } from 'vitest';
import { competitors, parseFeed, type BestChangeFeed } from '../../../../src/pure/bestchange/feed.js';
import { typicalStep } from '../../../../src/pure/compete/cap.js';
import { competeLines } from '../../../../src/pure/compete/explain.js';
import { competeDirections } from '../../../../src/pure/compete/price.js';
import { Decimal, formatDecimal, roundDown } from '../../../../src/base/decimal.js';
import type { CompeteRule } from '../../../../src/model/config.js';
import { priceDirection } from '../../../../src/pure/pricing/price.js';
import type { Quote, QuoteBook } from '../../../../src/model/source.js';
import { base, dump } from '../../../support/bestchange.js';
import { competeCurrency, competeRule, competingDirection } from '../../../support/compete.js';

const time = new Date('2026-11-21T12:00:00Z');
const quote: Quote = {
  pair: 'BTC/RUB',
  base: 'BTC',
  quote: 'RUB',
  bid: new Decimal(5000000),
  ask: new Decimal(5000000),
  time,
  source: 'test',
};
const plainBook: QuoteBook = new Map([['BTC/RUB', quote]]);
/** With USDT too: BestChange's rankrate is taken at $300, through the quotes. */
const usdtBook: QuoteBook = new Map([
  ['BTC/RUB', quote],
  ['USDT/RUB', { ...quote, pair: 'USDT/RUB', base: 'USDT', bid: new Decimal(90), ask: new Decimal(90) }],
]);
const BTC = competeCurrency('BTC', 'BTC', 8);
const SBER = competeCurrency('SBERRUB', 'RUB', 2);

/** BTC → SBERRUB rows by exchanger id: `[id, rate]`. */
function feedOf(rows: [number, string][]): BestChangeFeed {
  return parseFeed(
    dump({
      ...base,
      'bm_exch.dat': rows.map(([id]) => `${id};X${id};;0;1`).join('\n'),
      'bm_rates.dat': rows.map(([id, rate]) => `2;1;${id};1;${rate};90000000;0.1;0;0.001;2;0`).join('\n'),
    }),
  );
}

function compete(rule: CompeteRule, feed: BestChangeFeed, book = plainBook) {
  const margined = priceDirection(competingDirection(BTC, SBER, rule), book);
  if ('reason' in margined) throw new Error(margined.reason);
  const result = competeDirections({ priced: [margined], book, feeds: new Map([['bc', { feed, ageSeconds: 1 }]]) });
  const priced = result.priced[0]!;
  return { rate: formatDecimal(priced.rate), outcome: priced.compete!, detail: result.details.get('BTC>SBERRUB')! };
}

// A broken competitor (X1) at 4,990,000, further ahead of the field than the floor (0.5%: 4,975,000) lets us go;
// the rest 1,000 apart from 4,900,000 down.
const broken: [number, string][] = [
  [1, '4990000'],
  [2, '4900000'],
  [3, '4899000'],
  [4, '4898000'],
  [5, '4897000'],
  [6, '4896000'],
];

describe('the cap against outliers', () => {
  it('the typical step is the lower median of the gaps between distinct rates of the top ten', () => {
    const ranked = (rates: string[]) =>
      competitors(feedOf(rates.map((rate, i) => [i + 1, rate])), 'BTC', 'SBERRUB').map((c) => ({ ...c }));
    // Gaps 90,000, 1,000 ×4: the median 1,000.
    expect(typicalStep(ranked(broken.map(([, rate]) => rate)))?.toString()).toBe('1000');
    // Two gaps, 100 and 10: the smaller middle one, so three competitors with one outlier are guarded too.
    expect(typicalStep(ranked(['1100', '1000', '990']))?.toString()).toBe('10');
    // Ties make no gap; one rate makes no step.
    expect(typicalStep(ranked(['1000', '1000', '990', '990', '960']))?.toString()).toBe('10');
    expect(typicalStep(ranked(['1000', '1000']))).toBeUndefined();
    // Only the best ten count: the eleventh's gap of 500 is not among them.
    const eleven = [...Array.from({ length: 10 }, (_, i) => String(2000 - i * 3)), '1473'];
    expect(typicalStep(ranked(eleven))?.toString()).toBe('3');
  });

  it('a broken competitor far ahead does not pull the rate past the best of the rest + k typical steps', () => {
    const feed = feedOf(broken);
    // Without the cap, the old behaviour: place 1 needs more than the floor, so the rate sits on the floor.
    const classic = compete(competeRule({ worst: 1 }), feed);
    expect(classic).toMatchObject({ rate: '4975000', outcome: { basis: 'floor', place: 2 } });

    for (const k of ['2', '0.5', '5']) {
      const { rate, outcome, detail } = compete(competeRule({ worst: 1, cap: new Decimal(k) }), feed);
      // Independently: the best of the rest is X2 at 4,900,000, the typical step 1,000.
      const cap = roundDown(new Decimal(4900000).plus(new Decimal(1000).times(k)), 2);
      expect(rate, `k = ${k}`).toBe(formatDecimal(cap));
      expect(outcome).toMatchObject({ basis: 'cap', place: 2, competitors: 6 });
      expect(outcome.reason).toBe(
        `place 1 needs 4990000.01, more than ${k} typical steps (1000) past X2, the best of the rest (4900000): capped at ${formatDecimal(cap)}`,
      );
      expect(detail.caps?.[0]?.rest.row.exchangerId).toBe(2);
    }
    // explain shows the cap and what set the rate.
    const { detail } = compete(competeRule({ worst: 1, cap: new Decimal(2) }), feed);
    const lines = competeLines(detail, competingDirection(BTC, SBER, detail.rule));
    expect(lines).toContain(
      '  Cap: the best of the rest, X2, gives 4900000; typical step 1000 (median gap of the top ten); at most 4900000 + 2 × 1000 = 4902000 → step 1:4902000',
    );
    expect(lines).toContain(
      '  capped against an outlier: place 1 needs 4990000.01, more than 2 typical steps (1000) past X2, the best of the rest (4900000): capped at 4902000',
    );
  });

  it('a field without an outlier is priced as before, and place 2 caps on the one behind it', () => {
    const steady: [number, string][] = broken.slice(1);
    const rule = competeRule({ worst: 1, cap: new Decimal(2) });
    // 4,900,000 is 1,000 ahead of the rest: one step more is well inside two typical steps.
    expect(compete(rule, feedOf(steady))).toMatchObject({ rate: '4900000.01', outcome: { basis: 'place' } });
    expect(compete(competeRule({ worst: 1 }), feedOf(steady)).rate).toBe('4900000.01');
    // Place 2 behind the broken one: its rival is X2, the one behind is X3, 1,000 apart: not capped.
    expect(compete(competeRule({ worst: 2, cap: new Decimal(2) }), feedOf(broken))).toMatchObject({
      rate: '4900000.01',
      outcome: { basis: 'place', place: 2 },
    });
  });

  it('the floor still wins over a cap beyond it', () => {
    // The rest is near the floor: cap = 4,974,000 + 2 × 1,000 = 4,976,000, past the floor's 4,975,000.
    const near: [number, string][] = [
      [1, '4999000'],
      [2, '4974000'],
      [3, '4973000'],
      [4, '4972000'],
    ];
    expect(compete(competeRule({ worst: 1, cap: new Decimal(2) }), feedOf(near))).toMatchObject({
      rate: '4975000',
      outcome: { basis: 'floor' },
    });
  });
});

/** The broken field as API v2 ranks it: each row's rankrate (give form, BTC per 1 RUB) with no fees anywhere. */
function rankrateField(): BestChangeFeed {
  const bare = feedOf(broken);
  const key = 'BTC>SBERRUB';
  const rows = bare.directions.get(key)!.map((row) => ({
    ...row,
    rankrate: new Decimal(row.give).div(row.get).toFixed(30),
  }));
  return { ...bare, order: 'rankrate', directions: new Map([[key, rows]]) };
}

describe('the cap by rankrate (API v2)', () => {
  it('caps in rankrate terms: the best of the rest + k typical steps, turned into our rate', () => {
    // The same field as rankrates (give form, BTC per 1 RUB) with no fees anywhere: our rankrate is 1 ÷ our rate.
    const feed = rankrateField();
    const { rate, outcome, detail } = compete(competeRule({ worst: 1, cap: new Decimal(2) }), feed, usdtBook);
    expect(detail.order).toBe('rankrate');
    expect(outcome).toMatchObject({ basis: 'cap', place: 2 });
    // 1 ÷ (1 ÷ x) loses a digit at Decimal's 40: the cap lands on 4,902,000 or the step below it.
    expect(['4902000', '4901999.99']).toContain(rate);
    expect(compete(competeRule({ worst: 1 }), feed, usdtBook).outcome.basis).toBe('floor');
  });
});

describe('explain of the cap by rankrate (API v2)', () => {
  it('says the cap as rates people read: the rest as a rate with its fees, ours as the rate published', () => {
    const feed = rankrateField();
    const rule = competeRule({ worst: 1, cap: new Decimal(2) });
    // A fromfee of 1%: our rate must be better than the cap's 1 ÷ rankrate for our rankrate to reach it.
    const direction = competingDirection(BTC, SBER, rule, { fromfee: '1%' });
    const margined = priceDirection(direction, usdtBook);
    if ('reason' in margined) throw new Error(margined.reason);
    const result = competeDirections({
      priced: [margined],
      book: usdtBook,
      feeds: new Map([['bc', { feed, ageSeconds: 1 }]]),
    });
    const detail = result.details.get('BTC>SBERRUB')!;
    expect(result.priced[0]?.compete).toMatchObject({ basis: 'cap' });
    const published = formatDecimal(result.priced[0]!.rate);
    // The client sends 1% more than the rate asks: 4,902,000 with the fee in it is 4,902,000 × 1.01 = 4,951,020
    // without it (1 ÷ (1 ÷ x) loses a digit at Decimal's 40, hence the step below).
    expect(published).toBe('4951019.99');
    const lines = competeLines(detail, direction);
    expect(lines).toContain(
      '  Cap: the best of the rest, X2, gives rankrate 0.000000204081632653061224489796 (= 4900000… SBERRUB per BTC with its fees, rate 1:4900000); typical step 1000… SBERRUB per BTC (median gap of the top ten, by rankrate); at most 4900000… + 2 × 1000… = 4902000… SBERRUB per BTC with fees; our rate at that rankrate with our fees: 4951020… SBERRUB per BTC → step 1:4951019.99',
    );
    expect(result.priced[0]?.compete?.reason).toBe(
      'place 1 needs 5039900.01, more than 2 typical steps (1000…, by rankrate) past X2, the best of the rest (4900000… with its fees): capped at 4951020…, our rate at that rankrate with our fees',
    );
  });
});

describe('self: the exchanger’s own rows', () => {
  it('are never counted: we do not compete with ourselves', () => {
    // We (id 9) are listed first at 4,950,000; Beta (2) at 4,940,000.
    const feed = feedOf([
      [9, '4950000'],
      [2, '4940000'],
      [3, '4930000'],
    ]);
    // Without `self`, our own row is the one to beat: one step past ourselves.
    expect(compete(competeRule({ worst: 1 }), feed).rate).toBe('4950000.01');
    const { rate, outcome, detail } = compete(competeRule({ worst: 1, selfIds: new Set([9]) }), feed);
    expect(rate).toBe('4940000.01');
    expect(outcome).toMatchObject({ basis: 'place', place: 1, competitors: 2 });
    expect(detail.fields[0]!.entries[0]).toMatchObject({ excluded: 'our own listing (self)' });
  });
});
