// The monitors' currency codes numbered, so that work done per item (the duplicates check) indexes arrays by number
// instead of hashing codes again and again.
import { knownCities, knownCurrencies, type KnownCurrency } from '../../base/codes.js';

export interface NumberedCurrencies {
  /** Each known code's number: its place in `list`. */
  numbers: ReadonlyMap<string, number>;
  list: readonly KnownCurrency[];
}

let numbered: NumberedCurrencies | undefined;

export function numberedCurrencies(): NumberedCurrencies {
  if (!numbered) {
    const list = [...knownCurrencies().values()];
    numbered = { list, numbers: new Map(list.map((currency, number) => [currency.code, number])) };
  }
  return numbered;
}

let cities: ReadonlyMap<string, number> | undefined;

/** Each known city code's number (its place in the city list), for the same reason. */
export function numberedCities(): ReadonlyMap<string, number> {
  cities ??= new Map([...knownCities().keys()].map((code, number) => [code, number]));
  return cities;
}
