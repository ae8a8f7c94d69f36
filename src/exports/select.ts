// selectExports: from priced directions to each export's items (selection, aliases, markup, rounding, url); exportWalker: the selection alone, which every writer shares. Pure.
import { Decimal, formatDecimal, roundDown, roundUp } from '../decimal.js';
import type { Currency, Direction, ExportTemplate } from '../model.js';
import { tierLadder, type LadderStep } from './tiers.js';
import type { ExportFormat } from './formats.js';
import type { ExportItem, ExportModel } from './items.js';
import { formatRefusal, sideFee } from './refusals.js';
import { publishedForm, publishedLimits, publishedRate } from '../pricing/published.js';
import type { PricedDirection, PublishedLimits, PublishedRate, WithheldDirection, WithheldKind } from '../priced.js';

/** An export as selected: its model, and the directions left out of it alone because their limits fail at its rate. */
export interface ExportSelection extends ExportModel {
  withheld: WithheldDirection[];
}

/** Fees as the classic format prints them: `0.0005`, `1.5 %`, `2 USD`. */
export function formatFee(text: string): string {
  const match = /^(\d+(?:\.\d+)?)\s?(%|[A-Z][A-Z0-9]*)?$/.exec(text.trim());
  if (!match) return text;
  const number = formatDecimal(new Decimal(match[1]!));
  return match[2] ? `${number} ${match[2]}` : number;
}

export function formatFloating(text: string): string {
  const percent = /^(\d+(?:\.\d+)?)\s?%$/.exec(text);
  return percent ? `${formatDecimal(new Decimal(percent[1]!))}%` : text;
}

/** Whether a template takes a direction with these tags (loops, not closures: it runs per direction and export). */
export function selects(template: ExportTemplate, tags: readonly string[]): boolean {
  const { includeTags, excludeTags } = template;
  if (includeTags !== undefined && !anyOf(includeTags, tags)) return false;
  return excludeTags.length === 0 || !anyOf(excludeTags, tags);
}

function anyOf(wanted: readonly string[], tags: readonly string[]): boolean {
  for (const tag of wanted) if (tags.includes(tag)) return true;
  return false;
}

/** A url pattern split once into literal text and placeholders, filled per item with percent-encoded codes. */
export function urlWriter(pattern: string | undefined): ((from: string, to: string, city: string) => string) | undefined {
  if (pattern === undefined) return undefined;
  const parts = pattern.split(/\{(from|to|city)\}/);
  const encoded = new Map<string, string>();
  const encode = (value: string) => encoded.get(value) ?? encoded.set(value, encodeURIComponent(value)).get(value)!;
  return (from, to, city) => {
    let url = parts[0]!;
    for (let i = 1; i < parts.length; i += 2) url += encode(parts[i] === 'from' ? from : parts[i] === 'to' ? to : city) + parts[i + 1]!;
    return url;
  };
}

/** The text of a direction's own fields as every format starts from it: fees, floating, delay, labels. */
export type DirectionFields = Pick<ExportItem, 'minfee' | 'fromfee' | 'tofee' | 'floating' | 'delay' | 'param'>;

export function directionFields(direction: Direction): DirectionFields {
  return {
    minfee: direction.minfee === undefined ? undefined : formatFee(direction.minfee),
    fromfee: direction.fromfee === undefined ? undefined : formatFee(direction.fromfee),
    tofee: direction.tofee === undefined ? undefined : formatFee(direction.tofee),
    floating: direction.floating === undefined ? undefined : formatFloating(direction.floating),
    delay: direction.delay === undefined ? undefined : String(direction.delay),
    param: direction.params.length === 0 ? undefined : direction.params.join(', '),
  };
}

type CommonFields = DirectionFields & Pick<ExportItem, 'amount'>;

/** Text that does not depend on the export: reserve, fees, labels. Limits depend on the export's published rate. */
function commonFields(priced: PricedDirection, text: DecimalText): CommonFields {
  const { direction } = priced;
  return { amount: text.roundedDown(direction.reserve, direction.to.precision), ...directionFields(direction) };
}

