// The compete step on the real dump of 25 March 2021, checked against an independent computation: the raw
// .dat text read by hand (zlib, not fflate; split, not the parser), rates as exact fractions in BigInt, the
// rule applied from its words (the competitor at the place, improved by the step, rounded against the client,
// one step up while it ties or trails, clamped).
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseFeed, type BestChangeFeed } from '../../../../src/pure/bestchange/feed.js';
import { competeDirections } from '../../../../src/pure/compete/price.js';
import { Decimal, formatDecimal } from '../../../../src/base/decimal.js';
import type { CompeteRule, Currency } from '../../../../src/model/config.js';
import { priceDirection } from '../../../../src/pure/pricing/price.js';
import { publishedRate } from '../../../../src/pure/pricing/published.js';
import { realDump, unzipByHand } from '../../../support/bestchange.js';
import { competingDirection } from '../../../support/compete.js';
import type { QuoteBook } from '../../../../src/model/source.js';

/** An exact fraction n/d, d > 0. */
type Q = [bigint, bigint];
const q = (text: string): Q => {
  const [whole, part = ''] = text.split('.');
  return [BigInt(`${whole}${part}`), 10n ** BigInt(part.length)];
};
const cmp = (a: Q, b: Q) => {
  const [l, r] = [a[0] * b[1], b[0] * a[1]];
  return l < r ? -1 : l > r ? 1 : 0;
};
const times = (a: Q, b: Q): Q => [a[0] * b[0], a[1] * b[1]];
const oneMinus = (a: Q): Q => [a[1] - a[0], a[1]];
const onePlus = (a: Q): Q => [a[1] + a[0], a[1]];
const floorDiv = (n: bigint, d: bigint) => n / d;
const ceilDiv = (n: bigint, d: bigint) => (n + d - 1n) / d;
/** k / 10^p as plain text, trailing zeros trimmed (as formatDecimal writes it). */
const text = (k: bigint, p: number) => {
  const digits = k.toString().padStart(p + 1, '0');
  const [whole, part] = [digits.slice(0, digits.length - p), digits.slice(digits.length - p).replace(/0+$/, '')];
  return part ? `${whole}.${part}` : whole;
};

interface Row {
  exchanger: string;
  id: string;
  rate: Q;
  reserve: Q;
}

interface Case {
  from: string;
  to: string;
  place: number;
  step: string;
  floor: string;
  ceiling: string;
  ignore?: string[];
  minReserve?: string;
}

