// The back office's labels and on/off switch (`switchesFrom:`): entries keyed by direction id replace the config's
// params, bring or drop the config's manualHours, switch a direction off (kind `paused`), and withhold it (kind
// `reserve`, naming the source) when the source gives no usable entry.
import { describe, expect, it } from 'vitest';
import { parseHours } from '../../../../src/base/hours.js';
import type { HoursWindow } from '../../../../src/base/hours.js';
import type { ReserveBook } from '../../../../src/model/reserve-source.js';
import { EntryProblem } from '../../../../src/pure/reserves/entry.js';
import { applySwitches, checkSwitch, labelsOf } from '../../../../src/pure/reserves/switches.js';
import { testCurrency, testDirection } from '../../../support/model.js';

const btc = testCurrency('BTC', 'BTC', 8);
const rub = testCurrency('SBERRUB', 'RUB', 2);
const manualHours = [parseHours('Mon-Fri 09:00-21:00 Europe/Moscow') as HoursWindow];
const switchable = testDirection(btc, rub, { switchesFrom: 'office', params: ['verifying'] });
const book = (entries: Record<string, unknown>): ReserveBook =>
  new Map([['office', { entries: new Map(Object.entries(entries)), time: new Date('2026-11-21T12:00:00Z') }]]);

describe('labelsOf', () => {
  it('reads a text (commas or spaces) or a list, in BestChange order, each once', () => {
    expect(labelsOf('k', 'verifying, manual')).toEqual(['manual', 'verifying']);
    expect(labelsOf('k', 'cardverify manual,manual')).toEqual(['manual', 'cardverify']);
    expect(labelsOf('k', ['reg', 'MANUAL'])).toEqual(['manual', 'reg']);
    expect(labelsOf('k', '{reg,manual}')).toEqual(['manual', 'reg']);
    expect(labelsOf('k', '{}')).toEqual([]);
    expect(labelsOf('k', '')).toEqual([]);
    expect(labelsOf('k', [])).toEqual([]);
  });
  it('leaves the config its labels when there are none given, and refuses what is not a label', () => {
    expect(labelsOf('k', null)).toBeUndefined();
    expect(labelsOf('k', undefined)).toBeUndefined();
    expect(labelsOf('k', 'manual,maunal')).toMatch(/^k: label "maunal" is not one of manual, juridical, /);
    expect(labelsOf('k', 5)).toMatch(/^k: labels .* is not a text like "manual,verifying" or a list/);
  });
});

describe('checkSwitch', () => {
  it('reads enabled as the reserves do and labels when given', () => {
    expect(checkSwitch('A>B', { enabled: '0' })).toEqual({ enabled: false });
    expect(checkSwitch('A>B', { enabled: true, labels: 'reg' })).toEqual({ enabled: true, labels: ['reg'] });
    expect(checkSwitch('A>B', { labels: 'reg' })).toEqual({ enabled: true, labels: ['reg'] });
    expect(checkSwitch('A>B', { enabled: 'maybe' })).toBe('A>B: enabled "maybe" is not true or false');
    expect(checkSwitch('A>B', undefined)).toBe('no entry for A>B');
    expect(checkSwitch('A>B', {})).toBe('A>B: neither enabled nor labels');
    expect(checkSwitch('A>B', '5')).toMatch(/^A>B: "5" is not a mapping/);
    expect(checkSwitch('A>B', new EntryProblem('2 rows for one code (expected one)'))).toBe(
      'A>B: 2 rows for one code (expected one)',
    );
  });
});