/** Decimal text per value object: currencies share reserves and directions share limits (see priceDirections). */
class DecimalText {
  private readonly plain = new WeakMap<Decimal, string>();
  private readonly rounded = new WeakMap<Decimal, Map<number, string>>();

  of(value: Decimal): string {
    return this.plain.get(value) ?? this.plain.set(value, formatDecimal(value)).get(value)!;
  }

  roundedDown(value: Decimal, places: number): string {
    let byPlaces = this.rounded.get(value);
    if (!byPlaces) this.rounded.set(value, (byPlaces = new Map()));
    return byPlaces.get(places) ?? byPlaces.set(places, formatDecimal(roundDown(value, places))).get(places)!;
  }
}

/** The in/out an export with `markup` publishes for a direction rate: the one rounding every export and the dashboard use. */
export function exportRate(rate: Decimal, from: Currency, to: Currency, markup: Decimal): PublishedRate {
  return rateAtFactor(rate, from, to, markupFactor(markup));
}

/** What a rate is multiplied by for the client under `markup`: 1 − markup; undefined without a markup. */
const markupFactor = (markup: Decimal): Decimal | undefined => (markup.isZero() ? undefined : new Decimal(1).minus(markup));

/** Without a markup the form is pricing's own (shared, so are the limits computed at it). */
function rateAtFactor(rate: Decimal, from: Currency, to: Currency, factor: Decimal | undefined): PublishedRate {
  return factor === undefined ? publishedForm(rate, from, to) : publishedRate(rate.times(factor), from, to);
}

/** A rate as an export publishes it, as numbers and text: one object per distinct rate, precisions and markup in a build. */
export interface RateEntry {
  in: string;
  out: string;
  form: PublishedRate;
}

/**
 * The published in/out of a rate after a markup, as numbers and text. Directions that share an asset pair and
 * margin share one rate object (see priceDirections), so the decimal work is done once per distinct rate,
 * not per direction; without a markup the form is pricing's own, so are the limits computed at it.
 */
class RateText {
  private readonly byRate = new WeakMap<Decimal, Map<number, RateEntry>>();
  /** What a rate is multiplied by for the client: 1 − markup; undefined without a markup. */
  private readonly factor: Decimal | undefined;

  /** One per markup: exports with the same markup share it. */
  constructor(markup: Decimal) {
    this.factor = markupFactor(markup);
  }

  /** Any rate of a direction (a tier's) in its published form at this markup (as exportRate, with the factor made once). */
  formOf(rate: Decimal, from: Currency, to: Currency): PublishedRate {
    return rateAtFactor(rate, from, to, this.factor);
  }

  of(priced: PricedDirection): RateEntry {
    const { from, to } = priced.direction;
    let forRate = this.byRate.get(priced.rate);
    if (!forRate) this.byRate.set(priced.rate, (forRate = new Map()));
    // Precisions are 0..18: one number names the pair.
    const key = from.ratePrecision * 32 + to.ratePrecision;
    let text = forRate.get(key);
    if (!text) {
      const form = this.formOf(priced.rate, from, to);
      text = { in: formatDecimal(form.in), out: formatDecimal(form.out), form };
      forRate.set(key, text);
    }
    return text;
  }
}

/**
 * What an export does with one direction it publishes, given the rate, limits and tier steps at the export's rate;
 * `position` is the direction's place in the priced list (how far the walk is). It returns why the direction cannot
 * be written after all (a format's refusal), or nothing.
 */
export type PublishedVisit = (
  priced: PricedDirection,
  rate: RateEntry,
  limits: PublishedLimits,
  steps: LadderStep[] | undefined,
  position: number,
) => { reason: string; kind: WithheldKind } | undefined;

/** Walks export `index`: each published direction in config order to `visit`; returns the directions left out of it alone. */
export type ExportWalk = (index: number, visit: PublishedVisit) => WithheldDirection[];

/**
 * The selection every format shares: tags, the rate at the export's markup, limits at that rate (a direction whose
 * limits cross there is left out of this export alone) and tiers. Rate text is made once per markup across exports.
 */
