// What pricing makes of a direction: priced (the chain, the market, the rate, the limits' terms) or withheld with a
// kind and a reason, and a rate's published form. Types only, below every step that reads them (src/pure/pricing/ makes them).
import type { Decimal } from '../base/decimal.js';
import type { Direction } from './config.js';
import type { Quote } from './source.js';

export interface ChainStep {
  pair: string;
  /** Which side of the quote was used: `bid` when selling the base, `ask` when buying it. */
  side: 'bid' | 'ask';
  quote: Quote;
}

export interface PricedDirection {
  direction: Direction;
  steps: ChainStep[];
  /** Units of the to asset per unit of the from asset, at the market, sides worse for the client. */
  market: Decimal;
  /** The market rate after the direction's margin. */
  rate: Decimal;
  /** What the limits are made of; each export publishes them at its own published rate (src/pure/pricing/published.ts). */
  terms: LimitTerms;
  /** What it publishes without a markup: `rate` in its published form and the limits at it (src/pure/pricing/published.ts). */
  published: Publication;
  /** Rates of the direction's amount tiers (`tiers:`), in their order: the same market after each tier's margin. */
  tierRates?: Decimal[];
  /** Set for a direction with a `compete:` block: how it stands against BestChange's field. */
  compete?: CompeteOutcome;
  /** Set when one source alone could set its market and something independent of it tells the same market. */
  reference?: ReferenceCheck;
}

/** What an independent reference says of a direction's market rate (src/pure/guards/reference.ts). */
export interface ReferenceCheck {
  /** The reference's market rate: units of the to asset per unit of the from asset, the same sides as `market`. */
  value: Decimal;
  /** Where it comes from, for people: `bybit:BTC/USDT`, `cross okx:BTC/USDT × cbr:USD/RUB`, `BestChange rivals (median of 7)`. */
  from: string;
  /** |market − value| ÷ value. */
  deviation: Decimal;
  /** The band it was held to, a fraction (0.05 for 5%). */
  band: Decimal;
}

/** What the reference step adds (declaration merging keeps the shared block above as it is). */
export interface ReferenceCheck {
  /** The sources that alone could set the market (what the reference is independent of), in config order. */
  sources: readonly string[];
  /** The pairs of the chain those sources set, as `pair (source)`: `USDT/RUB (p2p)`. */
  pairs: readonly string[];
  /** Pairs of the chain one source sets that the reference does not cover (a reference of some steps only). */
  unchecked?: readonly string[];
}

/** How a direction with a `compete:` block was priced against the competitors of a `bestchange` feed. */
export interface CompeteOutcome {
  /** The place configured to hold: "3", or "1-3" for anywhere in that range. */
  target: string;
  /** The place the published rate gets among the counted competitors (1 = best for the client; a tie ranks behind); 0 with no feed. */
  place: number;
  /** Competitors counted (after `ignore` and `minReserve`). */
  competitors: number;
  /** What set the rate: holding the place, clamped at the floor or ceiling, or the normal margin when the field is not trusted. */
  basis: 'place' | 'floor' | 'ceiling' | 'fallback' | 'cap' | 'war';
  /** Why the rate is not simply the place's: the fallback's cause, or the clamp. */
  reason?: string;
  /** Age of the feed in seconds at the build. */
  feedAgeSeconds?: number;
  /** A price war being held out (src/pure/compete/war.ts): the rate is held, never more generous, until `until`. */
  war?: CompeteWar;
}

/** A price war: the competitor that answered our moves, how many in a row, and the cool-down. */
export interface CompeteWar {
  /** Its name as the feed's exchanger list has it, and its BestChange id. */
  rival: string;
  rivalId: number;
  rounds: number;
  /** ISO times: when the war was seen, and the end of the cool-down. */
  since: string;
  until: string;
}

/**
 * Why a direction is held back, as a kind health and alerts can count: `hours` (and a later `paused`) are
 * expected; every other kind is a fault. `reserve` is kept for reserves read from a source. `format`: left out
 * of one export whose format cannot say something it has (a minfee in EREF 1.1), expected as the config is.
 * `reference`: its market is further from an independent reference than the band allows (src/pure/guards/reference.ts).
 */
export type WithheldKind =
  | 'quote'
  | 'stale'
  | 'sanity'
  | 'jump'
  | 'limits'
  | 'reserve'
  | 'hours'
  | 'paused'
  | 'format'
  | 'reference';

export interface WithheldDirection {
  direction: Direction;
  kind: WithheldKind;
  reason: string;
  /** Held back by its reference (kind `reference`): the check it failed. */
  reference?: ReferenceCheck;
  /** Kind `jump`: the facts of the jump held back, as data (status.json's `heldBack[].jump`). */
  jump?: JumpFacts;
}

/** A jump the guard holds back (src/pure/guards/guards.ts): what moved, from what, and how to publish it. */
export interface JumpFacts {
  /** The last published rate, as the guard keeps it (units of the to asset per unit of the from asset). */
  last: string;
  /** The new rate held back, the same way. */
  rate: string;
  /** The sources behind the new rate (a formula's or consensus's terms' sources), in order. */
  sources: string[];
  /** Past the hard bound (`guards.hardJump`): never published by confirmations, only by `command`. */
  hard: boolean;
  /** What publishes it now: `ratefile accept FROM TO`. */
  command: string;
}

/**
 * A direction's limits before any published rate: what every export's `<minamount>`/`<maxamount>` are made
 * of. A limit in the to asset (and the reserve) becomes an amount of the from asset only at the rate an
 * export publishes, since that is the rate a client is paid at; the rest does not depend on the rate.
 */
export interface LimitTerms {
  /** The reserve as published in `<amount>` (rounded down to the to currency's precision): no order may be paid more. */
  amount: Decimal;
  /** A limit set in the from asset, or in a third asset converted through the quote book; unrounded. */
  minFrom?: Decimal;
  maxFrom?: Decimal;
  /** A limit set in the to asset, in to units. */
  minTo?: Decimal;
  maxTo?: Decimal;
}

/** A rate in its published form: `in` of the from currency buys `out` of the to currency. */
export type PublishedRate = { in: Decimal; out: Decimal };

/** Limits in the from currency as published at a rate: `min` rounded up, `max` capped by the reserve and rounded down. */
export type PublishedLimits = { min?: Decimal; max: Decimal };

/** A published rate as numbers and as the text every export prints. */
export interface RateEntry {
  in: string;
  out: string;
  form: PublishedRate;
}

/** What a direction publishes at one rate: that rate's published form and text, and the limits that hold at it. */
export interface Publication {
  rate: RateEntry;
  limits: PublishedLimits;
}

/** One amount tier as published: orders from `min` to `max` (from currency) at `form`. */
export interface LadderStep {
  min: Decimal;
  max: Decimal;
  form: PublishedRate;
}

/** What a direction publishes in an export: its publication at the export's markup, with tiers capped and stepped. */
export interface Published extends Publication {
  /** The tier steps, when more than one tier is left. */
  steps?: LadderStep[];
}

/** Why a direction cannot be published at some rate (its limits cross there), named for health and alerts. */
export interface Refusal {
  reason: string;
  kind: WithheldKind;
}
