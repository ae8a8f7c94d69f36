// Reserves shaped before pricing: a formula over back-office entries, a cap, and margins by reserve.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import { parseFormula, type Formula } from '../../../../src/base/config/formula.js';
import type { ReserveBook } from '../../../../src/model/reserve-source.js';
import { applyReserves } from '../../../../src/pure/reserves/apply.js';
import { testCurrency, testDirection } from '../../../support/model.js';

const at = new Date('2026-11-28T00:00:00Z');
const book: ReserveBook = new Map([
  [
    'wallets',
    {
      entries: new Map<string, unknown>([
        ['SBERRUB', '2500000'],
        ['PENDING', '400000'],
        ['OFF', { reserve: '1', enabled: false }],
      ]),
      time: at,
    },
  ],
  ['down', { error: 'down: GET /reserves: HTTP 503' }],
]);
const btc = testCurrency('BTC', 'BTC', 8);
const rub = testCurrency('SBERRUB', 'RUB', 2, '0');
const reserveFormula = (text: string) => parseFormula(text, 'entry') as Formula;
const d = (value: string) => new Decimal(value);

describe('shaped reserves', () => {
  it('a formula over entries, a share shown, and the margin of the highest step reached', () => {
    const direction = testDirection(btc, rub, {
      reserveFormula: reserveFormula('wallets:SBERRUB - wallets:PENDING'),
      reserveCap: { share: d('0.8') },
      reserveMargins: [
        { from: d('1000000'), margin: d('0.008') },
        { from: d('5000000'), margin: d('0.005') },
      ],
    });
    const { directions, withheld } = applyReserves([direction], book);
    expect(withheld).toEqual([]);
    const made = directions[0]!;
    expect([made.reserve.toFixed(), made.margin.toFixed()]).toEqual(['1680000', '0.008']);
    expect(made.reserveMade).toEqual([
      'formula wallets:SBERRUB - wallets:PENDING: wallets:SBERRUB 2500000, wallets:PENDING 400000 → 2100000',
      '80% of it shown: 1680000 SBERRUB',
      'reserve 1680000 ≥ 1000000: margin 0.8%',
    ]);
    // The same readings give the same object, build after build (pricing remembers plans per object).
    expect(applyReserves([direction], book).directions[0]).toBe(made);
  });

  it('reaches the second step, and the highest step reached wins (a reserve exactly at a step is on it)', () => {
    const margins = [
      { from: d('1000000'), margin: d('0.008') },
      { from: d('2000000'), margin: d('0.005') },
    ];
    const at = (formula: string) =>
      applyReserves(
        [testDirection(btc, rub, { reserveFormula: reserveFormula(formula), reserveMargins: margins })],
        book,
      ).directions[0]!;
    expect(at('wallets:SBERRUB').margin.toFixed()).toBe('0.005');
    expect(at('wallets:SBERRUB').reserveMade?.at(-1)).toBe('reserve 2500000 ≥ 2000000: margin 0.5%');
    expect(at('wallets:SBERRUB - 500000').margin.toFixed()).toBe('0.005');
    expect(at('wallets:SBERRUB - 500001').margin.toFixed()).toBe('0.008');
  });

  it('below zero is none; a cap by amount; below every step the direction keeps its margin', () => {
    const direction = testDirection(btc, rub, {
      reserveFormula: reserveFormula('wallets:PENDING - wallets:SBERRUB'),
      reserveMargins: [{ from: d('1000'), margin: d('0.005') }],
    });
    const made = applyReserves([direction], book).directions[0]!;
    expect([made.reserve.toFixed(), made.margin.toFixed()]).toEqual(['0', '0.02']);
    expect(made.reserveMade?.[0]).toBe(
      'formula wallets:PENDING - wallets:SBERRUB: wallets:PENDING 400000, wallets:SBERRUB 2500000 → -2100000 (below 0: none)',
    );
    const capped = testDirection(
      btc,
      { ...rub, reserve: d('900000') },
      { reserve: d('900000'), reserveCap: { amount: d('250000') } },
    );
    expect(applyReserves([capped], book).directions[0]!.reserve.toFixed()).toBe('250000');
  });

  it('an entry switched off pauses the direction; a source that failed withholds it with its reason', () => {
    const off = testDirection(btc, rub, { reserveFormula: reserveFormula('wallets:SBERRUB + wallets:OFF') });
    const failed = testDirection(btc, rub, {
      id: 'BTC>X',
      reserveFormula: reserveFormula('wallets:SBERRUB + down:SBERRUB'),
    });
    const { withheld } = applyReserves([off, failed], book);
    expect(withheld.map((w) => `${w.kind}: ${w.reason}`)).toEqual([
      'paused: switched off by wallets (OFF enabled: false)',
      'reserve: reserve of SBERRUB by wallets:SBERRUB + down:SBERRUB: down: GET /reserves: HTTP 503',
    ]);
  });
});