export function exportWalker(priced: readonly PricedDirection[], templates: readonly ExportTemplate[]): ExportWalk {
  const byMarkup = new Map<string, RateText>();
  return (index, visit) => {
    const template = templates[index]!;
    const markup = template.markup.toString();
    const rates = byMarkup.get(markup) ?? byMarkup.set(markup, new RateText(template.markup)).get(markup)!;
    const withheld: WithheldDirection[] = [];
    const leaveOut = (p: PricedDirection, kind: WithheldKind, reason: string) => withheld.push({ direction: p.direction, kind, reason: `${template.file}: ${reason}` });
    for (let position = 0; position < priced.length; position++) {
      const p = priced[position]!;
      if (!selects(template, p.direction.tags)) continue;
      const rate = rates.of(p);
      // Limits hold at the rate this export publishes: a markup moves them, and may make them cross.
      let limits = publishedLimits(p.direction, p.terms, rate.form);
      if ('reason' in limits) {
        leaveOut(p, limits.kind, limits.reason);
        continue;
      }
      let steps: LadderStep[] | undefined;
      if (p.tierRates !== undefined) {
        const { from, to } = p.direction;
        const ladder = tierLadder(p, rate.form, limits, (tierRate) => rates.formOf(tierRate, from, to));
        if ('reason' in ladder) {
          leaveOut(p, 'limits', ladder.reason);
          continue;
        }
        ({ limits, steps } = ladder);
      }
      const refused = visit(p, rate, limits, steps, position);
      if (refused !== undefined) leaveOut(p, refused.kind, refused.reason);
    }
    return withheld;
  };
}

/**
 * Every export's items, directions in config order, cities in the order given. What every export shares is
 * computed once per direction, the rate text once per markup. All exports at once: for the dashboard and tests;
 * a build writes them one by one (`exportWriter` in renderers.ts).
 */
export function selectExports(priced: readonly PricedDirection[], templates: readonly ExportTemplate[]): ExportSelection[] {
  const select = exportSelector(priced, templates);
  return templates.map((_, index) => select(index));
}

/**
 * Selects one export at a time, so a caller can render each and let its items die before the next is selected
 * (at 50,000 directions the items of all exports at once are tens of megabytes). The text every export shares
 * (reserve, fees, limits' decimal text, rate text per markup) is cached by value object across the calls.
 */
export function exportSelector(
  priced: readonly PricedDirection[],
  templates: readonly ExportTemplate[],
  walk: ExportWalk = exportWalker(priced, templates),
): (index: number) => ExportSelection {
  const text = new DecimalText();
  // One per direction, made by the first export that selects it.
  const shared = new Map<PricedDirection, CommonFields>();
  return (index) => {
    const template = templates[index]!;
    const url = urlWriter(template.url);
    const items: ExportItem[] = [];
    const withheld = walk(index, (p, rate, limits, steps) => {
      const { from, to, cities } = p.direction;
      let common = shared.get(p);
      if (!common) shared.set(p, (common = commonFields(p, text)));
      const minamount = limits.min === undefined ? undefined : text.of(limits.min);
      const maxamount = text.of(limits.max);
      const codes = { from: template.aliases[from.code] ?? from.code, to: template.aliases[to.code] ?? to.code };
      // The other formats cannot say everything the classic one can: such a direction is left out of them alone.
      const extra = template.format === 'classic' ? undefined : formatFields(template.format, p, rate, limits, { ...common, minamount, maxamount }, steps);
      if (extra !== undefined && 'reason' in extra) return extra;
      for (const city of cities.length > 0 ? cities : [undefined]) {
        const item: ExportItem = {
          from: codes.from,
          to: codes.to,
          in: rate.in,
          out: rate.out,
          amount: common.amount,
          minfee: common.minfee,
          fromfee: common.fromfee,
          tofee: common.tofee,
          minamount,
          maxamount,
          floating: common.floating,
          delay: common.delay,
          param: common.param,
          city,
          url: url?.(codes.from, codes.to, city ?? ''),
        };
        // Every classic item has every key (undefined when unset) so all items share one shape: 30,000 items build fast.
        items.push(extra === undefined ? item : Object.assign(item, extra));
      }
      return undefined;
    });
    return { name: template.name, file: template.file, format: template.format, items, withheld };
  };
}

