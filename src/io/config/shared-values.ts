// One object per distinct value among the loaded directions, so the model grows with the distinct values, not with
// the directions.
import { Decimal, percentToFraction } from '../../base/decimal.js';
import { parseHours, type HoursWindow } from '../../base/hours.js';
import type { Currency, Direction, Money } from '../../model/config.js';
import { toTiers, type TierInput } from './tiers.js';

type Tiers = NonNullable<Direction['tiers']>;

/**
 * A large config repeats a few margins, reserves, limits, tag lists, chains, hours and fee texts across its
 * directions; each is made once here and the directions point at it. Safe to share because nothing changes them in
 * place: Decimals are immutable, and the lists and objects are frozen (here, or by `deepFreeze` with the model), so
 * a write would throw rather than reach every direction. Keys are texts joined with NUL, which a YAML-read label,
 * code, pair or amount never holds.
 */
export class SharedValues {
  private readonly texts = new Map<string, string>();
  private readonly decimals = new Map<string, Decimal>();
  private readonly fractions = new Map<string, Decimal>();
  private readonly monies = new Map<string, Money>();
  /** By the list as written; a list and its repeats-removed form map to one object. */
  private readonly lists = new Map<string, readonly string[]>();
  private readonly chains = new Map<string, readonly string[]>();
  private readonly tiers = new Map<string, Tiers>();
  private readonly hours = new Map<string, readonly HoursWindow[]>();

  /** The first string equal to `value`: YAML readers make a new string per occurrence. */
  text<T extends string>(value: T): T {
    const known = this.texts.get(value);
    if (known !== undefined) return known as T;
    this.texts.set(value, value);
    return value;
  }

  decimal(text: string | number): Decimal {
    const key = String(text);
    return this.decimals.get(key) ?? this.decimals.set(key, new Decimal(key)).get(key)!;
  }

  /** "1.5%" → 0.015, one object per text. */
  fraction(text: string): Decimal {
    return this.fractions.get(text) ?? this.fractions.set(text, percentToFraction(text)).get(text)!;
  }

  money(value: Decimal, asset: string): Money {
    const key = `${value.toString()} ${asset}`;
    return this.monies.get(key) ?? this.monies.set(key, Object.freeze({ value, asset })).get(key)!;
  }

  /** "5000 RUB" or "0.01"; a unit that is a currency code means that currency's asset. */
  parseMoney(text: string, fallbackAsset: string, currencies: ReadonlyMap<string, Currency>): Money {
    const [value = '0', unit] = text.split(' ');
    const asset = unit === undefined ? fallbackAsset : (currencies.get(unit)?.asset ?? unit);
    return this.money(this.decimal(value), asset);
  }

  /** The list without repeats, in order; one frozen array per distinct list. */
  list<T extends string>(values: readonly T[] | undefined): readonly T[] {
    const written = values === undefined ? '' : values.join('\0');
    const known = this.lists.get(written);
    if (known) return known as readonly T[];
    const unique = values === undefined ? [] : [...new Set(values)].map((value) => this.text(value));
    const key = unique.join('\0');
    const list = this.lists.get(key) ?? Object.freeze(unique);
    this.lists.set(key, list).set(written, list);
    return list as readonly T[];
  }

  /** A chain as written (a pair may come back, so nothing is removed); one frozen array per distinct chain. */
  chain(pairs: readonly string[]): readonly string[] {
    const key = pairs.join('\0');
    return this.chains.get(key) ?? this.chains.set(key, Object.freeze(pairs.map((pair) => this.text(pair)))).get(key)!;
  }

  tierList(tiers: readonly TierInput[]): Tiers {
    const key = tiers.map((tier) => `${tier.from}\0${tier.margin}`).join('\0');
    return this.tiers.get(key) ?? this.tiers.set(key, toTiers(tiers)).get(key)!;
  }

  /** Working hours as windows; the schema checked every text, so each parses. */
  hoursList(texts: readonly string[]): readonly HoursWindow[] {
    const key = texts.join('\0');
    return (
      this.hours.get(key) ??
      this.hours
        .set(
          key,
          texts.map((text) => parseHours(text) as HoursWindow),
        )
        .get(key)!
    );
  }
}
