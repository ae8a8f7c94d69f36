// What a monitor's profile changes after pricing (src/pure/exports/monitor-fields.ts), and the shipped profiles themselves.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { monitorFields, type MonitorInput } from '../../../../src/pure/exports/monitor-fields.js';
import { loadTemplates } from '../../../../src/io/exports/template.js';
import { loadProfiles, profileNamed } from '../../../../src/io/monitors/load.js';

const sides = { from: { code: 'USDTTRC20', asset: 'USDT' }, to: { code: 'CARDRUB', asset: 'RUB' } };
const item = (fields: Partial<MonitorInput> = {}): MonitorInput => ({
  in: '1',
  out: '92.04',
  minamount: '108.65',
  maxamount: '3259.45',
  ...fields,
});

describe('the shipped profiles', () => {
  it('are all valid and each names the source of its rules', async () => {
    const profiles = await loadProfiles();
    expect([...profiles.keys()]).toEqual([
      'bestchange-eref',
      'bestchange',
      'exchangesumo',
      'exnode',
      'getrate',
      'kurses',
      'moneyswap',
      'scanbit',
    ]);
    for (const profile of profiles.values()) expect(Object.keys(profile.sources).length).toBeGreaterThan(0);
    expect((await profileNamed('kurses')).formats).toEqual(['json']);
  });

  it('an unknown name is a usage error naming the closest', async () => {
    await expect(profileNamed('moneyswp')).rejects.toThrow('unknown monitor "moneyswp" (did you mean "moneyswap"?)');
  });

  it('a broken profile is refused with its file, path and what was expected', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-profiles-'));
    try {
      await writeFile(join(dir, 'bad.yaml'), 'title: Bad\nparser: public\nformats: [csv]\nfees: as-written\n');
      await expect(loadProfiles(dir)).rejects.toMatchObject({
        details: expect.arrayContaining([
          expect.stringMatching(
            /^data\/monitors\/bad\.yaml: formats\[0\]: expected one of classic, eref-1\.1, json, got "csv" \(line 3\)$/,
          ),
        ]),
      });
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});

describe('MoneySwap: fees folded into the rate, against the client', () => {
  it('a tofee lowers what the client gets and is not written', async () => {
    const patch = monitorFields(await profileNamed('moneyswap'), item({ tofee: '1 %' }), sides);
    expect(patch).toEqual({ in: '1', out: '91.1196', fromfee: undefined, tofee: undefined });
  });

  it('a fromfee raises what the client pays, rounded up at the 5 decimals MoneySwap reads', async () => {
    const patch = monitorFields(await profileNamed('moneyswap'), item({ in: '93.5', out: '1', fromfee: '1 %' }), sides);
    expect(patch).toEqual({ in: '94.435', out: '1', fromfee: undefined, tofee: undefined });
    const odd = monitorFields(await profileNamed('moneyswap'), item({ in: '93.123456', out: '1' }), sides);
    expect(odd).toEqual({ in: '93.12346', out: '1', fromfee: undefined, tofee: undefined });
    const gets = monitorFields(await profileNamed('moneyswap'), item({ out: '9012345.123456' }), sides);
    expect(gets).toMatchObject({ out: '9012345.12345' });
  });

  it('a fixed fee cannot be folded: the direction is left out, with the reason', async () => {
    expect(monitorFields(await profileNamed('moneyswap'), item({ tofee: '2 USD' }), sides)).toEqual({
      kind: 'format',
      reason: 'MoneySwap: tofee 2 USD is not a percentage: only a percentage can be folded into the rate',
    });
  });

  it('a direction without a minimum, or with min not below max, is left out', async () => {
    const moneyswap = await profileNamed('moneyswap');
    expect(monitorFields(moneyswap, item({ minamount: undefined }), sides)).toMatchObject({ kind: 'format' });
    expect(monitorFields(moneyswap, item({ minamount: '5', maxamount: '5' }), sides)).toMatchObject({
      reason: 'MoneySwap: an item whose minimum 5 is not below its maximum 5 is dropped',
    });
  });
});

describe('Scanbit: limits are required elements', () => {
  it('a direction without a minimum or a maximum is left out of its file, with the reason; BestChange keeps it', async () => {
    const scanbit = await profileNamed('scanbit');
    for (const missing of [{ minamount: undefined }, { maxamount: undefined }])
      expect(monitorFields(scanbit, item(missing), sides)).toEqual({
        kind: 'format',
        reason: 'Scanbit: an item without <minamount> and <maxamount> is made inactive; the direction has no minimum',
      });
    expect(monitorFields(scanbit, item({}), sides)).toBe(undefined);
    expect(monitorFields(await profileNamed('bestchange'), item({ maxamount: undefined }), sides)).toBe(undefined);
  });
});

describe('getrate.cc: minfee means the gap to the market rate', () => {
  it('a fixed minimum fee is not written there: the direction is left out', async () => {
    expect(monitorFields(await profileNamed('getrate'), item({ minfee: '500 RUB' }), sides)).toEqual({
      kind: 'format',
      reason:
        'getrate.cc: <minfee> is read as the least gap to the average market rate, not the fixed minimum fee 500 RUB',
    });
  });

  it('BestChange takes the same direction as it is', async () => {
    expect(monitorFields(await profileNamed('bestchange'), item({ minfee: '500 RUB', tofee: '1 %' }), sides)).toBe(
      undefined,
    );
  });

  it('a fee in the side currency is the plain number getrate reads; another currency leaves the direction out', async () => {
    const getrate = await profileNamed('getrate');
    expect(monitorFields(getrate, item({ tofee: '40 RUB' }), sides)).toEqual({ fromfee: undefined, tofee: '40' });
    expect(monitorFields(getrate, item({ tofee: '1 USD' }), sides)).toMatchObject({ kind: 'format' });
  });
});

describe("a profile's currency-code map", () => {
  it("applies under the template's own aliases", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-codes-'));
    try {
      await mkdir(join(dir, 'profiles'));
      await mkdir(join(dir, 'templates'));
      await writeFile(
        join(dir, 'profiles', 'renamed.yaml'),
        [
          'title: Renamed',
          'parser: documented',
          'formats: [classic]',
          'codes: { USDTTRC20: TRC20USDT, SBERRUB: SBER }',
          'fees: as-written',
          'minfee: fixed',
          'limits: recommended',
          'minBelowMax: false',
          'labels: all',
          'order: any',
          'sources: { codes: https://monitor.example/codes }',
          '',
        ].join('\n'),
      );
      await writeFile(join(dir, 'templates', 'renamed.yaml'), 'monitor: renamed\naliases: { SBERRUB: SBRF }\n');
      const { templates, problems } = await loadTemplates(
        join(dir, 'templates'),
        new Set(['USDTTRC20', 'SBERRUB']),
        dir,
        join(dir, 'profiles'),
      );
      expect(problems).toEqual([]);
      expect(templates[0]).toMatchObject({
        file: 'renamed.xml',
        format: 'classic',
        aliases: { USDTTRC20: 'TRC20USDT', SBERRUB: 'SBRF' },
      });
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});