/** What an EREF 1.1 or JSON item has beyond the classic one, or why the direction cannot be written in that format. */
function formatFields(
  format: Exclude<ExportFormat, 'classic'>,
  priced: PricedDirection,
  rate: RateEntry,
  limits: PublishedLimits,
  texts: CommonFields & Pick<ExportItem, 'minamount' | 'maxamount'>,
  steps: readonly LadderStep[] | undefined,
): Pick<ExportItem, 'fromfee' | 'tofee' | 'tomin' | 'tomax' | 'steps'> | { reason: string; kind: WithheldKind } {
  // A fee in the side's own currency (`4 USDT` on USDTERC20) is the plain number these formats take.
  const { from, to } = priced.direction;
  const fromfee = texts.fromfee === undefined ? undefined : sideFee(texts.fromfee, from);
  const tofee = texts.tofee === undefined ? undefined : sideFee(texts.tofee, to);
  const reason = formatRefusal(format, { ...texts, fromfee, tofee, in: rate.in, out: rate.out });
  if (reason !== undefined) return { reason, kind: 'format' };
  // Nearly every direction has no such fee: then no object is made here.
  const fees = fromfee === texts.fromfee && tofee === texts.tofee ? undefined : { fromfee, tofee };
  if (format === 'json') return fees ?? {};
  const places = to.precision;
  if (steps === undefined) {
    const bounds = toLimits(limits, rate.form, places);
    return fees === undefined || 'reason' in bounds ? bounds : { ...fees, ...bounds };
  }
  // tomin up and tomax down: any amount within them is within frommin..frommax at the rates published.
  const toUnits = (value: Decimal, form = rate.form) => value.times(form.out).div(form.in);
  // The largest order is paid at the last tier's rate, the smallest at the first (the listed rate).
  const tomax = roundDown(toUnits(limits.max, steps.at(-1)?.form), places);
  if (tomax.isZero()) return { reason: `tomax rounds to 0 at ${places} decimals`, kind: 'limits' };
  const published = { steps: steps.map((step) => ({ frommin: formatDecimal(step.min), frommax: formatDecimal(step.max), in: formatDecimal(step.form.in), out: formatDecimal(step.form.out) })) };
  if (limits.min === undefined) return { ...fees, tomax: formatDecimal(tomax), ...published };
  const tomin = roundUp(toUnits(limits.min), places);
  if (tomin.greaterThan(tomax)) return { reason: `tomin ${formatDecimal(tomin)} is above tomax ${formatDecimal(tomax)} at ${places} decimals`, kind: 'limits' };
  return { ...fees, tomin: formatDecimal(tomin), tomax: formatDecimal(tomax), ...published };
}

/**
 * tomin/tomax of limits without tiers, per limits object (shared by directions alike at one published rate, see
 * publishedLimits) and to precision: tomin rounded up, tomax down, so any amount within them is within the limits.
 */
const toLimitTexts = new WeakMap<PublishedLimits, Map<number, Pick<ExportItem, 'tomin' | 'tomax'> | { reason: string; kind: WithheldKind }>>();

function toLimits(limits: PublishedLimits, form: PublishedRate, places: number): Pick<ExportItem, 'tomin' | 'tomax'> | { reason: string; kind: WithheldKind } {
  let byPlaces = toLimitTexts.get(limits);
  if (!byPlaces) toLimitTexts.set(limits, (byPlaces = new Map()));
  let known = byPlaces.get(places);
  if (!known) {
    const tomax = roundDown(limits.max.times(form.out).div(form.in), places);
    const tomin = limits.min === undefined ? undefined : roundUp(limits.min.times(form.out).div(form.in), places);
    // A zero tomax is a maximum no order can meet (the check's `limit` rule): withheld, never published.
    known = tomax.isZero()
      ? { reason: `tomax rounds to 0 at ${places} decimals`, kind: 'limits' }
      : tomin === undefined
        ? { tomax: formatDecimal(tomax) }
        : tomin.greaterThan(tomax)
          ? { reason: `tomin ${formatDecimal(tomin)} is above tomax ${formatDecimal(tomax)} at ${places} decimals`, kind: 'limits' }
          : { tomin: formatDecimal(tomin), tomax: formatDecimal(tomax) };
    byPlaces.set(places, known);
  }
  return known;
}
