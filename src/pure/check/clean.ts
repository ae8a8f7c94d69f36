// A quick test that an item in the standard form (the rule table's pattern, rules.ts: elements in order, those an
// item must have there, codes alphanumeric, numbers plain, no value empty or with space around it) has nothing to
// report. It is conservative: "clean" means checkItem (item.ts) would report nothing at all for the item; whenever
// it is not sure it says no, and the item gets the full rules. It finds the elements by the table: the ones whose
// values it weighs together (codes, rate, reserve, limits, city) by name, only while the table gives them the kinds
// it knows, and every other element by its kind; an element of a kind it has no quick test for is never cleared. Numbers are read as digits (never Decimal) and compared as doubles when clearly
// apart, and else exactly from the same digits (plain.ts: doubles below 2^53, BigInt past it); what repeats from
// item to item (codes, labels, the address's host) is looked at once.
import { knownCities } from '../../base/codes.js';
import { labels } from '../../base/config/fields.js';
import { isKnownUnit } from './item-values.js';
import { numberedCurrencies } from './numbered.js';
import { compare, compareScaled, exactLimit, exceedsScaled, paysMoreThan } from './plain.js';
import { itemRules, type ItemRules, type ValueKind } from './rules.js';
import { decodeText, type StandardTexts } from './simple.js';
import { parseFee, parseFloating } from './values.js';

/** The direction of a clean item, for the duplicates check: its currencies by number (numbered.ts), and its city. */
export interface Direction {
  from: number;
  to: number;
  city?: string;
}

/** The elements whose values the quick test weighs together, with the kind it knows each as. */
const roles = {
  from: 'currency',
  to: 'currency',
  in: 'number',
  out: 'number',
  amount: 'reserve',
  minamount: 'minimum',
  maxamount: 'maximum',
  city: 'cities',
} as const satisfies Record<string, ValueKind>;
/** Those every item of the standard form has (the rest, the city, may be absent). */
const always: readonly (keyof typeof roles)[] = ['from', 'to', 'in', 'out', 'amount', 'minamount', 'maxamount'];
const knownLabels: ReadonlySet<string> = new Set(labels);

/** Relative distance below which doubles do not decide (their error here stays below 1e-13). */
const margin = 1e-12;
/** Longer numbers are left to the full rules, so that a double of their digits is normal and close to exact. */
const maxDigits = 60;
const powersOfTen = Array.from({ length: maxDigits + 1 }, (_, exponent) => Number(`1e${exponent}`));
/** Where `number` reads each number to. */
const [inPlace, outPlace, amountPlace, minPlace, maxPlace, delayPlace] = [0, 1, 2, 3, 4, 5] as const;
const numberPlaces = 6;

/** The quick test, with what it remembers from item to item (files repeat codes, labels and the address's host). */
export class CleanItems {
  /**
   * What `number` read into each place: the number, its digits as an integer (exact while below 2^53) and their
   * scale (digits after the dot), its whole part, and whether a digit after the dot is not 0.
   */
  private readonly values = new Float64Array(numberPlaces);
  private readonly digits = new Float64Array(numberPlaces);
  private readonly scales = new Int32Array(numberPlaces);
  private readonly wholes = new Float64Array(numberPlaces);
  private readonly fractions = new Uint8Array(numberPlaces);
  private previousFrom = '';
  private previousNumber: number | undefined;
  private previousParam = '';
  private readonly labelVerdicts = new Map<string, boolean>();
  /** The scheme and authority of the last good address (see `httpUrl`), or empty. */
  private authority = '';
  /** Where each role's text is in StandardTexts (`1 + rank` in the table). */
  private readonly slot: Readonly<Record<keyof typeof roles, number>>;
  /** Every other element of the table: where its text is, and its kind. */
  private readonly otherSlots: readonly number[];
  private readonly otherKinds: readonly ValueKind[];
  /** Whether the table has the roles as this test knows them; if not, no item is cleared. */
  private readonly usable: boolean;

  constructor(rules: ItemRules = itemRules()) {
    const slot = (name: string) => 1 + (rules.byName.get(name)?.rank ?? -1);
    this.slot = {
      from: slot('from'),
      to: slot('to'),
      in: slot('in'),
      out: slot('out'),
      amount: slot('amount'),
      minamount: slot('minamount'),
      maxamount: slot('maxamount'),
      city: slot('city'),
    };
    this.usable = Object.entries(roles).every(([name, kind]) => {
      const rule = rules.byName.get(name);
      return rule?.value === kind && (rule.missing !== undefined || !always.includes(name as keyof typeof roles));
    });
    const others = rules.elements.filter((rule) => !Object.hasOwn(roles, rule.name));
    this.otherSlots = others.map((rule) => slot(rule.name));
    this.otherKinds = others.map((rule) => rule.value);
  }

