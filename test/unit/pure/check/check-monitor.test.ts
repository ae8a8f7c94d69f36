// check --monitor: each profile's prediction against files made from that monitor's parser (test/fixtures/monitors,
// see its README: MoneySwap's from its public code, getrate.cc's, Scanbit's and kurses.com.ua's from their documented
// rules).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { predictMonitor } from '../../../../src/pure/check/monitor.js';
import { loadProfiles, profileNamed } from '../../../../src/io/monitors/load.js';
import { repoRoot } from '../../../support/process.js';

const fixture = (name: string) => readFileSync(join(repoRoot, 'test/fixtures/monitors', name), 'utf8');

/** Each item's verdicts as `item: rule`, in order. */
function verdicts(text: string, monitor: string, profiles: Awaited<ReturnType<typeof loadProfiles>>) {
  const { reading, findings } = predictMonitor(text, profiles.get(monitor)!);
  return { reading, lines: findings.map((finding) => `${finding.item?.index ?? '-'}: ${finding.rule}`) };
}

describe('MoneySwap, from its public parser (tApps-team/moneyswap_back@5bce1fd)', () => {
  it('reads, drops and misreads each item as its code does', async () => {
    const { reading, lines } = verdicts(fixture('moneyswap-cases.xml'), 'moneyswap', await loadProfiles());
    expect(lines).toEqual([
      '2: monitor-dropped', // no <minamount>: inactive
      '3: monitor-dropped', // min not below max
      '4: monitor-misread', // fee on a non-cash item ignored
      '6: monitor-misread', // fee taken off the X the client pays
      '7: monitor-dropped', // a fee without % raises
      '8: monitor-ignored', // second <param>
      '9: monitor-rounded', // 5 decimals, half-up: information
      '10: monitor-misread', // <tofee> never read
      '11: monitor-misread', // a negative <out>: abs() since 131afba, its sign before
      '11: monitor-rounded',
      '12: monitor-dropped', // a zero side: ZeroDivisionError
      '13: monitor-dropped', // the same from/to as item 1, no city: the first takes the direction
      '14: monitor-dropped', // the same from/to/city as item 8 (spb upper-cased): the first read wins
      '15: monitor-unread', // <minfee>0</minfee> not read: zero, information
      '15: monitor-unread', // <tofee>0 %</tofee> not read: zero, information
      // 17: <minAmount>/<maxAmount> are read when <minamount>/<maxamount> are missing; 18: float() reads 1e2.
      '19: monitor-dropped', // float('5,5') raises
      '20: monitor-dropped', // X = 10¹³: 20 characters with its 5 decimals
      '21: monitor-dropped', // 9999999999999.99999 is, as a double, 10¹³
      // 22: 9999999999999.5, a double exactly, is stored.
    ]);
    expect(reading).toEqual({ monitor: 'moneyswap', items: 22, read: 9, dropped: 9, misread: 4 });
  });

  it('grades each finding by what changes for the exchanger', async () => {
    const { findings } = predictMonitor(fixture('moneyswap-cases.xml'), await profileNamed('moneyswap'));
    const severities = (index: number) => findings.filter((f) => f.item?.index === index).map((f) => f.severity);
    expect(severities(9)).toEqual(['info']); // a rate moved by 4×10⁻¹¹ %
    expect(severities(15)).toEqual(['info', 'info']); // zero fees not read
    for (const index of [11, 12, 13, 14]) expect(severities(index)[0]).toBe('error');
    expect(findings.find((f) => f.item?.index === 13)?.message).toBe(
      'MoneySwap: the same direction as item 1, which comes first: only the first is read',
    );
    // A cash item after one that was dropped is read: only a read item takes a city's direction.
    const cash = (city: string, fee: string) =>
      `<item><from>USDTTRC20</from><to>CASHRUB</to><in>1</in><out>92</out><amount>5</amount><fromfee>${fee}</fromfee><minamount>1</minamount><maxamount>9</maxamount><city>${city}</city></item>`;
    const { reading } = predictMonitor(
      `<rates>${cash('MSK', '1 RUB')}${cash('MSK', '1 %')}${cash('MSK', '1 %')}</rates>`,
      await profileNamed('moneyswap'),
    );
    expect(reading).toMatchObject({ items: 3, read: 1, dropped: 2 });
  });

  it('says why, in words', async () => {
    const { findings } = predictMonitor(fixture('moneyswap-cases.xml'), await profileNamed('moneyswap'));
    const message = (index: number) => findings.find((finding) => finding.item?.index === index)?.message;
    expect(message(2)).toBe('MoneySwap: no <minamount> or <maxamount>: the item is made inactive');
    expect(message(8)).toBe('MoneySwap: only the first <param> is read: verifying ignored');
    expect(message(9)).toContain('read as 1:9012345.12346');
    expect(message(11)).toBe(
      'MoneySwap: the rate 1:-0.00123 has a negative side: it is read without its sign (older code read it with it)',
    );
    expect(message(12)).toBe('MoneySwap: a side of the rate 0:0.0345 is zero: normalising it divides by zero');
    expect(message(19)).toBe(
      'MoneySwap: <minamount> 5,5 is not a number float() reads: reading it fails, the item is skipped',
    );
    expect(message(20)).toBe("MoneySwap: the rate's X (10000000000000.00000) has too many digits to be stored");
    expect(message(21)).toBe("MoneySwap: the rate's X (10000000000000.00000) has too many digits to be stored");
  });

  it('reads limits as float() does: an exponent, underscores, inf; NaN is below nothing; no <in> drops the item', async () => {
    const profile = await profileNamed('moneyswap');
    const item = (limits: string, rate = '<in>1</in><out>92</out>') =>
      `<rates><item><from>USDTTRC20</from><to>SBERRUB</to>${rate}<amount>5</amount>${limits}</item></rates>`;
    const read = (limits: string, rate?: string) =>
      predictMonitor(item(limits, rate), profile).findings.map((f) => f.message);
    expect(read('<minamount>1e2 USDT</minamount><maxamount>1_000</maxamount>')).toEqual([]);
    expect(read('<minamount>5</minamount><maxamount>inf</maxamount>')).toEqual([]);
    expect(read('<minamount>nan</minamount><maxamount>5</maxamount>')).toEqual([
      'MoneySwap: minimum nan is not below maximum 5: the item is skipped',
    ]);
    // An empty <minamount> is read under its other name.
    expect(read('<minamount></minamount><minAmount>1</minAmount><maxamount>5</maxamount>')).toEqual([]);
    expect(read('<minamount>1</minamount><maxamount>5</maxamount>', '<out>92</out>')).toEqual([
      'MoneySwap: no <in> or <out>: the item is skipped',
    ]);
  });

  it('BestChange reads the same file without those verdicts', async () => {
    const { reading } = verdicts(fixture('moneyswap-cases.xml'), 'bestchange', await loadProfiles());
    expect(reading).toEqual({ monitor: 'bestchange', items: 22, read: 22, dropped: 0, misread: 0 });
  });
});

