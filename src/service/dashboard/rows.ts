// One row of the dashboard per direction: a published one's from the export items it is in, a withheld one's from
// its config and the guard state (a held jump and the last published rate, in the primary export's published form).
import { Decimal, formatDecimal } from '../../base/decimal.js';
import { formatFee, formatFloating } from '../../pure/exports/direction-fields.js';
import { publishedRate, rateAtMarkup } from '../../pure/pricing/published.js';
import type { Direction } from '../../model/config.js';
import type { BuildReport } from '../../pure/status/report.js';
import type { ExportItem } from '../../model/items.js';
import type {
  CompeteOutcome,
  PricedDirection,
  ReferenceCheck,
  WithheldDirection,
  WithheldKind,
} from '../../model/priced.js';
import { percent, show } from '../../base/words.js';

export type DirectionState = 'published' | 'withheld' | 'hours' | 'paused';

export interface DirectionFacts {
  id: string;
  from: string;
  to: string;
  state: DirectionState;
  kind?: WithheldKind;
  /** Why it is not published (or left out of one export), public text. */
  reason?: string;
  /** Published form (`in`, `out`) in the primary export, or the first export that has it. */
  rate?: { in: string; out: string; export: string };
  market?: { in: string; out: string };
  /** Against the market, markup of that export included. */
  margin?: string;
  compete?: Pick<CompeteOutcome, 'place' | 'target' | 'basis' | 'competitors' | 'feedAgeSeconds'> & {
    reason?: string;
    /** A price war held out: the rival's name (public text) and the end of the cool-down. */
    war?: { rival: string; until: string };
  };
  /** `fed: 'stream'`: the quote came in the source's stream (`stream:`), not a REST answer. */
  quotes: { pair: string; side: 'bid' | 'ask'; source: string; at: number; fed?: 'stream' }[];
  reserve?: string;
  /** `config`, or the reserve source it was read from. */
  reserveFrom: string;
  /** How the reserve was made and shaped (`capped at 1000000 USDTTRC20 by reserveCap`); absent: as configured or read. */
  reserveMade?: string[];
  min?: string;
  max?: string;
  fees: string[];
  labels: string[];
  cities: readonly string[];
  /** Files it is published in. */
  exports: string[];
  /** Not published now: the rate it was last published at (the guard state's), in the primary export's published form. */
  lastPublished?: { in: string; out: string; at: string };
  /** Its independent reference (one source alone sets its market): the reference's market, where from, how far, the band. */
  reference?: {
    market: { in: string; out: string };
    from: string;
    deviation: string;
    band: string;
    /** Further from it than the band: withheld for it. */
    past: boolean;
    unchecked?: string[];
  };
  /** A jump being held: the last published rate and the new one, both in the primary export's published form. */
  jump?: { old: { in: string; out: string }; new: { in: string; out: string }; accept: string };
  /** Lower-case text the search box looks in. */
  search: string;
}

/** The items one export has of a direction (aliases undone), with its file and markup. */
export interface ExportedAs {
  file: string;
  markup: Decimal;
  items: ExportItem[];
}

/** Public text: a value from outside as the page may show it (`publicText` with the dashboard's redaction). */
export type PublicText = (value: string) => string;

const form = (rate: { in: Decimal; out: Decimal }) => ({ in: formatDecimal(rate.in), out: formatDecimal(rate.out) });

