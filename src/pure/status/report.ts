// The shapes of what a build reports (BuildReport, read by the status, the dashboard and the service) and of the
// status file kept between builds (Status). Types only: they sit below the steps that fill them in, so health,
// status and tally read them without importing the build or each other.
import type { QuoteBook } from '../../model/source.js';
import type { Derivation } from '../rates/derivation.js';
import type { RateStatus } from './rates.js';
import type { CompeteDetail } from '../compete/price.js';
import type { WarMemory } from '../compete/war.js';
import type { ListingMemory, ListingView } from '../compete/listing.js';
import type { GuardState } from '../guards/guards.js';
import type { SoleSource } from '../guards/reference.js';
import type { SoleSourceStatus } from './sole-source.js';
import type { Direction, Health, HealthPolicy } from '../../model/config.js';
import type {
  CompeteOutcome,
  JumpFacts,
  PricedDirection,
  WithheldDirection,
  WithheldKind,
} from '../../model/priced.js';
import type { ArchiveStatus } from '../../model/archive.js';

export interface BuildReport {
  startedAt: Date;
  /** True when the build published empty exports for maintenance. */
  maintenance: boolean;
  sources: SourceReport[];
  /** How each pair of `rates:` was made this build (or why it could not be), in the order they are made. */
  rates: Derivation[];
  /** The reserve sources read for this build. */
  reserves: ReserveReport[];
  /** Directions priced and published. */
  priced: PricedDirection[];
  /**
   * Every direction priced into the reference and the guards, published or not, each with its `reference` when it
   * had one: what `explain` shows of a held-back one. Absent in maintenance.
   */
  checked?: readonly PricedDirection[];
  /** The directions one source alone could set, with their reference when they had one (src/pure/guards/reference.ts). */
  soleSource?: readonly SoleSource[];
  /**
   * The quote book the build priced from (absent in maintenance): `explain` prices a held-back direction on it, not on
   * a new fetch, and a streamed move is judged against it (src/pure/moves/).
   */
  book?: QuoteBook;
  /** Directions held back, each with the reason; one entry per export a direction is left out of alone (its reason names the file). */
  withheld: WithheldDirection[];
  /** Each direction counted once: published by some export, withheld from all, or left out of some exports only. */
  directions: DirectionTally;
  /** How each direction with a `compete:` block was priced against its field, by direction id (for `explain`). */
  competition?: ReadonlyMap<string, CompeteDetail>;
  /** `counted`: the items as `ratefile check` counts them, when not `items` (a JSON file: an exchange per direction). */
  exports: { name: string; file: string; items: number; counted?: number }[];
  /** Guard state after this build, for the caller to keep if it publishes. */
  guardState: GuardState;
  /** The war memory of the competing directions after this build (src/pure/compete/war.ts), kept like the guard state. */
  warMemory?: WarMemory;
  /** BestChange's listing of us (`self:`) against what was published, and the lags (s) measured this build. */
  listing?: { views: ListingView[]; lags: number[] };
  /** The memory of recently published rates after this build, kept like the war memory (`.ratefile/listing.json`). */
  listingMemory?: ListingMemory;
  /** Accept requests this build used up. */
  acceptedUsed: string[];
  /** The currency codes of the BestChange feeds this build read (bm_cycodes.dat): known besides the shipped list. */
  liveCodes?: ReadonlySet<string>;
  /** Milliseconds per phase: fetching quotes, pricing with guards, selecting and rendering. */
  timings: { fetchMs: number; priceMs: number; renderMs: number };
}

