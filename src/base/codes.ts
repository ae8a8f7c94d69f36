// The monitors' currency and city code lists, shipped in data/ (see data/README.md for their origin).
import { readFileSync } from 'node:fs';

export interface KnownCurrency {
  code: string;
  name: string;
  kind: string;
  asset: string;
}

export interface KnownCity {
  code: string;
  name: string;
  country: string;
}

function readTsv(file: string): string[][] {
  const text = readFileSync(new URL(`../../data/${file}`, import.meta.url), 'utf8');
  return text
    .split('\n')
    .slice(1)
    .filter((line) => line !== '')
    .map((line) => line.split('\t'));
}

let currencies: Map<string, KnownCurrency> | undefined;
let cities: Map<string, KnownCity> | undefined;

export function knownCurrencies(): ReadonlyMap<string, KnownCurrency> {
  currencies ??= new Map(
    readTsv('currency-codes.tsv').map(([code = '', name = '', kind = '', asset = '']) => [
      code,
      { code, name, kind, asset },
    ]),
  );
  return currencies;
}

export function knownCities(): ReadonlyMap<string, KnownCity> {
  cities ??= new Map(
    readTsv('city-codes.tsv').map(([code = '', name = '', country = '']) => [code, { code, name, country }]),
  );
  return cities;
}