/** A published direction: its form in the first export that has it, the market, its place, quotes, limits and fees. */
export function publishedRow(
  priced: PricedDirection,
  inExports: readonly ExportedAs[],
  note: string | undefined,
  text: PublicText,
): DirectionFacts {
  const { direction } = priced;
  const first = inExports[0];
  const item = first?.items[0];
  const market = form(publishedRate(priced.market, direction.from, direction.to));
  const rate = item && first ? { in: item.in, out: item.out, export: first.file } : undefined;
  return {
    ...common(direction),
    state: 'published',
    ...(note !== undefined ? { reason: note } : {}),
    ...(rate ? { rate, margin: effectiveMargin(rate, priced.market) } : {}),
    market,
    ...referenceFacts(priced.reference, direction, text),
    ...(priced.compete ? { compete: competeFacts(priced.compete, text) } : {}),
    quotes: priced.steps.map((step) => ({
      pair: step.pair,
      side: step.side,
      source: step.quote.source,
      at: step.quote.time.getTime(),
      ...(step.quote.streamSeq === undefined ? {} : { fed: 'stream' as const }),
    })),
    ...(item
      ? {
          reserve: item.amount,
          ...(item.minamount === undefined ? {} : { min: item.minamount }),
          ...(item.maxamount === undefined ? {} : { max: item.maxamount }),
        }
      : {}),
    fees: item ? feesOf(item) : [],
    cities: first ? first.items.flatMap((i) => (i.city === undefined ? [] : [i.city])) : direction.cities,
    exports: inExports.map((e) => e.file),
  };
}

/** A withheld (paused, off hours) direction: why, its configured fees, and the rate it was last published at or a held jump. */
export function withheldRow(
  held: WithheldDirection,
  report: BuildReport,
  primaryMarkup: Decimal,
  text: PublicText,
  checked?: PricedDirection,
): DirectionFacts {
  const { direction } = held;
  const state: DirectionState = held.kind === 'hours' || held.kind === 'paused' ? held.kind : 'withheld';
  const last = report.guardState.published[direction.id];
  const lastPublished =
    last && held.kind !== 'jump'
      ? { lastPublished: { ...shownRate(last.rate, direction, primaryMarkup), at: last.at } }
      : {};
  const jump = held.kind === 'jump' ? jumpFacts(direction, report, primaryMarkup) : {};
  const pending = report.guardState.pending[direction.id];
  const reason =
    jump.jump && last && pending
      ? inPublishedForm(
          inPublishedForm(held.reason, 'from the last published', last.rate, jump.jump.old),
          'to',
          pending.rate,
          jump.jump.new,
        )
      : held.reason;
  return {
    ...common(direction),
    state,
    kind: held.kind,
    reason: text(reason),
    quotes: [],
    fees: configuredFees(direction),
    cities: direction.cities,
    exports: [],
    // Priced, then held back (its reference, the guards): the market the build saw, and its reference.
    ...(checked ? { market: form(publishedRate(checked.market, direction.from, direction.to)) } : {}),
    ...referenceFacts(held.reference ?? checked?.reference, direction, text),
    ...lastPublished,
    ...jump,
  };
}

type ReferenceFacts = NonNullable<DirectionFacts['reference']>;

/** Per check (one object for the directions priced alike): what does not depend on the direction's currencies. */
const referenceTexts = new WeakMap<ReferenceCheck, Omit<ReferenceFacts, 'market'>>();

/** The reference in the published form, how far the market is from it and its band. */
function referenceFacts(
  check: ReferenceCheck | undefined,
  direction: Direction,
  text: PublicText,
): Pick<DirectionFacts, 'reference'> {
  if (!check) return {};
  let texts = referenceTexts.get(check);
  if (!texts)
    referenceTexts.set(
      check,
      (texts = {
        from: text(check.from),
        deviation: percent(check.deviation.toSignificantDigits(3)),
        band: percent(check.band),
        past: check.deviation.greaterThan(check.band),
        ...(check.unchecked ? { unchecked: [...check.unchecked] } : {}),
      }),
    );
  return { reference: { market: form(publishedRate(check.value, direction.from, direction.to)), ...texts } };
}