export interface SourceReport {
  name: string;
  type: string;
  ok: boolean;
  quotes: number;
  /** A feed source's rows (`bestchange`); such a source has no quotes. */
  rows?: number;
  /** Why the source failed as a whole. */
  error?: string;
  /** Quotes it sent that were dropped, with the reason. */
  rejected: string[];
  /** How many of `rejected` were dropped only for being past the source's maxAge (listed last). */
  staleDropped?: number;
  /** When the quotes in use were fetched: earlier than this build when they were reused. */
  fetchedAt?: Date;
  /**
   * Why quotes from an earlier build are in use: `refresh` (within the refresh interval, not asked again) or
   * `fallback` (the source failed now; its last good quotes are younger than its maxAge).
   */
  reused?: 'refresh' | 'fallback';
  /** The oldest and newest time of the quotes in use (quote sources with quotes): how far they are from `maxAge`. */
  quoteTimes?: { oldest: Date; newest: Date };
  /** A source in stream mode (`stream:`): its connections, and which of its quotes the stream fed and which REST. */
  stream?: StreamReport;
}

/** A streamed source as a build found it (src/io/streams/feed.ts). Plain JSON, kept in the status as it is. */
export interface StreamReport {
  /** live: every connection subscribed and heard from; partial: some; down: none (REST feeds every pair). */
  state: 'live' | 'partial' | 'down';
  /** Connections the pairs need (the venue's limit per connection), and how many are up. */
  connections: number;
  up: number;
  /** Connections lost since the service started (each made again, with backoff). */
  reconnects: number;
  /** When the last frame arrived (ISO). */
  lastFrameAt?: string;
  /** The last thing it got wrong (why it is not live, when it is not), and when (ISO). */
  problem?: string;
  problemAt?: string;
  /**
   * Each configured pair: which fed the quote in use (`stream` or `rest`; absent: none yet), its bid and ask, when it
   * is from (ISO), and why the venue refused to stream it.
   */
  pairs: { pair: string; fed?: 'stream' | 'rest'; bid?: string; ask?: string; time?: string; refused?: string }[];
}

export interface ReserveReport {
  name: string;
  type: string;
  ok: boolean;
  /** Entries in the reading used. */
  entries: number;
  fetchedAt?: Date;
  error?: string;
  reused?: 'refresh' | 'fallback';
}

/** A direction published by some export but left out of others (limits crossing at their markup, a format refusing it). */
export interface ExportOmission {
  direction: Direction;
  /** The first fault among the omissions' kinds, else the first kind (`format`: the config's doing). */
  kind: WithheldKind;
  /** The files it is left out of, in the order of the exports. */
  files: string[];
  /** `left out of a.xml, b.xml: why` (one clause per distinct reason). */
  reason: string;
}

export interface DirectionTally {
  /** Priced directions at least one export publishes (and those no export selects: the config's choice), in config order. */
  published: PricedDirection[];
  /** One entry per direction no export publishes: withheld before the exports, or left out of every export that selects it. */
  withheld: WithheldDirection[];
  /** Published directions left out of some exports, one entry each. */
  leftOut: ExportOmission[];
}

/** One export's omissions, with its file (the reasons already start with `file: `). */
export interface ExportLeftOut {
  file: string;
  withheld: readonly WithheldDirection[];
}

export interface SourceStatus {
  name: string;
  type: string;
  ok: boolean;
  quotes: number;
  /** A feed source's rows (`bestchange`), in place of quotes. */
  rows?: number;
  lastSuccessAt?: string;
  lastError?: string;
  /** Age in seconds of the oldest quote of this source used by a published direction. */
  oldestQuoteAgeSeconds?: number;
  /** A source in stream mode: its stream and which of its quotes the stream fed, which REST. */
  stream?: StreamReport;
}