describe('the real dump: competitor ranking and the chosen rate, against an independent read', () => {
  let feed: BestChangeFeed;
  let rows: (from: string, to: string) => Row[];
  beforeAll(() => {
    const zip = readFileSync(realDump);
    feed = parseFeed(zip);
    const raw = unzipByHand(zip);
    const read = (name: string) =>
      new TextDecoder('windows-1251')
        .decode(raw.get(name))
        .split('\n')
        .map((line) => line.trim().split(';'));
    const ids = new Map(read('bm_cycodes.dat').map(([id, code]) => [code, id]));
    const names = new Map(read('bm_exch.dat').map(([id, name]) => [id, name]));
    const rates = read('bm_rates.dat');
    rows = (from, to) => {
      const [f, t] = [ids.get(from), ids.get(to)];
      // One row per exchanger, its best: the 8-field layout repeats a cash row per city without saying which.
      const best = new Map<string, Row>();
      for (const [rf, rt, id = '', give = '', get = '', reserve = ''] of rates) {
        if (rf !== f || rt !== t) continue;
        const row = {
          exchanger: names.get(id)!,
          id,
          rate: [q(get)[0] * q(give)[1], q(get)[1] * q(give)[0]] as Q,
          reserve: q(reserve),
        };
        const held = best.get(id);
        if (!held || cmp(row.rate, held.rate) > 0) best.set(id, row);
      }
      return [...best.values()].sort((a, b) => cmp(b.rate, a.rate));
    };
  });

  const currency = (code: string, asset: string, precision: number): Currency => ({
    code,
    asset,
    precision,
    ratePrecision: precision,
    reserve: new Decimal('1000000000'),
  });
  const currencies = {
    BTC: currency('BTC', 'BTC', 8),
    SBERRUB: currency('SBERRUB', 'RUB', 2),
    CASHRUB: currency('CASHRUB', 'RUB', 0),
    USDTTRC: currency('USDTTRC', 'USDT', 2),
    CASHUSD: currency('CASHUSD', 'USD', 2),
  } as Record<string, Currency>;
  const quotes: [string, string, string][] = [
    ['BTC/RUB', '4100000', '4100500'],
    ['USDT/RUB', '77', '77.1'],
    ['BTC/USD', '51900', '52000'],
  ];
  const book: QuoteBook = new Map(
    quotes.map(([pair, bid, ask]) => {
      const [b = '', quote = ''] = pair.split('/');
      return [
        pair,
        { pair, base: b, quote, bid: new Decimal(bid), ask: new Decimal(ask), time: new Date(0), source: 'test' },
      ];
    }),
  );
  /** The market as the rule reads it: the bid selling the from asset, 1 ÷ the ask buying the to asset. */
  const marketOf = (from: Currency, to: Currency): Q => {
    const straight = quotes.find(([pair]) => pair === `${from.asset}/${to.asset}`);
    if (straight) return q(straight[1]);
    const inverse = quotes.find(([pair]) => pair === `${to.asset}/${from.asset}`)!;
    const ask = q(inverse[2]);
    return [ask[1], ask[0]];
  };

  /** The rule from its words, in exact fractions: published form text and place. */
  function expected(c: Case): { form: string; place: number; counted: Row[] } {
    const [from, to] = [currencies[c.from]!, currencies[c.to]!];
    const ignore = new Set((c.ignore ?? []).map((name) => name.toLowerCase()));
    const minReserve = c.minReserve ? q(c.minReserve) : undefined;
    const counted = rows(c.from, c.to).filter(
      (row) =>
        !ignore.has(row.exchanger.toLowerCase()) &&
        !ignore.has(row.id) &&
        (!minReserve || cmp(row.reserve, minReserve) >= 0),
    );
    const fraction = (percent: string): Q => times(q(percent.replace('%', '')), [1n, 100n]);
    const market = marketOf(from, to);
    const [floor, ceiling] = [times(market, oneMinus(fraction(c.floor))), times(market, oneMinus(fraction(c.ceiling)))];
    const rival = counted[c.place - 1];
    const target = rival ? times(rival.rate, onePlus(fraction(c.step))) : undefined;
    let form: string;
    let ours: Q;
    if (cmp(market, [1n, 1n]) >= 0) {
      // out = k / 10^p, in = 1: the target rounded down, raised while not above the rival; between the ceiling's and the floor's k.
      const scale = 10n ** BigInt(to.ratePrecision);
      const hi = floorDiv(floor[0] * scale, floor[1]);
      const lo = ceilDiv(ceiling[0] * scale, ceiling[1]);
      let k = lo;
      if (rival && target) {
        k = floorDiv(target[0] * scale, target[1]); // rounded against the client, then up while it ties or trails the rival
        while (cmp([k, scale], rival.rate) <= 0) k++;
        k = k > hi ? hi : k < lo ? lo : k;
      }
      form = `1:${text(k, to.ratePrecision)}`;
      ours = [k, scale];
    } else {
      // in = j / 10^p, out = 1 (the client gets 1 ÷ in): the target's in rounded up, lowered while 1/in is not above the rival.
      const scale = 10n ** BigInt(from.ratePrecision);
      const most = ceilDiv(scale * floor[1], floor[0]);
      const least = floorDiv(scale * ceiling[1], ceiling[0]);
      let j = least;
      if (rival && target) {
        j = ceilDiv(target[1] * scale, target[0]); // in rounded up (against the client), then down while 1/in ties or trails the rival
        while (cmp([scale, j], rival.rate) <= 0) j--;
        j = j < most ? most : j > least ? least : j;
      }
      form = `${text(j, from.ratePrecision)}:1`;
      ours = [scale, j];
    }
    return { form, place: 1 + counted.filter((row) => cmp(row.rate, ours) >= 0).length, counted };
  }

  function actual(c: Case) {
    const [from, to] = [currencies[c.from]!, currencies[c.to]!];
    const fraction = (percent: string) => new Decimal(percent.replace('%', '')).div(100);
    const ignore = c.ignore ?? [];
    const rule: CompeteRule = {
      source: 'bc',
      target: String(c.place),
      best: c.place,
      worst: c.place,
      step: fraction(c.step),
      floor: fraction(c.floor),
      ceiling: fraction(c.ceiling),
      deviation: new Decimal('0.1'),
      ignore,
      ignoreNames: new Set(ignore.filter((i) => !/^\d+$/.test(i)).map((i) => i.toLowerCase())),
      ignoreIds: new Set(ignore.filter((i) => /^\d+$/.test(i)).map(Number)),
      ...(c.minReserve ? { minReserve: { value: new Decimal(c.minReserve), asset: to.asset } } : {}),
    };
    const direction = competingDirection(from, to, rule, {
      cities: c.from.startsWith('CASH') || c.to.startsWith('CASH') ? ['MSK', 'SPB'] : [],
    });
    const margined = priceDirection(direction, book);
    if ('reason' in margined) throw new Error(margined.reason);
    const result = competeDirections({ priced: [margined], book, feeds: new Map([['bc', { feed, ageSeconds: 5 }]]) });
    const priced = result.priced[0]!;
    const form = publishedRate(priced.rate, from, to);
    return {
      form: `${formatDecimal(form.in)}:${formatDecimal(form.out)}`,
      compete: priced.compete!,
      detail: result.details.get(direction.id)!,
    };
  }

  it.each<[string, Case]>([
    ['BTC → SBERRUB, place 3', { from: 'BTC', to: 'SBERRUB', place: 3, step: '0%', floor: '0.5%', ceiling: '5%' }],
    [
      'BTC → SBERRUB, place 2 by 0.01%, ignoring two by name and id, reserve at least 1,000,000',
      {
        from: 'BTC',
        to: 'SBERRUB',
        place: 2,
        step: '0.01%',
        floor: '0.5%',
        ceiling: '5%',
        ignore: ['Bittrend', '471'],
        minReserve: '1000000',
      },
    ],
    [
      'BTC → SBERRUB, place 1 past the floor',
      { from: 'BTC', to: 'SBERRUB', place: 1, step: '0%', floor: '1%', ceiling: '5%' },
    ],
    [
      'SBERRUB → BTC (give:get written 4139066:1), place 4',
      { from: 'SBERRUB', to: 'BTC', place: 4, step: '0%', floor: '0%', ceiling: '3%' },
    ],
    [
      'SBERRUB → BTC, place 10 by 0.05%',
      { from: 'SBERRUB', to: 'BTC', place: 10, step: '0.05%', floor: '0%', ceiling: '3%' },
    ],
    [
      'USDTTRC → SBERRUB, the floor pins it',
      { from: 'USDTTRC', to: 'SBERRUB', place: 2, step: '0%', floor: '0.5%', ceiling: '4%' },
    ],
    [
      'USDTTRC → SBERRUB, place 40 below the ceiling',
      { from: 'USDTTRC', to: 'SBERRUB', place: 40, step: '0%', floor: '0%', ceiling: '0.5%' },
    ],
    [
      'BTC → CASHRUB (cash, rows repeated per city), place 5',
      { from: 'BTC', to: 'CASHRUB', place: 5, step: '0%', floor: '0.5%', ceiling: '6%' },
    ],
    [
      'CASHUSD → BTC, place 3 by 0.1%',
      { from: 'CASHUSD', to: 'BTC', place: 3, step: '0.1%', floor: '0%', ceiling: '5%' },
    ],
  ])('%s', (_what, c) => {
    const want = expected(c);
    const got = actual(c);
    // The ranking itself: the counted competitors, best first (rates as exact fractions).
    const ranked = got.detail.fields[0]!.counted.map(({ row }) => `${row.exchangerId} ${row.get}/${row.give}`);
    expect(ranked.map((entry) => entry.split(' ')[0])).toEqual(want.counted.map((row) => row.id));
    got.detail.fields[0]!.counted.forEach(({ row }, i) =>
      expect(cmp(q(row.get), times(want.counted[i]!.rate, q(row.give)))).toBe(0),
    );
    expect(want.counted.length).toBeGreaterThan(c.place - 1);
    expect(got.form).toBe(want.form);
    expect(got.compete.place).toBe(want.place);
    expect(got.compete.competitors).toBe(want.counted.length);
  });

  it('the cases cover every basis', () => {
    expect(
      actual({ from: 'BTC', to: 'SBERRUB', place: 3, step: '0%', floor: '0.5%', ceiling: '5%' }).compete.basis,
    ).toBe('place');
    expect(
      actual({ from: 'USDTTRC', to: 'SBERRUB', place: 2, step: '0%', floor: '0.5%', ceiling: '4%' }).compete.basis,
    ).toBe('floor');
    expect(
      actual({ from: 'USDTTRC', to: 'SBERRUB', place: 40, step: '0%', floor: '0%', ceiling: '0.5%' }).compete.basis,
    ).toBe('ceiling');
  });
});