/** The reserve's steps (src/pure/reserves/shape.ts) with the config field that made each: a cap says it was capped. */
function reserveSteps(direction: Direction): Pick<DirectionFacts, 'reserveMade'> {
  if (!direction.reserveMade || direction.reserveMade.length === 0) return {};
  const field = (step: string) =>
    /^capped at /.test(step)
      ? `${step} by reserveCap`
      : / of it shown: /.test(step)
        ? `${step} (reserveCap)`
        : /: (the direction's )?margin /.test(step)
          ? `${step} (reserveMargins)`
          : step;
  return { reserveMade: direction.reserveMade.map(field) };
}

function common(direction: Direction) {
  return {
    id: direction.id,
    from: direction.from.code,
    to: direction.to.code,
    ...reserveSteps(direction),
    reserveFrom: direction.reserveSource ?? 'config',
    labels: [...direction.params],
    search: '',
  };
}

/** Fees, floating and delay as the export prints them. */
function feesOf(item: Pick<ExportItem, 'fromfee' | 'tofee' | 'minfee' | 'floating' | 'delay'>): string[] {
  return [
    ...(item.fromfee === undefined ? [] : [`from fee ${item.fromfee}`]),
    ...(item.tofee === undefined ? [] : [`to fee ${item.tofee}`]),
    ...(item.minfee === undefined ? [] : [`min fee ${item.minfee}`]),
    ...(item.floating === undefined ? [] : [`floating ${item.floating}`]),
    ...(item.delay === undefined ? [] : [`delay ${item.delay} min`]),
  ];
}

/** A withheld direction has no item: its configured fees, formatted as an item would carry them. */
function configuredFees(direction: Direction): string[] {
  const fee = (value: string | undefined) => (value === undefined ? undefined : formatFee(value));
  return feesOf({
    fromfee: fee(direction.fromfee),
    tofee: fee(direction.tofee),
    minfee: fee(direction.minfee),
    floating: direction.floating === undefined ? undefined : formatFloating(direction.floating),
    delay: direction.delay === undefined ? undefined : String(direction.delay),
  });
}

/** The effective margin of a published form against the market: 1 − (out/in) / market, as "1.23%". */
function effectiveMargin(rate: { in: string; out: string }, market: Decimal): string {
  const published = new Decimal(rate.out).div(rate.in);
  return `${formatDecimal(new Decimal(1).minus(published.div(market)).times(100).toDecimalPlaces(2))}%`;
}

function competeFacts(outcome: CompeteOutcome, text: PublicText): NonNullable<DirectionFacts['compete']> {
  return {
    place: outcome.place,
    target: outcome.target,
    basis: outcome.basis,
    competitors: outcome.competitors,
    ...(outcome.feedAgeSeconds === undefined ? {} : { feedAgeSeconds: outcome.feedAgeSeconds }),
    ...(outcome.reason === undefined ? {} : { reason: text(outcome.reason) }),
    ...(outcome.war === undefined ? {} : { war: { rival: text(outcome.war.rival), until: outcome.war.until } }),
  };
}

/** A held jump: guards.ts keeps the last published rate in `published` and the new one in `pending`. */
function jumpFacts(direction: Direction, report: BuildReport, markup: Decimal): Pick<DirectionFacts, 'jump'> {
  const last = report.guardState.published[direction.id];
  const pending = report.guardState.pending[direction.id];
  if (!last || !pending) return {};
  return {
    jump: {
      old: shownRate(last.rate, direction, markup),
      new: shownRate(pending.rate, direction, markup),
      accept: `ratefile accept ${direction.from.code} ${direction.to.code}`,
    },
  };
}

/**
 * The guard's reason names the last published rate and the new one as it keeps them (`0.0000001087536193`: no monitor
 * ever saw that number); the dashboard names them as the export publishes them (`9195000 : 1`). Left as it is if the
 * wording moved.
 */
function inPublishedForm(reason: string, words: string, rate: string, shown: { in: string; out: string }): string {
  return reason.replace(`${words} ${show(new Decimal(rate))}`, `${words} ${shown.in} : ${shown.out}`);
}

/** A rate the guard state keeps (full precision, internal) as the primary export would publish it. */
const shownRate = (rate: string, direction: Direction, markup: Decimal) =>
  form(publishedRate(rateAtMarkup(new Decimal(rate), markup), direction.from, direction.to));
