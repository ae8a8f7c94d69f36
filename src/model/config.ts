// The validated, normalized configuration that the pure pipeline steps work on.
import type { Decimal } from '../base/decimal.js';
import type { Label } from '../base/config/fields.js';
import type { HoursWindow } from '../base/hours.js';
import type { AlertsConfig } from './alerts.js';
import type { ControlConfig } from './control.js';
import type { HaConfig } from './ha.js';
import type { ArchiveConfig, QuoteConfig } from './archive.js';
import type { MonitorConfig } from './readers.js';
import type { WatchConfig } from './watch.js';
import type { MonitorProfile } from './monitor-profile.js';
import type { ExportFormat } from './formats.js';
import type { RateRule } from './rates.js';
import type { Formula } from '../base/config/formula.js';
import type { ReserveCap, ReserveMargin } from './reserve-shape.js';

export interface Currency {
  readonly code: string;
  /** What it is priced as: RUB for SBERRUB, USDT for USDTTRC20. */
  readonly asset: string;
  /** Decimal places of amounts (reserve, limits). */
  readonly precision: number;
  /** Decimal places of the side of a rate counted in this currency. */
  readonly ratePrecision: number;
  /** The configured reserve; 0 when it comes from a reserve source (`reserveSource`). */
  readonly reserve: Decimal;
  /** Name of the reserve source (`reserves:`) its reserve is read from on every build. */
  readonly reserveSource?: string;
  /** The reserve as a formula over reserve sources' entries, read on every build. */
  readonly reserveFormula?: Formula;
  readonly reserveCap?: ReserveCap;
}

/** An amount in a given asset; limits may be set in any asset and are converted per build. */
export interface Money {
  readonly value: Decimal;
  readonly asset: string;
}

export interface Direction {
  /** `FROM>TO`, unique in the config. */
  readonly id: string;
  /** Index in the config's `directions` list, for messages. */
  readonly index: number;
  readonly from: Currency;
  readonly to: Currency;
  /** Margin as a fraction: "1.5%" → 0.015. */
  readonly margin: Decimal;
  /** Explicit quote chain; found through the quote book when absent. */
  readonly chain?: readonly string[];
  /** Reserve in the to currency; 0 until a reserve source fills it in when `reserveSource` is set. */
  readonly reserve: Decimal;
  /** The reserve source its reserve (and limits) are read from before pricing; absent: the configured reserve. */
  readonly reserveSource?: string;
  /** The reserve as a formula over reserve sources' entries (`reserveFormula:`), read on every build. */
  readonly reserveFormula?: Formula;
  /** The most reserve published (`reserveCap:`): an amount, or a share of what is there. */
  readonly reserveCap?: ReserveCap;
  /** Margins by the published reserve (`reserveMargins:`), ascending by `from`. */
  readonly reserveMargins?: readonly ReserveMargin[];
  /**
   * Set by the reserves step on the copy it makes (src/pure/reserves/shape.ts): how this build made the reserve
   * and the margin from it, in words, for `explain`.
   */
  readonly reserveMade?: readonly string[];
  readonly min?: Money;
  readonly max?: Money;
  /** Amount tiers, ascending: from an amount of the from asset on, another margin (as a fraction). */
  readonly tiers?: readonly { readonly from: Decimal; readonly margin: Decimal }[];
  readonly params: readonly Label[];
  /** The reserve source its labels and on/off switch are read from at every build (`switchesFrom:`), by its id. */
  readonly switchesFrom?: string;
  /**
   * With `switchesFrom` and no working hours of its own: the config's `manualHours`, which it keeps while the back
   * office labels it `manual` (as a direction configured `manual` does) and drops otherwise.
   */
  readonly manualHours?: readonly HoursWindow[];
  /** Set by the switches step on the copy it makes (src/pure/reserves/switches.ts): what the back office set, in words. */
  readonly switched?: readonly string[];
  readonly fromfee?: string;
  readonly tofee?: string;
  readonly minfee?: string;
  readonly floating?: string;
  readonly delay?: number;
  readonly cities: readonly string[];
  readonly tags: readonly string[];
  /** Working hours; outside them the direction is not published. Absent: always. */
  readonly hours?: readonly HoursWindow[];
  /** Priced from BestChange's field (`compete:`) instead of by the margin alone. */
  readonly compete?: CompeteRule;
  /** The direction's own reference band (`referenceBand:`), a fraction: in place of the pairs' and the global ones. */
  readonly referenceBand?: Decimal;
}

/**
 * How far a market one source alone sets may be from an independent reference (`guards.reference`, read by
 * src/pure/guards/reference.ts); defaults in `referenceDefaults`.
 */
