import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../../../src/pure/bestchange/feed.js';
import { fieldCore } from '../../../../src/pure/compete/field.js';
import { base, dump } from '../../../support/bestchange.js';
import { competeCurrency, competeRule } from '../../../support/compete.js';

const BTC = competeCurrency('BTC', 'BTC', 8);
const SBER = competeCurrency('SBERRUB', 'RUB', 2);
const feed = parseFeed(
  dump({
    ...base,
    'bm_exch.dat': '2;Bravo;;0;1\n3;Charlie;;0;1\n4;Delta;;0;1\n',
    'bm_rates.dat': [2, 3, 4].map((id) => `2;1;${id};1;${4_900_000 + id};90000000;0.1;0;0.001;2;0`).join('\n'),
  }),
);

describe('the fields of one feed', () => {
  it('share the ranking of their codes when every row counts: a direction competing keeps no copy of its rows', () => {
    const [a, b] = [competeRule(), competeRule({ worst: 1 })].map((rule) =>
      fieldCore(feed, BTC, SBER, rule, undefined, undefined),
    );
    expect(a!.counted.map((entry) => entry.row.exchanger)).toEqual(['Delta', 'Charlie', 'Bravo']);
    expect(b!.counted).toBe(a!.counted);
    expect(b!.entries).toBe(a!.entries);
    expect(b!.approx).toBe(a!.approx);
    expect([...a!.approx]).toEqual(a!.counted.map(({ row }) => Number(row.get) / Number(row.give)));
  });

  it('count apart what a rule leaves out, with the rows it counts as they are ranked', () => {
    const all = fieldCore(feed, BTC, SBER, competeRule(), undefined, undefined);
    const some = fieldCore(feed, BTC, SBER, competeRule({ ignoreNames: new Set(['charlie']) }), undefined, undefined);
    expect(some.counted.map((entry) => entry.row.exchanger)).toEqual(['Delta', 'Bravo']);
    expect(some.entries.map((entry) => entry.excluded)).toEqual([undefined, 'ignored', undefined]);
    expect(some.counted[0]).toBe(all.counted[0]);
    expect([...some.approx]).toEqual([all.approx[0], all.approx[2]]);
  });
});
