// The validated, normalized configuration that the pure pipeline steps work on.
import type { Decimal } from './decimal.js';
import type { Label } from './config/fields.js';
import type { HoursWindow } from './hours.js';
import type { AlertsConfig } from './alerts/config.js';
import type { ExportFormat } from './exports/formats.js';

export interface Currency {
  code: string;
  /** What it is priced as: RUB for SBERRUB, USDT for USDTTRC20. */
  asset: string;
  /** Decimal places of amounts (reserve, limits). */
  precision: number;
  /** Decimal places of the side of a rate counted in this currency. */
  ratePrecision: number;
  /** The configured reserve; 0 when it comes from a reserve source (`reserveSource`). */
  reserve: Decimal;
  /** Name of the reserve source (`reserves:`) its reserve is read from on every build. */
  reserveSource?: string;
}

/** An amount in a given asset; limits may be set in any asset and are converted per build. */
export interface Money {
  value: Decimal;
  asset: string;
}

export interface Direction {
  /** `FROM>TO`, unique in the config. */
  id: string;
  /** Index in the config's `directions` list, for messages. */
  index: number;
  from: Currency;
  to: Currency;
  /** Margin as a fraction: "1.5%" → 0.015. */
  margin: Decimal;
  /** Explicit quote chain; found through the quote book when absent. */
  chain?: string[];
  /** Reserve in the to currency; 0 until a reserve source fills it in when `reserveSource` is set. */
  reserve: Decimal;
  /** The reserve source its reserve (and limits) are read from before pricing; absent: the configured reserve. */
  reserveSource?: string;
  min?: Money;
  max?: Money;
  /** Amount tiers, ascending: from an amount of the from asset on, another margin (as a fraction). */
  tiers?: { from: Decimal; margin: Decimal }[];
  params: Label[];
  fromfee?: string;
  tofee?: string;
  minfee?: string;
  floating?: string;
  delay?: number;
  cities: string[];
  tags: string[];
  /** Working hours; outside them the direction is not published. Absent: always. */
  hours?: HoursWindow[];
  /** Priced from BestChange's field (`compete:`) instead of by the margin alone. */
  compete?: CompeteRule;
}

export interface SourceConfig {
  name: string;
  type: string;
  options: { type: string } & Record<string, unknown>;
}

/** One export file, declared by a template in templates/. */
export interface ExportTemplate {
  /** Template name; the file it renders is `file:`, else `<name>.xml` (`<name>.json` for json). */
  name: string;
  file: string;
  /** How the file is written: classic XML, EREF 1.1 XML or jsons.info JSON. */
  format: ExportFormat;
  description?: string;
  includeTags?: string[];
  excludeTags: string[];
  /** Currency code → code published in this export. */
  aliases: Record<string, string>;
  /** Partner markup as a fraction, applied against the client on top of the direction's rate. */
  markup: Decimal;
  /** Pattern of a per-item <url>, with {from}, {to} and {city} placeholders. */
  url?: string;
}

/** An S3 bucket (AWS or S3-compatible) the exports are uploaded to; credentials come from the AWS SDK chain, never from here. */
export interface S3Target {
  bucket: string;
  /** Key prefix: empty or ending in `/`. */
  prefix: string;
  region?: string;
  endpoint?: string;
  forcePathStyle: boolean;
  cacheControl: string;
}

/** Where the exports go besides the output folder (the `publish` block). */
export interface PublishTargets {
  s3?: S3Target;
}

export interface Config {
  /** Absolute path of the config file, and its folder that relative paths resolve against. */
  file: string;
  dir: string;
  schedule: string;
  server: { port: number; host: string };
  output: string;
  templatesDir: string;
  sources: SourceConfig[];
  /** Back-office reserve sources by name (`reserves:`), read before pricing like quote sources. */
  reserveSources: SourceConfig[];
  currencies: ReadonlyMap<string, Currency>;
  directions: Direction[];
  exports: ExportTemplate[];
  /** Folder of state kept between builds: last published rates, status, maintenance and accept requests. */
  stateDir: string;
  /** The config's maintenance switch (the `ratefile maintenance` flag file is the other one). */
  maintenance: boolean;
  guards: { maxJump: Decimal; confirmBuilds: number };
  /** Thresholds of the health levels (`health:`). */
  health: HealthPolicy;
  /** Alert channels and the reminder interval (`alerts:`); absent: no alerts. */
  alerts?: AlertsConfig;
  /** Longest gap between two scheduled builds, in milliseconds. */
  schedulePeriodMs: number;
  /** Uploads after each build (`publish.s3`). */
  publish: PublishTargets;
  /** Things worth an operator's look that do not stop a build (unknown monitor codes). */
  warnings: string[];
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
  failAfterPeriods: number;
  /** Failing when more than this share (0..1) of the directions that should be published are withheld for a fault. */
  maxWithheldShare: number;
}

/** A direction's compete rule, normalized. Fractions: "0.5%" → 0.005. */
export interface CompeteRule {
  /** Name of the `bestchange` source whose feed is the field. */
  source: string;
  /** As configured: "3" or "1-3". */
  target: string;
  /** The best and the worst place of the range (equal for a single place); the worst is the one held. */
  best: number;
  worst: number;
  /** How much better (relative) than the competitor at the place; 0: by the smallest published step. */
  step: Decimal;
  /** Least margin: the rate is never more generous than market × (1 − floor). */
  floor: Decimal;
  /** Most margin: the rate is never less generous than market × (1 − ceiling). */
  ceiling: Decimal;
  /** The field is not trusted when the median of its top five is further than this from the market. */
  deviation: Decimal;
  /** Ignored exchangers as configured (for messages); and their names in lower case, and ids. */
  ignore: readonly string[];
  ignoreNames: ReadonlySet<string>;
  ignoreIds: ReadonlySet<number>;
  /** Competitors with a smaller reserve do not count; in the direction's to asset or converted through the quotes. */
  minReserve?: Money;
}

/** One export file as a build returns it, before anything writes it (publish.ts, the S3 upload, the check gate). */
export interface OutputFile {
  /** File name inside the output folder, e.g. `parserfile.xml`. */
  file: string;
  bytes: Buffer;
}