  /** The item's direction when it has nothing to report; undefined when it may have. */
  test(texts: StandardTexts): Direction | undefined {
    if (!this.usable) return undefined;
    const { from, to, city } = this.slot;
    // Codes are letters and digits in the standard form, so they read as written. Items come sorted by from.
    const { numbers, list } = numberedCurrencies();
    const fromCode = texts[from]!;
    const toCode = texts[to]!;
    if (fromCode !== this.previousFrom) {
      this.previousFrom = fromCode;
      this.previousNumber = numbers.get(fromCode);
    }
    const fromNumber = this.previousNumber;
    const toNumber = numbers.get(toCode);
    if (fromNumber === undefined || toNumber === undefined || fromCode === toCode) return undefined;
    const fromCurrency = list[fromNumber]!;
    const toCurrency = list[toNumber]!;
    let cityCode: string | undefined;
    if (texts[city] !== undefined) {
      cityCode = knownCities().get(texts[city])?.code;
      if (cityCode === undefined) return undefined;
    } else if (fromCurrency.kind === 'cash' || toCurrency.kind === 'cash') {
      return undefined;
    }

    if (!this.numbersClean(texts)) return undefined;
    const { otherSlots, otherKinds } = this;
    for (let k = 0; k < otherSlots.length; k++) {
      const text = texts[otherSlots[k]!];
      if (text !== undefined && !this.valueClean(otherKinds[k]!, text)) return undefined;
    }
    return cityCode === undefined
      ? { from: fromNumber, to: toNumber }
      : { from: fromNumber, to: toNumber, city: cityCode };
  }

  /** Whether an element of `kind` holding `text` (as written) has nothing to report; false for kinds weighed as roles. */
  private valueClean(kind: ValueKind, text: string): boolean {
    switch (kind) {
      case 'fee':
        return feeClean(decodeText(text));
      case 'floating':
        return parseFloating(decodeText(text)).ok;
      case 'delay':
        return this.number(text, delayPlace) && this.fractions[delayPlace] === 0;
      case 'labels':
        return this.labelsClean(text);
      case 'url':
        return this.httpUrl(text);
      default:
        return false;
    }
  }

  /** in, out, amount and the limits: the rate 1:X or X:1 with X ≥ 1, no zero reserve or maximum, min ≤ max, the reserve pays both limits. */
  private numbersClean(texts: StandardTexts): boolean {
    const { in: inSlot, out: outSlot, amount, minamount, maxamount } = this.slot;
    if (
      !this.number(texts[inSlot]!, inPlace) ||
      !this.number(texts[outSlot]!, outPlace) ||
      !this.number(texts[amount]!, amountPlace)
    )
      return false;
    if (!this.number(texts[minamount]!, minPlace) || !this.number(texts[maxamount]!, maxPlace)) return false;
    const { values, wholes, fractions } = this;
    const reserve = values[amountPlace]!;
    const min = values[minPlace]!;
    const max = values[maxPlace]!;
    if (reserve === 0 || max === 0) return false;
    const inOne = wholes[inPlace] === 1 && fractions[inPlace] === 0;
    const outOne = wholes[outPlace] === 1 && fractions[outPlace] === 0;
    if (!(inOne && wholes[outPlace]! >= 1) && !(outOne && wholes[inPlace]! >= 1)) return false;
    if (min >= max * (1 - margin) && (min > max * (1 + margin) || this.minAboveMax(texts))) return false;
    const rate = values[outPlace]! / values[inPlace]!;
    return this.reservePays(texts, minPlace, minamount, rate) && this.reservePays(texts, maxPlace, maxamount, rate);
  }

  /** Whether the minimum is above the maximum, exactly (their doubles are too close to tell). */
  private minAboveMax(texts: StandardTexts): boolean {
    const { digits, scales } = this;
    const { minamount, maxamount } = this.slot;
    const sign =
      this.exact(minPlace) && this.exact(maxPlace)
        ? compareScaled(digits[minPlace]!, scales[minPlace]!, digits[maxPlace]!, scales[maxPlace]!)
        : NaN;
    return Number.isNaN(sign) ? compare(texts[minamount]!, texts[maxamount]!) > 0 : sign > 0;
  }