describe('applySwitches', () => {
  it('leaves a direction without switchesFrom as it is', () => {
    const plain = testDirection(btc, rub);
    const { directions, withheld } = applySwitches([plain], new Map());
    expect(directions[0]).toBe(plain);
    expect(withheld).toEqual([]);
  });

  it("replaces the config's params with the back office's labels, and says so for explain", () => {
    const { directions } = applySwitches([switchable], book({ 'BTC>SBERRUB': { enabled: 'true', labels: 'manual' } }));
    expect(directions[0]).toMatchObject({ id: 'BTC>SBERRUB', params: ['manual'] });
    expect(directions[0]!.switched).toEqual([
      "Switch and labels from office: BTC>SBERRUB on, labels manual (in place of the config's: verifying)",
    ]);
    expect(switchable.params).toEqual(['verifying']);
  });

  it("keeps the config's params when the entry gives no labels; empty labels publish none", () => {
    const kept = applySwitches([switchable], book({ 'BTC>SBERRUB': { enabled: true, labels: null } }));
    expect(kept.directions[0]!.params).toEqual(['verifying']);
    const none = applySwitches([switchable], book({ 'BTC>SBERRUB': { enabled: true, labels: '' } }));
    expect(none.directions[0]!.params).toEqual([]);
  });

  it('gives the same copy build after build for the same labels, a new one when they change', () => {
    const first = applySwitches([switchable], book({ 'BTC>SBERRUB': { labels: 'manual' } })).directions[0];
    const again = applySwitches([switchable], book({ 'BTC>SBERRUB': { labels: 'manual' } })).directions[0];
    const changed = applySwitches([switchable], book({ 'BTC>SBERRUB': { labels: 'reg' } })).directions[0];
    expect(again).toBe(first);
    expect(changed).not.toBe(first);
    expect(changed!.params).toEqual(['reg']);
  });

  it("brings the config's manualHours with a manual label and drops them without; own hours always stand", () => {
    const following = testDirection(btc, rub, {
      switchesFrom: 'office',
      params: ['manual'],
      manualHours,
      hours: manualHours,
    });
    const manual = applySwitches([following], book({ 'BTC>SBERRUB': { labels: 'manual,verifying' } })).directions[0]!;
    expect(manual.hours).toBe(manualHours);
    expect(manual.switched).toContain("Working hours: the config's manualHours, as a manual direction");
    const automatic = applySwitches([following], book({ 'BTC>SBERRUB': { labels: 'verifying' } })).directions[0]!;
    expect(automatic.hours).toBeUndefined();
    expect(automatic.params).toEqual(['verifying']);

    const own = [parseHours('Mon-Sun 10:00-20:00 UTC') as HoursWindow];
    const ownHours = testDirection(btc, rub, { switchesFrom: 'office', hours: own });
    expect(applySwitches([ownHours], book({ 'BTC>SBERRUB': { labels: '' } })).directions[0]!.hours).toBe(own);
  });

  it('withholds a direction switched off as paused, naming the source', () => {
    const { directions, withheld } = applySwitches(
      [switchable],
      book({ 'BTC>SBERRUB': { enabled: false, labels: 'manual' } }),
    );
    expect(directions).toEqual([]);
    expect(withheld).toEqual([
      { direction: switchable, kind: 'paused', reason: 'switched off by office (BTC>SBERRUB enabled: false)' },
    ]);
  });

  it('withholds (kind reserve, naming the source) when the source failed, gives no entry or an unusable one', () => {
    const reasons = (reading: ReserveBook) =>
      applySwitches([switchable], reading).withheld.map((w) => `${w.kind} ${w.reason}`);
    expect(reasons(new Map())).toEqual(['reserve labels and switch of BTC>SBERRUB from office: not read']);
    expect(reasons(new Map([['office', { error: 'office: connection refused' }]]))).toEqual([
      'reserve labels and switch of BTC>SBERRUB from office: office: connection refused',
    ]);
    expect(reasons(book({ 'SBERRUB>BTC': { enabled: true } }))).toEqual([
      'reserve labels and switch of BTC>SBERRUB from office: no entry for BTC>SBERRUB',
    ]);
    expect(reasons(book({ 'BTC>SBERRUB': { labels: 'manual,vip' } }))).toEqual([
      expect.stringMatching(
        /^reserve labels and switch of BTC>SBERRUB from office: BTC>SBERRUB: label "vip" is not one of/,
      ),
    ]);
  });
});
