// The monitor's view of us (src/pure/compete/listing.ts) on feeds read by the real parser: rates compared at the feed's
// precision (info.zip's get form, API v2's give form), reserves and limits within the tolerance, the lag measured
// once per rate from its publishing to the fetch of the first feed showing it, and the memory bounded.
import { describe, expect, it } from 'vitest';
import { parseFeed, type BestChangeFeed } from '../../../../src/pure/bestchange/feed.js';
import { compareListings, MAX_VERSIONS, sameRate, type ListingMemory } from '../../../../src/pure/compete/listing.js';
import { Decimal, formatDecimal } from '../../../../src/base/decimal.js';
import type { PricedDirection } from '../../../../src/model/priced.js';
import { publicationAt } from '../../../../src/pure/pricing/published.js';
import { base, dump } from '../../../support/bestchange.js';
import { competeCurrency, competeRule, competingDirection } from '../../../support/compete.js';

const t0 = Date.parse('2026-11-21T12:00:00Z');
const at = (seconds: number) => new Date(t0 + seconds * 1000);
const BTC = competeCurrency('BTC', 'BTC', 8);
const SBER = competeCurrency('SBERRUB', 'RUB', 2);
const direction = competingDirection(BTC, SBER, competeRule());

/** Our BTC → SBERRUB at `rate` with a reserve of 50,000,000 and a max of 10 BTC. */
const pricedAt = (rate: string): PricedDirection => {
  const terms = { amount: new Decimal(50000000), maxFrom: new Decimal(10) };
  const published = publicationAt(direction, terms, new Decimal(rate));
  if ('reason' in published) throw new Error(published.reason);
  return { direction, steps: [], market: new Decimal(5000000), rate: new Decimal(rate), terms, published };
};

/** A feed listing us (id 10) at `rate` (get per 1 BTC), or not at all. */
const feedOf = (rate?: string, reserve = '50000000'): BestChangeFeed =>
  parseFeed(
    dump({
      ...base,
      'bm_rates.dat': [
        '2;1;20;1;4950000;900000;0.1;0;0.01;1;0',
        ...(rate ? [`2;1;10;1;${rate};${reserve};0.1;0;0;10;0`] : []),
      ].join('\n'),
    }),
  );

const source = (feed: BestChangeFeed, fetchedAt: Date) => ({
  name: 'bc',
  selfIds: new Set([10]),
  alertAfterMs: 600_000,
  amountTolerance: new Decimal('0.01'),
  feed,
  fetchedAt,
});

function compare(memory: ListingMemory, rate: string | undefined, feed: BestChangeFeed, fetched: number, now: number) {
  return compareListings({
    sources: [source(feed, at(fetched))],
    directions: [direction],
    published: new Map(rate === undefined ? [] : [[direction.id, pricedAt(rate)]]),
    memory,
    now: at(now),
  });
}

describe('a listed rate against a published one, at the feed precision', () => {
  const ours = { in: new Decimal(1), out: new Decimal('4940000.51') };
  it.each([
    ['1', '4940000.51', true],
    ['1', '4940000.5', true], // one decimal shown: within 0.1
    ['1', '4940000.52', true], // one unit of the last digit
    ['1', '4940000.53', false],
    ['1', '4940001', true], // no decimal shown: within 1
    ['1', '4940002', false],
    ['2', '9880001.02', true],
  ])('give %s, get %s: %s', (give, get, same) => {
    expect(sameRate(give, get, ours)).toBe(same);
  });

  it("reads API v2's give form (from per 1 to) at its own decimals", () => {
    const give = Decimal.div(1, ours.out);
    const shown = formatDecimal(give.toDecimalPlaces(14));
    expect(sameRate(shown, '1', ours)).toBe(true);
    const off = formatDecimal(give.toDecimalPlaces(14).plus('0.00000000000003'));
    expect(sameRate(off, '1', ours)).toBe(false);
  });
});

