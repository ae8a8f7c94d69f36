// check --monitor: each profile's prediction against files made from that monitor's parser (test/fixtures/monitors,
// see its README: MoneySwap's from its public code, getrate.cc's and kurses.com.ua's from their documented rules).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { predictMonitor } from '../../src/check/monitor.js';
import { loadProfiles, profileNamed } from '../../src/monitors/load.js';
import { repoRoot } from '../support/process.js';

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
      '9: monitor-misread', // 5 decimals, half-up
      '10: monitor-misread', // <tofee> never read
    ]);
    expect(reading).toEqual({ monitor: 'moneyswap', items: 10, read: 3, dropped: 3, misread: 4 });
  });

  it('says why, in words', async () => {
    const { findings } = predictMonitor(fixture('moneyswap-cases.xml'), await profileNamed('moneyswap'));
    const message = (index: number) => findings.find((finding) => finding.item?.index === index)?.message;
    expect(message(2)).toBe('MoneySwap: no <minamount> or <maxamount>: the item is made inactive');
    expect(message(8)).toBe('MoneySwap: only the first <param> is read: verifying ignored');
    expect(message(9)).toContain('read as 1:9012345.12346');
  });

  it('BestChange reads the same file without those verdicts', async () => {
    const { reading } = verdicts(fixture('moneyswap-cases.xml'), 'bestchange', await loadProfiles());
    expect(reading).toEqual({ monitor: 'bestchange', items: 10, read: 10, dropped: 0, misread: 0 });
  });
});

describe('getrate.cc, from its documented format', () => {
  it('misreads a fixed <minfee> and a fee naming a currency', async () => {
    const { reading, lines } = verdicts(fixture('getrate-minfee.xml'), 'getrate', await loadProfiles());
    expect(lines).toEqual(['1: monitor-misread', '2: monitor-misread']);
    expect(reading).toMatchObject({ items: 3, read: 1, misread: 2 });
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
  it('drops an item whose elements are out of order', async () => {
    const text =
      '<rates><item><from>BTC</from><to>USDTTRC20</to><amount>485000</amount><in>1</in><out>96075.29</out></item></rates>';
    const { reading } = predictMonitor(text, await profileNamed('exchangesumo'));
    expect(reading).toMatchObject({ items: 1, dropped: 1 });
  });
});
