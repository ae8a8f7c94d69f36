// The BestChange feed parser: the real 2021 dump (checked against an independent read with zlib), synthetic
// dumps in the 11-field layout (cities, min/max) built with fflate, and every fault that fails the feed.
import { readFileSync } from 'node:fs';
import { Decimal as DecimalJs } from 'decimal.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { competitors, parseFeed, type BestChangeFeed } from '../../../../src/pure/bestchange/feed.js';
import { base, dump, realDump, unzipByHand } from '../../../support/bestchange.js';

describe('the real dump of 25 March 2021 (8-field layout)', () => {
  let zip: Buffer;
  let feed: BestChangeFeed;
  let raw: Map<string, Buffer>;
  beforeAll(() => {
    zip = readFileSync(realDump);
    feed = parseFeed(zip);
    raw = unzipByHand(zip);
  });

  it('has every row, exchanger and currency', () => {
    expect(feed.layout).toBe(8);
    expect(feed.rows).toBe(202_690);
    expect(feed.exchangers.size).toBe(415);
    expect(feed.currencies.size).toBe(206);
    expect([...feed.directions.values()].reduce((sum, rows) => sum + rows.length, 0)).toBe(202_690);
    expect(feed.lastUpdate).toBe('21:51:37, 25 марта');
    expect(feed.currencies.has('SBERRUB')).toBe(true);
  });

  it('matches an independent read of the raw text, row by row for a sample', () => {
    const text = (name: string) => new TextDecoder('windows-1251').decode(raw.get(name)!);
    const codes = new Map(
      text('bm_cycodes.dat')
        .trim()
        .split('\n')
        .map((line) => line.trim().split(';') as [string, string]),
    );
    const names = new Map(
      text('bm_exch.dat')
        .trim()
        .split('\n')
        .map((line) => line.trim().split(';').slice(0, 2) as [string, string]),
    );
    const lines = text('bm_rates.dat').trim().split('\n');
    expect(lines).toHaveLength(202_690);
    for (const index of [0, 1, 777, 100_000, 202_689]) {
      const [from, to, exchanger, give, get, reserve] = lines[index]!.trim().split(';') as [
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      const rows = feed.directions.get(`${codes.get(from)}>${codes.get(to)}`) ?? [];
      expect(rows).toContainEqual({
        exchangerId: Number(exchanger),
        exchanger: names.get(exchanger),
        give,
        get,
        reserve,
      });
    }
  });

  it('ranks a direction by get/give in Decimal, best first, as the raw rows do', () => {
    const text = raw.get('bm_rates.dat')!.toString('latin1');
    const ids = new Map(
      raw
        .get('bm_cycodes.dat')!
        .toString('latin1')
        .trim()
        .split('\n')
        .map((line) => line.trim().split(';').reverse() as [string, string]),
    );
    const [btc, sber] = [ids.get('BTC'), ids.get('SBERRUB')];
    const expected = text
      .split('\n')
      .map((line) => line.trim().split(';'))
      .filter((fields) => fields[0] === btc && fields[1] === sber)
      .map((fields) => new DecimalJs(fields[4]!).div(fields[3]!).toString())
      .sort((a, b) => new DecimalJs(b).comparedTo(a));
    expect(expected.length).toBeGreaterThan(10);
    const ranked = competitors(feed, 'BTC', 'SBERRUB');
    expect(ranked.map((c) => c.rate.toString())).toEqual(expected);
  });
});

describe('a synthetic dump in the 11-field layout', () => {
  it('reads min, max and cities; names decoded from windows-1251; ranks by get per unit given', () => {
    const feed = parseFeed(dump(base), { cities: { Владивосток: 'VLAD' } });
    expect(feed.layout).toBe(11);
    expect(feed.rows).toBe(7);
    const ranked = competitors(feed, 'BTC', 'SBERRUB');
    expect(ranked.map((c) => [c.row.exchanger, c.row.get, c.row.min, c.row.max, c.row.reserve])).toEqual([
      ['FastSwap', '5100000.5', '0.01', '1', '900000'],
      ['Third', '5100000.49', '0.005', '3', '5000000'],
      ['Обменник', '5000000', '0.001', '2', '120000000'],
    ]);
    // Cash: Moscow by its English name in data/city-codes.tsv, Владивосток by the config override by name.
    const moscow = competitors(feed, 'SBERRUB', 'CASHUSD', 'MSK');
    expect(moscow.map((c) => [c.row.exchanger, c.rate.toFixed(6)])).toEqual([
      ['FastSwap', new DecimalJs(1).div('94.1').toFixed(6)],
      ['Обменник', new DecimalJs(1).div('95.5').toFixed(6)],
    ]);
    expect(competitors(feed, 'SBERRUB', 'CASHUSD', 'VLAD').map((c) => c.row.give)).toEqual(['93']);
    expect(competitors(feed, 'SBERRUB', 'CASHUSD')).toEqual([]);
    expect(feed.unmappedCities).toEqual(['3 Нижний Тагил']);
    expect(feed.directions.get('SBERRUB>CASHUSD@#3')?.map((row) => row.give)).toEqual(['96']);
  });

  it('maps a city by its BestChange id from the config', () => {
    const feed = parseFeed(dump(base), { cities: { '3': 'NTAG', '2': 'VLAD' } });
    expect(feed.unmappedCities).toEqual([]);
    expect(competitors(feed, 'SBERRUB', 'CASHUSD', 'NTAG').map((c) => c.row.give)).toEqual(['96']);
    expect(feed.cities.get(3)).toEqual({ id: 3, name: 'Нижний Тагил', code: 'NTAG' });
  });

  it('reads a dump without bm_cities.dat (city ids stay unmapped)', () => {
    const feed = parseFeed(dump({ ...base, 'bm_cities.dat': undefined }));
    expect(feed.cities.size).toBe(0);
    expect(feed.unmappedCities).toEqual([
      '1 (not in bm_cities.dat)',
      '2 (not in bm_cities.dat)',
      '3 (not in bm_cities.dat)',
    ]);
  });
});

describe('a broken feed fails with the file and line', () => {
  const faults: [string, () => Uint8Array, RegExp][] = [
    ['a truncated zip', () => dump(base).subarray(0, 300), /not a readable zip/],
    [
      'a missing bm_rates.dat',
      () => dump({ ...base, 'bm_rates.dat': undefined }),
      /bm_rates\.dat is missing from the zip/,
    ],
    ['a missing bm_cycodes.dat', () => dump({ ...base, 'bm_cycodes.dat': undefined }), /bm_cycodes\.dat is missing/],
    ['a missing bm_exch.dat', () => dump({ ...base, 'bm_exch.dat': undefined }), /bm_exch\.dat is missing/],
    [
      'a row with 9 fields',
      () => dump({ ...base, 'bm_rates.dat': `${base['bm_rates.dat']}\r\n2;1;10;1;5;6;0;0;1` }),
      /bm_rates\.dat line 8: expected 8 or 11 fields, got 9/,
    ],
    [
      'an 8-field row among 11-field ones',
      () => dump({ ...base, 'bm_rates.dat': `${base['bm_rates.dat']}\n2;1;10;1;5;6;0;0` }),
      /line 8: 8 fields where earlier rows have 11/,
    ],
    [
      'a give in exponent form',
      () => dump({ ...base, 'bm_rates.dat': base['bm_rates.dat'].replace('2;1;20;1;', '2;1;20;1e0;') }),
      /bm_rates\.dat line 2: give "1e0" is not a decimal/,
    ],
    [
      'an empty reserve',
      () => dump({ ...base, 'bm_rates.dat': base['bm_rates.dat'].replace(';900000;', ';;') }),
      /line 2: reserve "" is not a decimal/,
    ],
    [
      'an unknown currency id',
      () => dump({ ...base, 'bm_rates.dat': base['bm_rates.dat'].replace('1;3;30;93;', '1;9;30;93;') }),
      /line 6: currency id 9 is not in bm_cycodes\.dat/,
    ],
    [
      'an unknown exchanger id',
      () => dump({ ...base, 'bm_rates.dat': base['bm_rates.dat'].replace('2;1;30;', '2;1;31;') }),
      /line 3: exchanger id 31 is not in bm_exch\.dat/,
    ],
    [
      'a bad city id',
      () => dump({ ...base, 'bm_rates.dat': base['bm_rates.dat'].replace(/;1$/m, ';x') }),
      /line 4: city id "x" is not an id/,
    ],
    [
      'a bad cycodes line',
      () => dump({ ...base, 'bm_cycodes.dat': '1;SBERRUB\nBTC\n' }),
      /bm_cycodes\.dat line 2: id "BTC" is not an id/,
    ],
    ['no rows', () => dump({ ...base, 'bm_rates.dat': '' }), /bm_rates\.dat has no rows/],
  ];
  for (const [name, make, message] of faults) {
    it(name, () => {
      expect(() => parseFeed(make())).toThrow(message);
    });
  }
});