export interface ReferenceSettings {
  /** Against other sources' quotes, crosses through them and a consensus's other terms: a fraction. */
  readonly band: Decimal;
  /** Against the median of BestChange rivals' rates, which include their margins: a fraction. */
  readonly rivalsBand: Decimal;
  /** How many of the best rivals the median is taken of. */
  readonly rivals: number;
  /** A market's own band (`pairs:`), by market (the two assets sorted, as `marketOf` writes it). */
  readonly pairs: ReadonlyMap<string, Decimal>;
}

/** The reference's defaults, as the config reference and docs/pricing-and-guards.md give them (why: there). */
export const referenceDefaults = { band: '3%', rivalsBand: '10%', rivals: 5 } as const;

export interface SourceConfig {
  readonly name: string;
  readonly type: string;
  readonly options: { readonly type: string } & Readonly<Record<string, unknown>>;
  /** A bestchange source: the pairs the config's directions compete in (what BestChange's API v2 is asked for). */
  readonly competes?: readonly FeedPair[];
}

/** A pair a competitor feed is asked for: a competing direction's monitor codes, and its cities when cash. */
export interface FeedPair {
  readonly from: string;
  readonly to: string;
  readonly cities: readonly string[];
}

/** One export file, declared by a template in templates/. */
export interface ExportTemplate {
  /** Template name; the file it renders is `file:`, else `<name>.xml` (`<name>.json` for json). */
  readonly name: string;
  readonly file: string;
  /** How the file is written: classic XML, EREF 1.1 XML, jsons.info JSON or Premium Exchanger's text files. */
  readonly format: ExportFormat;
  readonly description?: string;
  readonly includeTags?: readonly string[];
  readonly excludeTags: readonly string[];
  /** Currency code → code published in this export. */
  readonly aliases: Readonly<Record<string, string>>;
  /** Partner markup as a fraction, applied against the client on top of the direction's rate. */
  readonly markup: Decimal;
  /** Pattern of a per-item <url>, with {from}, {to} and {city} placeholders. */
  readonly url?: string;
  /** The monitor this export is written for (`monitor:`): its profile adapts the items (exports/monitor-fields.ts). */
  readonly monitor?: MonitorProfile;
  /** The file name is a secret (`private: true`): shown as *** wherever ratefile shows exports. */
  readonly private?: boolean;
}

/** An S3 bucket (AWS or S3-compatible) the exports are uploaded to; credentials come from the AWS SDK chain, never from here. */
export interface S3Target {
  readonly bucket: string;
  /** Key prefix: empty or ending in `/`. */
  readonly prefix: string;
  readonly region?: string;
  readonly endpoint?: string;
  readonly forcePathStyle: boolean;
  readonly cacheControl: string;
}

/** Where the exports go besides the output folder (the `publish` block). */
export interface PublishTargets {
  readonly s3?: S3Target;
}

