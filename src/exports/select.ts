// selectExports: from priced directions to each export's items (selection, aliases, markup, rounding, url). Pure.
import { Decimal, formatDecimal, roundDown, roundUp } from '../decimal.js';
import type { ExportTemplate } from '../model.js';
import { publishedRate, type PricedDirection } from '../pricing.js';

/** One `<item>` of an export: every value already the exact text to publish. Optional fields only when set. */
export interface ExportItem {
  from: string;
  to: string;
  in: string;
  out: string;
  amount: string;
  minfee?: string;
  fromfee?: string;
  tofee?: string;
  minamount?: string;
  maxamount?: string;
  floating?: string;
  delay?: string;
  param?: string;
  city?: string;
  url?: string;
}

/** The element order every monitor parses (estandards / Premium order), plus our `url` last. */
export const itemElements = [
  'from', 'to', 'in', 'out', 'amount', 'minfee', 'fromfee', 'tofee', 'minamount', 'maxamount', 'floating', 'delay', 'param', 'city', 'url',
] as const satisfies readonly (keyof ExportItem)[];

export interface ExportModel {
  name: string;
  file: string;
  items: ExportItem[];
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

function selects(template: ExportTemplate, tags: readonly string[]): boolean {
  if (template.includeTags && !template.includeTags.some((tag) => tags.includes(tag))) return false;
  return !template.excludeTags.some((tag) => tags.includes(tag));
}

function fillUrl(pattern: string, values: Record<'from' | 'to' | 'city', string>): string {
  return pattern.replace(/\{(from|to|city)\}/g, (_, key: 'from' | 'to' | 'city') => encodeURIComponent(values[key]));
}

/** The items one priced direction contributes to one export: one per city, or one without a city. */
export function exportItems(priced: PricedDirection, template: ExportTemplate): ExportItem[] {
  const { direction } = priced;
  const { from, to } = direction;
  const rate = priced.rate.times(new Decimal(1).minus(template.markup));
  const published = publishedRate(rate, from, to);
  // Limits were converted at the direction's rate before any markup, the lower rate for a max in the
  // to currency and a reserve cap that a markup (a lower rate) only loosens: safe for every export.
  const max = roundDown(priced.max, from.precision);
  const min = priced.min === undefined ? undefined : roundUp(priced.min, from.precision);
  const codes = { from: template.aliases[from.code] ?? from.code, to: template.aliases[to.code] ?? to.code };

  const base: ExportItem = {
    from: codes.from,
    to: codes.to,
    in: formatDecimal(published.in),
    out: formatDecimal(published.out),
    amount: formatDecimal(roundDown(direction.reserve, to.precision)),
    ...(direction.minfee === undefined ? {} : { minfee: formatFee(direction.minfee) }),
    ...(direction.fromfee === undefined ? {} : { fromfee: formatFee(direction.fromfee) }),
    ...(direction.tofee === undefined ? {} : { tofee: formatFee(direction.tofee) }),
    ...(min === undefined ? {} : { minamount: formatDecimal(min) }),
    maxamount: formatDecimal(max),
    ...(direction.floating === undefined ? {} : { floating: formatFloating(direction.floating) }),
    ...(direction.delay === undefined ? {} : { delay: String(direction.delay) }),
    ...(direction.params.length === 0 ? {} : { param: direction.params.join(', ') }),
  };
  const cities = direction.cities.length > 0 ? direction.cities : [undefined];
  return cities.map((city) => ({
    ...base,
    ...(city === undefined ? {} : { city }),
    ...(template.url === undefined ? {} : { url: fillUrl(template.url, { ...codes, city: city ?? '' }) }),
  }));
}

/** Every export's items, directions in config order, cities in the order given. */
export function selectExports(priced: readonly PricedDirection[], templates: readonly ExportTemplate[]): ExportModel[] {
  return templates.map((template) => ({
    name: template.name,
    file: template.file,
    items: priced.filter((p) => selects(template, p.direction.tags)).flatMap((p) => exportItems(p, template)),
  }));
}