  /** Whether the reserve pays the limit at `place` (text `texts[k]`) at the rate: doubles when clearly apart, else exactly. */
  private reservePays(texts: StandardTexts, place: number, k: number, rate: number): boolean {
    const { values, digits, scales } = this;
    const pays = values[place]! * rate;
    const reserve = values[amountPlace]!;
    if (pays < reserve * (1 - margin)) return true;
    if (pays > reserve * (1 + margin)) return false;
    // At the boundary (common: a maximum that pays exactly the reserve): from the digits read, BigInt from the text past 2^53.
    if (this.exact(place) && this.exact(inPlace) && this.exact(outPlace) && this.exact(amountPlace)) {
      return !exceedsScaled(
        digits[place]!,
        scales[place]!,
        digits[inPlace]!,
        scales[inPlace]!,
        digits[outPlace]!,
        scales[outPlace]!,
        digits[amountPlace]!,
        scales[amountPlace]!,
      );
    }
    const { in: inSlot, out: outSlot, amount } = this.slot;
    return !paysMoreThan(texts[k]!, texts[inSlot]!, texts[outSlot]!, texts[amount]!);
  }

  /** Whether the digits at `place` are exact as a double: while the true value is below 2^53 every step reading it is. */
  private exact(place: number): boolean {
    return this.digits[place]! < exactLimit;
  }

  /**
   * Reads `text`, a plain number (the standard form has only those), into `place`: a double within about 1e-14
   * of it. False when it has more than `maxDigits` digits.
   */
  private number(text: string, place: number): boolean {
    const length = text.length;
    if (length > maxDigits) return false;
    let value = 0;
    let whole = -1;
    let fraction = 0;
    let fractionDigits = 0;
    for (let i = 0; i < length; i++) {
      const c = text.charCodeAt(i);
      if (c === 46) {
        whole = value;
        fractionDigits = length - i - 1;
      } else {
        value = value * 10 + (c - 48);
        if (whole !== -1 && c !== 48) fraction = 1;
      }
    }
    this.values[place] = fractionDigits === 0 ? value : value / powersOfTen[fractionDigits]!;
    this.digits[place] = value;
    this.scales[place] = fractionDigits;
    this.wholes[place] = whole === -1 ? value : whole;
    this.fractions[place] = fraction;
    return true;
  }

  /** <param> as written: known labels, none empty, given twice or the old "floating". */
  private labelsClean(raw: string): boolean {
    if (raw === this.previousParam) return true;
    let verdict = this.labelVerdicts.get(raw);
    if (verdict === undefined) {
      const parts = decodeText(raw)
        .split(',')
        .map((part) => part.trim());
      verdict =
        parts.every((part) => part !== 'floating' && knownLabels.has(part)) && new Set(parts).size === parts.length;
      if (this.labelVerdicts.size > 1000) this.labelVerdicts.clear();
      this.labelVerdicts.set(raw, verdict);
    }
    if (verdict) this.previousParam = raw;
    return verdict;
  }

  /**
   * Whether `raw` (references not decoded) reads as an http(s) address. For these schemes only the scheme and the
   * authority can make parsing fail (path, query and fragment never do), so a text that starts like the last good
   * address up to the end of its authority passes without being parsed again: an export's addresses share a host.
   */
  private httpUrl(raw: string): boolean {
    if (this.authority !== '' && raw.startsWith(this.authority)) {
      // The authority ends at `/`, `\`, `?`, `#` or the end of the text.
      const after = raw.charCodeAt(this.authority.length);
      if (Number.isNaN(after) || after === 47 || after === 92 || after === 63 || after === 35) return true;
    }
    const text = decodeText(raw);
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      return false;
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return false;
    // Without `&` the prefix reads the same whether references are decoded or not; the authority ends at `/`,
    // `\`, `?`, `#` or the end of the text.
    const authority = /^https?:\/\/[^/\\?#\t\n\r&]+(?=[/\\?#]|$)/.exec(text);
    this.authority = authority?.[0] ?? '';
    return true;
  }
}

/** A fee in a standard form, every unit a percent or a known code. */
function feeClean(text: string): boolean {
  const parsed = parseFee(text);
  return (
    parsed.ok && parsed.value.every((part) => part.unit === undefined || part.unit === '%' || isKnownUnit(part.unit))
  );
}
