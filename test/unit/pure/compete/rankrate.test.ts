// Our own rankrate (src/pure/compete/rankrate.ts): the fees read from the config's texts, and the rate solved for a
// rankrate (linear with the fromfee, a quadratic when minfee binds) checked against rankrateOf for random fees.
import { describe, expect, it } from 'vitest';
import { rankrateOf, rateForRankrate, ownFees, type OwnFees } from '../../../../src/pure/compete/rankrate.js';
import { Decimal } from '../../../../src/base/decimal.js';
import type { Currency, Direction } from '../../../../src/model/config.js';
import type { Quote, QuoteBook } from '../../../../src/model/source.js';
import { random } from '../../../support/random.js';

const seed = Number(process.env.COMPETE_SEED ?? 25);
const ZERO = new Decimal(0);
const none: OwnFees = { fromShare: ZERO, fromFixed: ZERO, toShare: ZERO, toFixed: ZERO, min: ZERO };
const at = (rate: Decimal) => ({ in: new Decimal(1), out: rate });

const currency = (code: string, asset: string): Currency => ({
  code,
  asset,
  precision: 2,
  ratePrecision: 2,
  reserve: new Decimal(1),
});
const quote = (pair: string, bid: string, ask: string): Quote => {
  const [base = '', quoted = ''] = pair.split('/');
  return { pair, base, quote: quoted, bid: new Decimal(bid), ask: new Decimal(ask), time: new Date(0), source: 'q' };
};

describe('own rankrate', () => {
  it('without fees is 1 ÷ rate: a feeless exchanger ranks where its rate puts it', () => {
    const rate = new Decimal('0.0107');
    expect(rankrateOf(at(rate), none, new Decimal(27000))?.toString()).toBe(new Decimal(1).div(rate).toString());
  });

  it('reads fees as shares, fixed amounts and other currencies through the book', () => {
    const direction = {
      from: currency('SBERRUB', 'RUB'),
      to: currency('USDTTRC20', 'USDT'),
      fromfee: '1 USD, 0.5 %',
      tofee: '1 USDT',
      minfee: '150',
    } as unknown as Direction;
    const book: QuoteBook = new Map([['USD/RUB', quote('USD/RUB', '90', '90.5')]]);
    const fees = ownFees(direction, book);
    expect(fees).toEqual({
      fromShare: new Decimal('0.005'),
      fromFixed: new Decimal(90),
      toShare: ZERO,
      toFixed: new Decimal(1),
      min: new Decimal(150),
    });
    expect(ownFees({ ...direction, fromfee: '2 EUR' }, book)).toBe(
      'cannot convert fromfee 2 EUR to RUB for the rankrate: no quotes',
    );
  });

  it('rateForRankrate gives the rate whose rankrate is the one asked, minfee binding or not (random fees)', () => {
    const next = random(seed);
    for (let i = 0; i < 300; i++) {
      const fees: OwnFees = {
        fromShare: new Decimal(Math.floor(next() * 300)).div(10_000),
        fromFixed: new Decimal(Math.floor(next() * 50)),
        toShare: new Decimal(Math.floor(next() * 300)).div(10_000),
        toFixed: new Decimal(Math.floor(next() * 3)),
        min: next() < 0.5 ? ZERO : new Decimal(Math.floor(next() * 2000)),
      };
      const amount = new Decimal(27000);
      const rankrate = new Decimal(Math.floor(80 + next() * 40)).plus(next().toFixed(4));
      const rate = rateForRankrate(rankrate, fees, amount)!;
      const back = rankrateOf(at(rate), fees, amount)!;
      const message = `seed ${seed} case ${i}: ${JSON.stringify(fees)} at ${rankrate.toString()}`;
      expect(back.minus(rankrate).abs().lessThan(rankrate.times('1e-30')), message).toBe(true);
      // Monotone: a more generous rate ranks better, a less generous one worse.
      expect(rankrateOf(at(rate.times('1.000001')), fees, amount)!.lessThan(rankrate), message).toBe(true);
      expect(rankrateOf(at(rate.times('0.999999')), fees, amount)!.greaterThan(rankrate), message).toBe(true);
    }
  });
});