describe('compareListings', () => {
  it('is same, then lagging after a change, then same with the lag measured once', () => {
    let result = compare({}, '4940000.51', feedOf('4940000.51'), 0, 5);
    expect(result.views[0]).toMatchObject({ state: 'same', differences: [] });
    expect(result.lags).toEqual([]); // first memory: no lag for a rate published before
    // Published anew at 60 s; the feed fetched at 90 s still lists the old rate.
    result = compare(result.memory, '4945000', feedOf('4940000.51'), 30, 60);
    expect(result.views[0]).toMatchObject({ state: 'lagging', since: at(60).toISOString() });
    result = compare(result.memory, '4945000', feedOf('4940000.51'), 90, 95);
    expect(result.views[0]).toMatchObject({ state: 'lagging', since: at(60).toISOString() });
    result = compare(result.memory, '4945000', feedOf('4945000'), 120, 125);
    expect(result.views[0]).toMatchObject({ state: 'same', lagSeconds: 60 });
    expect(result.views[0]?.since).toBeUndefined();
    expect(result.lags).toEqual([60]);
    result = compare(result.memory, '4945000', feedOf('4945000'), 150, 155);
    expect(result.lags).toEqual([]);
    expect(result.views[0]?.lagSeconds).toBe(60);
  });

  it('does not credit a feed fetched before a rate was published with showing it', () => {
    let result = compare({}, '4940000.51', feedOf('4940000.51'), 0, 5);
    result = compare(result.memory, '4945000', feedOf('4940000.51'), 30, 60);
    result = compare(result.memory, '4940000.51', feedOf('4940000.51'), 30, 90);
    // Back to the first rate at 90 s: a feed fetched at 30 s shows the version of 0 s, which was replaced at 60 s.
    expect(result.views[0]).toMatchObject({ state: 'lagging', since: at(60).toISOString() });
    result = compare(result.memory, '4940000.51', feedOf('4940000.51'), 100, 105);
    expect(result.views[0]).toMatchObject({ state: 'same', lagSeconds: 10 });
  });

  it('says differs (rate unknown, or reserve beyond the tolerance), missing and unpublished, each with its since', () => {
    let result = compare({}, '4940000.51', feedOf('4000000'), 0, 5);
    expect(result.views[0]).toMatchObject({
      state: 'differs',
      since: at(5).toISOString(),
      differences: ['rate: listed 1:4000000, published 1:4940000.51 (no earlier rate of the last hour)'],
    });
    result = compare(result.memory, '4940000.51', feedOf('4940000.51', '49600000'), 30, 35);
    expect(result.views[0]).toMatchObject({ state: 'same' }); // 0.8% off: within 1%
    result = compare(result.memory, '4940000.51', feedOf('4940000.51', '1000'), 60, 65);
    expect(result.views[0]).toMatchObject({
      state: 'differs',
      since: at(65).toISOString(),
      differences: ['reserve: listed 1000, published 50000000'],
    });
    result = compare(result.memory, '4940000.51', feedOf(), 90, 95);
    expect(result.views[0]).toMatchObject({ state: 'missing', since: at(65).toISOString() });
    result = compare(result.memory, undefined, feedOf('4940000.51'), 120, 125);
    expect(result.views[0]).toMatchObject({ state: 'unpublished', differences: ['listed while not published'] });
    // Neither published nor listed: nothing to say.
    expect(compare(result.memory, undefined, feedOf(), 150, 155).views).toEqual([]);
  });

  it('keeps at most MAX_VERSIONS rates per direction, none older than an hour but the newest', () => {
    let memory: ListingMemory = {};
    const feed = feedOf('4900000');
    for (let i = 0; i < 100; i++) memory = compare(memory, String(4900000 + i), feed, i * 10, i * 10 + 1).memory;
    expect(memory[direction.id]?.versions).toHaveLength(MAX_VERSIONS);
    expect(memory[direction.id]?.versions.at(-1)?.rate).toBe('1:4900099');
    memory = compare(memory, '4900099', feedOf('4900099'), 7200, 7201).memory;
    expect(memory[direction.id]?.versions.map((v) => v.rate)).toEqual(['1:4900099']);
  });

  it('compares nothing without a feed, keeping the memory', () => {
    const first = compare({}, '4940000.51', feedOf('4940000.51'), 0, 5);
    const result = compareListings({
      sources: [{ ...source(feedOf(), at(0)), feed: undefined as unknown as BestChangeFeed }],
      directions: [direction],
      published: new Map([[direction.id, pricedAt('4940000.51')]]),
      memory: first.memory,
      now: at(30),
    });
    expect(result.views).toEqual([]);
    expect(result.memory[direction.id]?.versions).toHaveLength(1);
  });
});
