// A monitor profile: what one monitor's parser reads of an export file, as shipped data (data/monitors/<name>.yaml).
// The export layer writes a file that monitor reads in full from it (adapt.ts); the checker predicts what the
// monitor does with any file from it (predict.ts). No code per monitor: each field's values are the behaviours seen.
import type { MonitorFormat } from './formats.js';

/**
 * How the parser reads `<fromfee>`/`<tofee>`:
 * - `as-written`: a number with its currency or `%` (BestChange classic, exchangesumo; JSON's inFee/outFee);
 * - `plain`: a number in the side's currency or `N%` (getrate.cc, EREF 1.1): a fee naming another currency is misread;
 * - `percent-folded`: only a percentage `<fromfee>`, folded into the rate, and only on cash items; `<tofee>` and a
 *   non-cash item's fee are ignored, a fee without `%` on a cash item drops it (MoneySwap). Its export folds every
 *   percentage fee into the rate itself and writes none.
 */
export type FeeReading = 'as-written' | 'plain' | 'percent-folded';

/** What `<minfee>` means: a fixed minimum commission (BestChange), the least gap to the average market rate (getrate.cc), or nothing read. */
export type MinfeeReading = 'fixed' | 'market-gap' | 'ignored';

export interface MonitorProfile {
  /** The file's name without `.yaml`: what a template's `monitor:` names. */
  readonly name: string;
  /** The monitor as people know it. */
  readonly title: string;
  /** The formats its parser reads; the first is the one its export is written in. */
  readonly formats: readonly MonitorFormat[];
  /** Monitor code ← ratefile code, applied under the template's own aliases. */
  readonly codes: Readonly<Record<string, string>>;
  readonly fees: FeeReading;
  readonly minfee: MinfeeReading;
  /** `required`: an item without both limits is dropped (made inactive); `recommended`: read anyway. */
  readonly limits: 'required' | 'recommended';
  /**
   * The item is dropped unless its minimum is strictly below its maximum, each read as Python's `float()` reads the
   * first word of its text (MoneySwap's `check_valid_min_max_amount`): one `float()` cannot read drops it too.
   */
  readonly minBelowMax: boolean;
  /**
   * Elements read under another name when missing or empty, in order (MoneySwap's `findtext('minamount') or
   * findtext('minAmount')`): `minamount: [minAmount]`.
   */
  readonly fallbacks: Readonly<Record<string, readonly string[]>>;
  /** The rate is read as 1:X with X rounded half-up to this many decimals; absent: as written. */
  readonly rateDecimals?: number;
  /**
   * `first-wins`: of several items of one direction (from, to, city) the first is read, the others dropped (MoneySwap:
   * without a city the first takes the direction even when it is dropped itself); absent: not known.
   */
  readonly duplicates?: 'first-wins';
  /** `absolute`: a negative `<in>`/`<out>` is read without its sign; absent: with it. Either way a misreading. */
  readonly negativeRate?: 'absolute';
  /** `first-cash-only`: only the first `<param>` is read, and only on cash items; `all`: as written. */
  readonly labels: 'all' | 'first-cash-only';
  /** `strict`: an item whose elements are out of the standard order is refused. */
  readonly order: 'strict' | 'any';
  /**
   * A regular expression the answer's Content-Type must match from its start, as the monitor's robot tests it before
   * reading the body (MoneySwap: else `RobotCheckError`, the exchanger made inactive); absent: not tested.
   */
  readonly contentType?: string;
  /** Documented polling interval, for people; absent when no source states it. */
  readonly polling?: string;
  /** Documented robot addresses to allow through an anti-bot wall. */
  readonly robots: readonly string[];
  /** Where each rule comes from: `rule: URL or repo@commit:path`. */
  readonly sources: Readonly<Record<string, string>>;
  /** Whether the parser is public code (rules read from it) or only documented (rules from its pages). */
  readonly parser: 'public' | 'documented';
}