describe('getrate.cc, from its documented format', () => {
  it('misreads a fixed <minfee> and a fee naming a currency', async () => {
    const { reading, lines } = verdicts(fixture('getrate-minfee.xml'), 'getrate', await loadProfiles());
    expect(lines).toEqual(['1: monitor-misread', '2: monitor-misread']);
    expect(reading).toMatchObject({ items: 3, read: 1, misread: 2 });
  });
});

describe('Scanbit: minamount and maxamount are required elements, from its documented format', () => {
  it('drops an item without either limit, and reads one with several <minamount>', async () => {
    const { reading, lines } = verdicts(fixture('scanbit-limits.xml'), 'scanbit', await loadProfiles());
    expect(lines).toEqual(['2: monitor-dropped', '3: monitor-dropped']);
    expect(reading).toEqual({ monitor: 'scanbit', items: 4, read: 2, dropped: 2, misread: 0 });
  });

  it('reads in full a file whose every item has both limits', async () => {
    const text = fixture('scanbit-limits.xml')
      .split('\n')
      .filter((line) => !line.includes('<to>SBERRUB</to>') && !line.includes('<to>BTC</to>'))
      .join('\n');
    const { reading, findings } = predictMonitor(text, await profileNamed('scanbit'));
    expect(findings).toEqual([]);
    expect(reading).toEqual({ monitor: 'scanbit', items: 2, read: 2, dropped: 0, misread: 0 });
  });

  it('BestChange reads the same file without dropping a thing (its limits are recommended)', async () => {
    const { reading, lines } = verdicts(fixture('scanbit-limits.xml'), 'bestchange', await loadProfiles());
    expect(lines).toEqual([]);
    expect(reading).toEqual({ monitor: 'bestchange', items: 4, read: 4, dropped: 0, misread: 0 });
  });
});

describe('kurses.com.ua reads JSON only', () => {
  it('reads nothing of an XML file', async () => {
    const { reading, findings } = predictMonitor(fixture('getrate-minfee.xml'), await profileNamed('kurses'));
    expect(reading).toMatchObject({ items: 3, read: 0, dropped: 3 });
    expect(findings.map((finding) => finding.message)).toEqual([
      'kurses.com.ua: reads json only: nothing of this XML file is read',
    ]);
  });

  it('reads each exchange of a JSON file', async () => {
    const json = JSON.stringify({
      version: '1.3',
      currencies: { list: { 1: 'BTC', 2: 'USDTTRC20' } },
      exchange: { 1: { to: { 2: { xr: -96075.29, amount: '485000', min: 0.001, max: 5 } } } },
    });
    const { reading } = predictMonitor(json, await profileNamed('kurses'));
    expect(reading).toEqual({ monitor: 'kurses', items: 1, read: 1, dropped: 0, misread: 0 });
  });
});

describe('exchangesumo: elements in the strictly defined order', () => {
  it("warns about an item whose elements are out of order, and counts it read: the rule is a third party's", async () => {
    const text =
      '<rates><item><from>BTC</from><to>USDTTRC20</to><amount>485000</amount><in>1</in><out>96075.29</out></item></rates>';
    const { reading, findings } = predictMonitor(text, await profileNamed('exchangesumo'));
    expect(reading).toMatchObject({ items: 1, read: 1, dropped: 0 });
    expect(findings).toMatchObject([{ severity: 'warning', rule: 'monitor-order' }]);
  });
});
