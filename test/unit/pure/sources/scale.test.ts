// Units and scale mistakes (issue 44, item 4): an answer whose every shared pair is about one 10^k (|k| ≥ 2, within
// ±25%) off the source's last accepted answer is refused as a whole; the edges of "about", and what never refuses.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import {
  YARDSTICK_LIFETIME_MS,
  YARDSTICK_PAIRS,
  powerOfTen,
  scaleRefusal,
  yardstickOf,
} from '../../../../src/pure/sources/scale.js';
import { quoteBook } from '../../../support/model.js';

const now = new Date('2026-11-21T12:00:00Z');
const quotes = (...rows: [pair: string, bid: string, ask: string][]) => [...quoteBook(now, 'p2p', ...rows).values()];

/** The last accepted answer: USDT/RUB at 96.9 / 97.1 (mid 97), BTC/USDT at 97000 / 97002 (mid 97001). */
const yardstick = yardstickOf(
  quotes(['USDT/RUB', '96.9', '97.1'], ['BTC/USDT', '97000', '97002']),
  new Date(now.getTime() - 60_000),
);

/** Both pairs scaled by `factor`, bid and ask alike. */
const scaled = (factor: string, btcFactor = factor) =>
  quotes(
    ['USDT/RUB', new Decimal('96.9').times(factor).toFixed(), new Decimal('97.1').times(factor).toFixed()],
    ['BTC/USDT', new Decimal('97000').times(btcFactor).toFixed(), new Decimal('97002').times(btcFactor).toFixed()],
  );

describe('powerOfTen: the 10^k a ratio is about (within ±25%), told from its decimal exponent', () => {
  it.each([
    ['100', 2],
    ['75', 2],
    ['125', 2],
    ['74.99', undefined],
    ['125.01', undefined],
    ['750', 3],
    ['1000', 3],
    ['1250', 3],
    ['0.01', -2],
    ['0.0125', -2],
    ['0.0075', -2],
    ['0.0126', undefined],
    ['0.00749', undefined],
    ['0.001', -3],
    ['100000000', 8],
    ['0.00000001', -8],
    ['1', 0],
    ['10', 1],
    ['300', undefined],
    ['5', undefined],
  ])('%s → %s', (ratio, power) => {
    expect(powerOfTen(new Decimal(ratio))).toBe(power);
  });
});

describe('scaleRefusal', () => {
  it.each([
    [
      '×100 (kopecks)',
      '100',
      /^p2p: every quote is about ×100 its last accepted answer \(USDT\/RUB 9700 against 97 at 2026-11-21T11:59:00\.000Z, and 1 more pair alike\)/,
    ],
    ['×1000 ("per 1000" quotes)', '1000', /about ×1000 .*USDT\/RUB 97000 against 97/],
    ['÷1000', '0.001', /about ÷1000 .*USDT\/RUB 0\.097 against 97/],
    ['÷100', '0.01', /about ÷100 /],
    ['×10^8 (satoshi)', '100000000', /about ×100000000 /],
    ['×75: the low edge of "about 100"', '75', /about ×100 /],
    ['×125: its high edge', '125', /about ×100 /],
  ])('%s: refused, naming the factor, a pair and both values', (_name, factor, reason) => {
    const refusal = scaleRefusal('p2p', yardstick, scaled(factor), now);
    expect(refusal).toMatch(reason);
    expect(refusal).toMatch(/a unit or scale mistake .*, the answer is refused as a whole$/);
  });

  it.each([
    ['×74.9: just outside "about 100"', '74.9'],
    ['×125.1', '125.1'],
    ['×10: |k| = 1 is a market that moved (or a bad day), for the jump guard', '10'],
    ['×1.5', '1.5'],
    ['×0.5', '0.5'],
    ['unchanged', '1'],
  ])('%s: not refused', (_name, factor) => {
    expect(scaleRefusal('p2p', yardstick, scaled(factor), now)).toBeUndefined();
  });

  it('refuses only when every shared pair is about the same power: ×100 beside ×1 or ×1000 refuses nothing', () => {
    expect(scaleRefusal('p2p', yardstick, scaled('100', '1'), now)).toBeUndefined();
    expect(scaleRefusal('p2p', yardstick, scaled('100', '1000'), now)).toBeUndefined();
    expect(scaleRefusal('p2p', yardstick, scaled('100', '90'), now)).toMatch(/about ×100/);
  });

  it('pairs the yardstick does not have are not judged; no shared pair, no yardstick or an old one refuses nothing', () => {
    const withNew = [...scaled('100'), ...quotes(['USDT/KZT', '520', '521'])];
    expect(scaleRefusal('p2p', yardstick, withNew, now)).toMatch(/about ×100/);
    expect(scaleRefusal('p2p', yardstick, quotes(['USDT/KZT', '52000', '52100']), now)).toBeUndefined();
    expect(scaleRefusal('p2p', undefined, scaled('100'), now)).toBeUndefined();
    const dayLater = new Date(Date.parse(yardstick.at) + YARDSTICK_LIFETIME_MS + 1);
    expect(scaleRefusal('p2p', yardstick, scaled('100'), dayLater)).toBeUndefined();
    expect(
      scaleRefusal('p2p', yardstick, scaled('100'), new Date(Date.parse(yardstick.at) + YARDSTICK_LIFETIME_MS)),
    ).toMatch(/about ×100/);
  });

  it('a yardstick keeps mids to 12 digits, each pair once, at most YARDSTICK_PAIRS of them', () => {
    expect(yardstick).toEqual({ at: '2026-11-21T11:59:00.000Z', mids: { 'USDT/RUB': '97', 'BTC/USDT': '97001' } });
    expect(yardstickOf(quotes(['A/B', '1', '2']), now).mids).toEqual({ 'A/B': '1.5' });
    expect(yardstickOf(quotes(['A/B', '1', '1.000000000001']), now).mids).toEqual({ 'A/B': '1' });
    const many = quotes(
      ...Array.from({ length: YARDSTICK_PAIRS + 10 }, (_, k) => [`A${k}/B`, '1', '1'] as [string, string, string]),
    );
    expect(Object.keys(yardstickOf(many, now).mids)).toHaveLength(YARDSTICK_PAIRS);
  });
});
