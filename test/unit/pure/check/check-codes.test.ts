// The shipped code lists (data/): the format the loader (src/base/codes.ts) reads, and the row counts data/README.md
// states (its table is the lists' record of what was compiled, from the public sources it names).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { knownCities, knownCurrencies } from '../../../../src/base/codes.js';
import { repoRoot } from '../../../support/process.js';

const lists = [
  ['currency-codes.tsv', ['code', 'name', 'kind', 'asset']],
  ['city-codes.tsv', ['code', 'name', 'country']],
] as const;
const kinds = ['crypto', 'stablecoin', 'ewallet', 'bank', 'card', 'wire', 'cash', 'transfer', 'other'];

describe('code lists', () => {
  it.each(lists)('data/%s has as many rows as data/README.md says', (file) => {
    const rows =
      readFileSync(join(repoRoot, 'data', file), 'utf8')
        .trimEnd()
        .split('\n').length - 1;
    const readme = readFileSync(join(repoRoot, 'data', 'README.md'), 'utf8');
    const stated = new RegExp(`^\\| \`${file.replace('.', '\\.')}\` \\|.*\\| (\\d+) \\|$`, 'm').exec(readme);
    expect(stated, `data/README.md has no row for ${file}`).not.toBeNull();
    expect(rows).toBe(Number(stated?.[1]));
  });

  it.each(lists)('data/%s: a header, then tab-separated rows sorted by code, each code once', (file, header) => {
    const [first, ...rows] = readFileSync(join(repoRoot, 'data', file), 'utf8').split('\n');
    expect(first?.split('\t')).toEqual(header);
    expect(rows.pop()).toBe('');
    const codes = rows.map((row) => row.split('\t')[0] ?? '');
    for (const row of rows) expect(row.split('\t'), row).toHaveLength(header.length);
    for (const code of codes) expect(code).toMatch(/^[A-Z0-9]+$/);
    expect(codes).toEqual([...codes].sort());
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('the loader reads every row', () => {
    const currencyRows =
      readFileSync(join(repoRoot, 'data', 'currency-codes.tsv'), 'utf8')
        .trimEnd()
        .split('\n').length - 1;
    const cityRows =
      readFileSync(join(repoRoot, 'data', 'city-codes.tsv'), 'utf8')
        .trimEnd()
        .split('\n').length - 1;
    expect(knownCurrencies().size).toBe(currencyRows);
    expect(knownCities().size).toBe(cityRows);
    expect(knownCurrencies().get('USDTTRC20')).toEqual({
      code: 'USDTTRC20',
      name: expect.any(String) as unknown,
      kind: 'stablecoin',
      asset: 'USDT',
    });
    expect(knownCities().get('MSK')).toMatchObject({ code: 'MSK', country: 'RU' });
    for (const currency of knownCurrencies().values()) expect(kinds, currency.code).toContain(currency.kind);
  });
});