export interface Config {
  /** Absolute path of the config file, and its folder that relative paths resolve against. */
  readonly file: string;
  readonly dir: string;
  readonly schedule: string;
  /** The build log of `start` (`log:`): the most time between two lines while builds change nothing. */
  readonly log: { readonly heartbeatMs: number };
  /** `private`: where the dashboard, /metrics and the full /healthz answer besides a loopback `host` (src/service/server/listeners.ts). */
  readonly server: {
    readonly port: number;
    readonly host: string;
    readonly private?: { readonly host: string; readonly port: number };
    /** The caching headers of every export (`server.headers`, defaults filled in: src/pure/edge/headers.ts). */
    readonly headers: { readonly cacheControl: string; readonly cdnCacheControl: string };
  };
  readonly output: string;
  readonly templatesDir: string;
  readonly sources: readonly SourceConfig[];
  /** The pairs of `rates:` (formulas and consensus), in the order they are made: each after the ruled pairs it reads. */
  readonly rates: readonly RateRule[];
  /** Back-office reserve sources by name (`reserves:`), read before pricing like quote sources. */
  readonly reserveSources: readonly SourceConfig[];
  readonly currencies: ReadonlyMap<string, Currency>;
  readonly directions: readonly Direction[];
  readonly exports: readonly ExportTemplate[];
  /** Folder of state kept between builds: last published rates, status, maintenance and accept requests. */
  readonly stateDir: string;
  /** The config's maintenance switch (the `ratefile maintenance` flag file is the other one). */
  readonly maintenance: boolean;
  /** The jump guard (src/pure/guards/guards.ts): held past maxJump until confirmed; past hardJump only `ratefile accept`. */
  readonly guards: {
    /** |new − last| ÷ last beyond which a rate is held back until confirmed. */
    readonly maxJump: Decimal;
    /** A ratio either way: past `1 + hardJump` up or `1 ÷ (1 + hardJump)` down, only `ratefile accept` publishes. */
    readonly hardJump: Decimal;
    /** Distinct answers of the sources behind a held rate that confirm it. */
    readonly confirmAnswers: number;
  };
  /** The independent reference a market one source alone sets is held to (`guards.reference`). */
  readonly reference: ReferenceSettings;
  /** Thresholds of the health levels (`health:`). */
  readonly health: HealthPolicy;
  /** Alert channels and the reminder interval (`alerts:`); absent: no alerts. */
  readonly alerts?: Readonly<AlertsConfig>;
  /** The lock that lets one of several instances publish (`ha:`); absent: this instance always publishes. */
  readonly ha?: Readonly<HaConfig>;
  /** The Telegram control bot of `ratefile start` (`control:`); absent: none. */
  readonly control?: Readonly<ControlConfig>;
  /** Every published export kept (`archive:`, src/io/archive/). */
  readonly archive: ArchiveConfig;
  /** The signed quote (`quote:`). */
  readonly quote: QuoteConfig;
  /** The monitors expected to read the exports (`monitors:`), in config order. */
  readonly monitors?: readonly MonitorConfig[];
  /** nginx's access log (`accessLog:`), absolute: `start` reads the exports' fetches from it. */
  readonly accessLog?: string;
  /** The public copies watched from outside (`watch:`); absent: no watch. */
  readonly watch?: WatchConfig;
  /** The User-Agent of every request ratefile makes (`userAgent:`; default `ratefile/<version>`, src/base/requests.ts). */
  readonly userAgent: string;
  /** Longest gap between two scheduled builds, in milliseconds. */
  readonly schedulePeriodMs: number;
  /** Uploads after each build (`publish.s3`). */
  readonly publish: PublishTargets;
  /** Things worth an operator's look that do not stop a build (unknown monitor codes). */
  readonly warnings: readonly string[];
}

// Health levels and the `health:` thresholds: types here, the assessment in health.ts.
export type HealthLevel = 'ok' | 'degraded' | 'failing';

export interface Health {
  level: HealthLevel;
  /** Why the level is not ok (and notes such as maintenance); empty when all is well. */
  reasons: string[];
}

/** The `health:` block of the config, normalized. */
export interface HealthPolicy {
  /** Failing when the last successful build is older than this many schedule periods. */
  readonly failAfterPeriods: number;
  /** Failing when more than this share (0..1) of the directions that should be published are withheld for a fault. */
  readonly maxWithheldShare: number;
}

/** A direction's compete rule, normalized. Fractions: "0.5%" → 0.005. */
export interface CompeteRule {
  /** Name of the `bestchange` source whose feed is the field. */
  readonly source: string;
  /** As configured: "3" or "1-3". */
  readonly target: string;
  /** The best and the worst place of the range (equal for a single place); the worst is the one held. */
  readonly best: number;
  readonly worst: number;
  /** How much better (relative) than the competitor at the place; 0: by the smallest published step. */
  readonly step: Decimal;
  /** Least margin: the rate is never more generous than market × (1 − floor). */
  readonly floor: Decimal;
  /** Most margin: the rate is never less generous than market × (1 − ceiling). */
  readonly ceiling: Decimal;
  /** The field is not trusted when the median of its top five is further than this from the market. */
  readonly deviation: Decimal;
  /** Ignored exchangers as configured (for messages); and their names in lower case, and ids. */
  readonly ignore: readonly string[];
  readonly ignoreNames: ReadonlySet<string>;
  readonly ignoreIds: ReadonlySet<number>;
  /** Competitors with a smaller reserve do not count; in the direction's to asset or converted through the quotes. */
  readonly minReserve?: Money;
  /** Never more generous than the best counted competitor behind the place by more than this many typical steps; absent: no cap. */
  readonly cap?: Decimal;
  /** War detection (src/pure/compete/war.ts); absent: off. */
  readonly war?: WarRule;
  /** The exchanger's own BestChange ids (its source's `self`): never counted. */
  readonly selfIds?: ReadonlySet<number>;
}

/** When answered moves make a price war, and how long the rate is held then. */
export interface WarRule {
  /** Our moves answered in a row that make a war. */
  readonly rounds: number;
  /** An answer counts when the feed showing it was fetched at most this long after our move. */
  readonly withinMs: number;
  /** How long the rate is held once a war is seen. */
  readonly coolDownMs: number;
}

/** One export file as a build returns it, before anything writes it (publish.ts, the S3 upload, the check gate). */
export interface OutputFile {
  /** File name inside the output folder, e.g. `parserfile.xml`. */
  file: string;
  bytes: Buffer;
}