export interface Status {
  version: 1;
  lastBuild: { at: string; durationMs: number; ok: boolean; error?: string };
  lastSuccessAt?: string;
  /** Longest gap between scheduled builds; health is failing after `healthPolicy.failAfterPeriods` of them without a good build. */
  schedulePeriodMs: number;
  /** The config's `health:` thresholds, so a reader judges the age of the last good build the same way. */
  healthPolicy?: HealthPolicy;
  /** Health when the build ran (a reader re-assesses it with its own clock). */
  health?: Health;
  /** Set while the config file is rejected on reload and the last good config still serves. */
  configError?: string;
  maintenance: boolean;
  sources: SourceStatus[];
  /** The pairs of `rates:` (absent when the config has none): how each was made, or why it could not be. */
  rates?: RateStatus[];
  /** Back-office reserve sources (`reserves:`), when the config has any; type `reserves/<type>`. */
  reserveSources?: SourceStatus[];
  exports: { name: string; file: string; items: number; counted?: number }[];
  published: string[];
  /**
   * Per direction of `published`, in its order: the age in seconds (to the millisecond), when the build started, of the
   * oldest quote behind its published rate. Absent in a status written before it was kept.
   */
  publishedQuoteAges?: number[];
  /** Published directions with a `compete:` block: the place each holds, or why it is at its floor, ceiling or normal margin. */
  competing?: CompetingStatus[];
  /** Competing directions as BestChange lists us (`self:` set), one per direction (and city). */
  listing?: ListingView[];
  /** One entry per direction no export publishes. */
  heldBack: HeldBackStatus[];
  /** Published directions left out of some exports only (absent when none): never counted as held back. */
  leftOut?: LeftOutStatus[];
  /**
   * The directions priced this build whose market one source alone could set, grouped by those pairs and what they
   * were checked against (no `reference`: nothing; absent when none): src/pure/guards/reference.ts.
   */
  soleSource?: SoleSourceStatus[];
  /** Present with an `ha:` block: leader or standby, and who holds the lock. */
  ha?: HaStatus;
  /** The archive of published exports (`archive:`): its window, size, newest and last verified record. */
  archive?: ArchiveStatus;
  /**
   * The public copies the watch from outside (`watch:`) found wrong for `watch.alertAfter` or longer when the build
   * ran (`outside:<file>`): health is degraded by them, and the alert says the same. Absent when none (or standby).
   */
  outsideProblems?: OutsideProblem[];
}

/** A public copy other than the latest build for `watch.alertAfter` or longer. */
export interface OutsideProblem {
  key: string;
  text: string;
}

/** A direction no export publishes; `jump`: a held jump's facts (the old rate, the new one, its sources, the command). */
export interface HeldBackStatus {
  direction: string;
  kind?: WithheldKind;
  reason: string;
  jump?: JumpFacts;
}

export interface LeftOutStatus {
  direction: string;
  kind: WithheldKind;
  files: string[];
  reason: string;
}

export interface CompetingStatus extends CompeteOutcome {
  direction: string;
}

/** This instance's part in a warm standby (`ha:`), kept in the status after every build. */
export interface HaStatus {
  role: 'leader' | 'standby';
  /** This instance's name (`ha.instance`, or the host name). */
  instance: string;
  /** The instance the lock's record names as the last to publish (this one while leader); absent before any did. */
  holder?: string;
  /** Why this instance does not publish now (standby only). */
  reason?: string;
  /** The first 16 hex digits of the SHA-256 of this instance's config (paths relative to its folder). */
  configHash: string;
  /** The holder's config hash, when it differs from this one. */
  holderConfigHash?: string;
  /** Leader: when this instance took the lock (the time of the build that took it). */
  leaderSince?: string;
  /** When this instance last took the publishing over from another, and from which. */
  takeover?: { from: string; at: string };
  /** When this instance started watching the lock: health counts a silence from here while no publish is known. */
  startedAt?: string;
  /** The newest publish by any instance this one knows of (the lock's record, or its own), by whom and when. */
  lastPublish?: { by: string; at: string };
  /** Standby: whether another session held the lock at the last check (absent: the lock could not be asked). */
  holderHolds?: boolean;
  /** The last build took a period or longer (ms), so it could not be published (health: failing, saying so). */
  slowBuild?: { buildMs: number; at: string };
  /** Leader: export files another writer replaced while this instance led, put back at once (an alert). */
  overwritten?: { files: string[]; at: string };
}
