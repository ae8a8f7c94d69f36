// What the dashboard shows of one build that does not depend on the clock or the filter: every direction with
// its published form (the primary export's items, from select.ts), worked out once per build and kept per report.
import { Decimal, formatDecimal } from '../decimal.js';
import { formatFee, formatFloating } from '../exports/direction-fields.js';
import { publishedRate, rateAtMarkup } from '../pricing/published.js';
import { selectExports } from '../exports/select.js';
import type { Direction, ExportTemplate } from '../model.js';
import type { RatePair } from './history.js';
import { publicText, type Redaction } from './redact.js';
import type { BuildReport } from '../report.js';
import type { ExportItem } from '../exports/items.js';
import type { CompeteOutcome, WithheldKind } from '../priced.js';
import { percent, show } from '../words.js';

export type DirectionState = 'published' | 'withheld' | 'hours' | 'paused';

export interface ExportFacts {
  name: string;
  file: string;
  primary: boolean;
  items: number;
  /** The partner markup, e.g. "0.5%"; "0%" when none. */
  markup: string;
  description?: string;
}

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
  quotes: { pair: string; side: 'bid' | 'ask'; source: string; at: number }[];
  reserve?: string;
  /** `config`, or the reserve source it was read from. */
  reserveFrom: string;
  min?: string;
  max?: string;
  fees: string[];
  labels: string[];
  cities: readonly string[];
  /** Files it is published in. */
  exports: string[];
  /** Not published now: the rate it was last published at (the guard state's), in the primary export's published form. */
  lastPublished?: { in: string; out: string; at: string };
  /** A jump being held: the last published rate and the new one, both in the primary export's published form. */
  jump?: { old: { in: string; out: string }; new: { in: string; out: string }; accept: string };
  /** Lower-case text the search box looks in. */
  search: string;
}

export interface Prepared {
  exports: ExportFacts[];
  rows: DirectionFacts[];
  currencies: string[];
  /** Published and market rate per published direction, in the published form, for the history. */
  rates: Map<string, RatePair>;
  counts: Record<DirectionState, number>;
}

/**
 * Exports in config order with the primary one first: the template named `parserfile` (the file monitors are
 * given), else the first with no markup and no tag filter (it publishes every direction at its own rate).
 */
export function orderExports(templates: readonly ExportTemplate[]): ExportTemplate[] {
  const primary =
    templates.find((t) => t.name === 'parserfile') ??
    templates.find((t) => t.markup.isZero() && !t.includeTags && t.excludeTags.length === 0) ??
    templates[0];
  return primary ? [primary, ...templates.filter((t) => t !== primary)] : [];
}

const cache = new WeakMap<BuildReport, Prepared>();
const ZERO = new Decimal(0);
const form = (rate: { in: Decimal; out: Decimal }) => ({ in: formatDecimal(rate.in), out: formatDecimal(rate.out) });

