// selectExports: from priced directions to each export's items (selection, aliases, markup, rounding, url); exportWalker: the selection alone, which every writer shares. Pure.
import { type Decimal, formatDecimal, roundDown } from '../../base/decimal.js';
import type { ExportTemplate } from '../../model/config.js';
import type { ExportItem, ExportModel } from '../../model/items.js';
import { directionFields, type CommonFields } from './direction-fields.js';
import { FormatFields } from './format-fields.js';
import { monitorFields } from './monitor-fields.js';
import { isPremiumFormat } from '../../model/formats.js';
import { publisherAt } from '../pricing/published.js';
import type {
  LadderStep,
  PricedDirection,
  Published,
  PublishedLimits,
  RateEntry,
  Refusal,
  WithheldDirection,
  WithheldKind,
} from '../../model/priced.js';

/** An export as selected: its model, and the directions left out of it alone because their limits fail at its rate. */
export interface ExportSelection extends ExportModel {
  withheld: WithheldDirection[];
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
export function urlWriter(
  pattern: string | undefined,
): ((from: string, to: string, city: string) => string) | undefined {
  if (pattern === undefined) return undefined;
  const parts = pattern.split(/\{(from|to|city)\}/);
  const encoded = new Map<string, string>();
  const encode = (value: string) => encoded.get(value) ?? encoded.set(value, encodeURIComponent(value)).get(value)!;
  return (from, to, city) => {
    let url = parts[0]!;
    for (let i = 1; i < parts.length; i += 2)
      url += encode(parts[i] === 'from' ? from : parts[i] === 'to' ? to : city) + parts[i + 1]!;
    return url;
  };
}

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
 * The selection every format shares: tags, and what each direction publishes at the export's markup (published.ts:
 * its rate, the limits at that rate, its tiers); a direction whose limits cross there is left out of this export
 * alone. Exports with one markup share one publisher, so each direction's is worked out once per markup.
 */
export function exportWalker(priced: readonly PricedDirection[], templates: readonly ExportTemplate[]): ExportWalk {
  const byMarkup = new Map<string, (p: PricedDirection) => Published | Refusal>();
  return (index, visit) => {
    const template = templates[index]!;
    const markup = template.markup.toString();
    const publish = byMarkup.get(markup) ?? byMarkup.set(markup, publisherAt(template.markup)).get(markup)!;
    const withheld: WithheldDirection[] = [];
    const leaveOut = (p: PricedDirection, kind: WithheldKind, reason: string) =>
      withheld.push({ direction: p.direction, kind, reason: `${template.file}: ${reason}` });
    for (let position = 0; position < priced.length; position++) {
      const p = priced[position]!;
      if (!selects(template, p.direction.tags)) continue;
      const published = publish(p);
      if ('reason' in published) {
        leaveOut(p, published.kind, published.reason);
        continue;
      }
      const refused = visit(p, published.rate, published.limits, published.steps, position);
      if (refused !== undefined) leaveOut(p, refused.kind, refused.reason);
    }
    return withheld;
  };
}

/**
 * Every export's items, directions in config order, cities in the order given. What every export shares is
 * computed once per direction, what it publishes once per markup. All exports at once: for the dashboard and tests;
 * a build writes them one by one (`exportWriter` in renderers.ts).
 */
export function selectExports(
  priced: readonly PricedDirection[],
  templates: readonly ExportTemplate[],
): ExportSelection[] {
  const select = exportSelector(priced, templates);
  return templates.map((_, index) => select(index));
}

/**
 * Selects one export at a time, so a caller can render each and let its items die before the next is selected
 * (at 50,000 directions the items of all exports at once are tens of megabytes). The text every export shares
 * (reserve, fees, limits' decimal text, tomin/tomax) is kept by value object across the calls.
 */
export function exportSelector(
  priced: readonly PricedDirection[],
  templates: readonly ExportTemplate[],
  walk: ExportWalk = exportWalker(priced, templates),
): (index: number) => ExportSelection {
  const text = new DecimalText();
  const formatFields = new FormatFields();
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
      const extra =
        template.format === 'classic' || isPremiumFormat(template.format)
          ? undefined
          : formatFields.of(template.format, p, rate, limits, { ...common, minamount, maxamount }, steps);
      if (extra !== undefined && 'reason' in extra) return extra;
      // A monitor's profile adapts the item after pricing (fees folded, its rate decimals) or leaves the direction out.
      const adapted =
        template.monitor === undefined
          ? undefined
          : monitorFields(
              template.monitor,
              { ...common, ...extra, in: rate.in, out: rate.out, minamount, maxamount },
              p.direction,
            );
      if (adapted !== undefined && 'reason' in adapted) return adapted;
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
        // Every classic item has every key (undefined when unset): items of one shape share V8's hidden class, so
        // the renderers' reads of them stay monomorphic.
        if (extra !== undefined) Object.assign(item, extra);
        items.push(adapted === undefined ? item : Object.assign(item, adapted));
      }
      return undefined;
    });
    return { name: template.name, file: template.file, format: template.format, items, withheld };
  };
}
