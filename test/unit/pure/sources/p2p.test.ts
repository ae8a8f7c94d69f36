import { describe, expect, it } from 'vitest';
import { type Advert, type AdvertFilters, sidePrice } from '../../../../src/pure/sources/p2p.js';

const advert = (price: string, extra: Partial<Advert> = {}): Advert => ({
  price,
  minAmount: '1000',
  maxAmount: '100000',
  payMethods: ['TinkoffNew'],
  merchant: true,
  ...extra,
});
const filters = (extra: Partial<AdvertFilters> = {}): AdvertFilters => ({
  merchantsOnly: false,
  skip: 0,
  take: 2,
  average: 'mean',
  ...extra,
});

describe('sidePrice: one side of a P2P book', () => {
  it('takes the lowest asks and the highest bids, whatever order the venue listed them in', () => {
    const book = [advert('98'), advert('97'), advert('99'), advert('96.5')];
    expect(sidePrice(book, 'ask', filters())).toEqual({ price: '96.75' });
    expect(sidePrice(book, 'bid', filters())).toEqual({ price: '98.5' });
  });

  it('keeps a mean to 12 significant digits, half to even, and a median exact', () => {
    const book = [advert('1'), advert('1'), advert('2')];
    expect(sidePrice(book, 'ask', filters({ take: 3 }))).toEqual({ price: '1.33333333333' });
    expect(sidePrice([advert('2'), advert('2'), advert('2.000000000005')], 'ask', filters({ take: 3 }))).toEqual({
      price: '2',
    });
    expect(sidePrice(book, 'ask', filters({ take: 3, average: 'median' }))).toEqual({ price: '1' });
    expect(sidePrice(book, 'bid', filters({ take: 2, average: 'median' }))).toEqual({ price: '1.5' });
  });

  it('filters by pay method, amount (min and max inclusive) and merchant; a venue that does not say counts as one', () => {
    const book = [
      advert('90', { payMethods: ['SBP'] }),
      advert('91', { minAmount: '5001' }),
      advert('92', { maxAmount: '4999.99' }),
      advert('93', { merchant: false }),
      advert('94', { minAmount: '5000', maxAmount: '5000' }),
      advert('95', { merchant: undefined }),
      advert('96', { minAmount: 'n/a' }),
    ];
    const strict = filters({ payMethods: ['TinkoffNew'], amount: '5000', merchantsOnly: true });
    expect(sidePrice(book, 'ask', strict)).toEqual({ price: '94.5' });
    expect(sidePrice(book, 'ask', { ...strict, take: 3 })).toEqual({
      problem: 'ask side: 2 adverts after filters, 3 needed',
    });
  });

  it('skips the first K as outliers and fails the side on a price that is not one', () => {
    const book = [advert('80'), advert('97'), advert('98'), advert('99')];
    expect(sidePrice(book, 'ask', filters({ skip: 1 }))).toEqual({ price: '97.5' });
    expect(sidePrice([advert('97'), advert('-1')], 'ask', filters())).toEqual({
      problem: 'advert 2 of the ask side: price is negative: "-1"',
    });
  });
});