export function prepare(report: BuildReport, templates: readonly ExportTemplate[], redaction: Redaction): Prepared {
  const known = cache.get(report);
  if (known) return known;
  // A private export's name is its lock (`private: true`): the public page neither lists nor links it.
  const ordered = orderExports(templates.filter((template) => template.private !== true));
  const selections = selectExports(report.priced, ordered);
  // Items back to their direction: an export's aliases undone, so `USDTTRC` in reffile.xml is USDTTRC20 again.
  const items = new Map<string, { file: string; markup: Decimal; items: ExportItem[] }[]>();
  selections.forEach((selection, index) => {
    const template = ordered[index]!;
    const codes = new Map(Object.entries(template.aliases).map(([code, alias]) => [alias, code]));
    const byDirection = new Map<string, ExportItem[]>();
    for (const item of selection.items) {
      const id = `${codes.get(item.from) ?? item.from}>${codes.get(item.to) ?? item.to}`;
      (byDirection.get(id) ?? byDirection.set(id, []).get(id)!).push(item);
    }
    for (const [id, list] of byDirection)
      (items.get(id) ?? items.set(id, []).get(id)!).push({
        file: selection.file,
        markup: template.markup,
        items: list,
      });
  });
  const text = (value: string) => publicText(value, redaction);
  const primaryMarkup = ordered[0]?.markup ?? ZERO;
  const rows: DirectionFacts[] = [];
  const rates = new Map<string, RatePair>();
  // Each direction once (report.directions): one left out of some exports only is published, its omissions noted;
  // one left out of every export that selects it is withheld, with its omissions as one reason.
  const { directions } = report;
  const notes = new Map(directions.leftOut.map((o) => [o.direction.id, text(o.reason)]));
  const everywhere = new Map(directions.withheld.map((w) => [w.direction.id, w]));
  const pricedIds = new Set(report.priced.map((p) => p.direction.id));
  const published = report.priced.filter((p) => !everywhere.has(p.direction.id));
  const withheld = [
    ...report.withheld.filter((w) => !pricedIds.has(w.direction.id)),
    ...report.priced.flatMap((p) => everywhere.get(p.direction.id) ?? []),
  ];

  for (const priced of published) {
    const { direction } = priced;
    const inExports = items.get(direction.id) ?? [];
    const first = inExports[0];
    const item = first?.items[0];
    const market = form(publishedRate(priced.market, direction.from, direction.to));
    const rate = item && first ? { in: item.in, out: item.out, export: first.file } : undefined;
    const row: DirectionFacts = {
      ...common(direction),
      state: 'published',
      ...(notes.has(direction.id) ? { reason: notes.get(direction.id)! } : {}),
      ...(rate ? { rate, margin: effectiveMargin(rate, priced.market) } : {}),
      market,
      ...(priced.compete ? { compete: competeFacts(priced.compete, text) } : {}),
      quotes: priced.steps.map((step) => ({
        pair: step.pair,
        side: step.side,
        source: step.quote.source,
        at: step.quote.time.getTime(),
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
    rows.push(row);
    if (rate) rates.set(direction.id, [`${rate.in}:${rate.out}`, `${market.in}:${market.out}`]);
  }
  for (const held of withheld) {
    const { direction } = held;
    const state: DirectionState = held.kind === 'hours' || held.kind === 'paused' ? held.kind : 'withheld';
    const last = report.guardState.published[direction.id];
    const lastPublished =
      last && held.kind !== 'jump'
        ? { lastPublished: { ...shownRate(last.rate, direction, primaryMarkup), at: last.at } }
        : {};
    const jump = held.kind === 'jump' ? jumpFacts(direction, report, primaryMarkup) : {};
    const reason = jump.jump && last ? inPublishedForm(held.reason, last.rate, jump.jump.old) : held.reason;
    rows.push({
      ...common(direction),
      state,
      kind: held.kind,
      reason: text(reason),
      quotes: [],
      fees: configuredFees(direction),
      cities: direction.cities,
      exports: [],
      ...lastPublished,
      ...jump,
    });
  }
  // Config order (a from/to list's directions share their entry's index; the sort is stable).
  const index = new Map([...published, ...withheld].map((entry) => [entry.direction.id, entry.direction.index]));
  rows.sort((a, b) => index.get(a.id)! - index.get(b.id)!);
  for (const row of rows)
    row.search = [
      row.id,
      row.from,
      row.to,
      row.state,
      row.reason ?? '',
      ...row.labels,
      ...row.cities,
      ...row.exports,
      ...row.quotes.map((q) => `${q.source} ${q.pair}`),
    ]
      .join(' ')
      .toLowerCase();
  const currencies = [...new Set(rows.flatMap((row) => [row.from, row.to]))].sort();
  const exports = ordered.map((template, index) => ({
    name: template.name,
    file: template.file,
    primary: index === 0,
    items: selections[index]!.items.length,
    markup: percent(template.markup),
    ...(template.description ? { description: template.description } : {}),
  }));
  const counts = { published: 0, withheld: 0, paused: 0, hours: 0 };
  for (const row of rows) counts[row.state]++;
  const prepared = { exports, rows, currencies, rates, counts };
  cache.set(report, prepared);
  return prepared;
}

function common(direction: Direction) {
  return {
    id: direction.id,
    from: direction.from.code,
    to: direction.to.code,
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
export function effectiveMargin(rate: { in: string; out: string }, market: Decimal): string {
  const published = new Decimal(rate.out).div(rate.in);
  return `${formatDecimal(new Decimal(1).minus(published.div(market)).times(100).toDecimalPlaces(2))}%`;
}

function competeFacts(
  outcome: CompeteOutcome,
  text: (value: string) => string,
): NonNullable<DirectionFacts['compete']> {
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
 * The guard's reason names the last published rate as it keeps it (`0.0000001087536193`: no monitor ever saw that
 * number); the dashboard names it as the export published it (`9195000 : 1`). Left as it is if the wording moved.
 */
function inPublishedForm(reason: string, rate: string, shown: { in: string; out: string }): string {
  return reason.replace(
    `from the last published ${show(new Decimal(rate))}`,
    `from the last published ${shown.in} : ${shown.out}`,
  );
}

/** A rate the guard state keeps (full precision, internal) as the primary export would publish it. */
const shownRate = (rate: string, direction: Direction, markup: Decimal) =>
  form(publishedRate(rateAtMarkup(new Decimal(rate), markup), direction.from, direction.to));
