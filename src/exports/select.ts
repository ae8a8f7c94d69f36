// selectExports: from priced directions to each export's items (selection, aliases, markup, rounding, url). Pure.
import { Decimal, formatDecimal, roundDown } from '../decimal.js';
import type { ExportTemplate } from '../model.js';
import { publishedRate, type PricedDirection } from '../pricing.js';

/** One `<item>` of an export: every value already the exact text to publish. Optional fields only when set. */
export interface ExportItem {
  from: string;
  to: string;
  in: string;
  out: string;
  amount: string;
  minfee?: string | undefined;
  fromfee?: string | undefined;
  tofee?: string | undefined;
  minamount?: string | undefined;
  maxamount?: string | undefined;
  floating?: string | undefined;
  delay?: string | undefined;
  param?: string | undefined;
  city?: string | undefined;
  url?: string | undefined;
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

type CommonFields = Omit<ExportItem, 'from' | 'to' | 'in' | 'out' | 'city' | 'url'>;

/**
 * Text that does not depend on the export (reserve, limits, fees, labels), and in/out per markup:
 * computed once per direction and markup, not once per export, since decimal work is most of a build.
 */
export class FieldCache {
  private readonly common = new WeakMap<PricedDirection, CommonFields>();
  private readonly rates = new Map<string, WeakMap<PricedDirection, { in: string; out: string }>>();

  commonFields(priced: PricedDirection): CommonFields {
    let fields = this.common.get(priced);
    if (!fields) {
      const { direction } = priced;
      const { to } = direction;
      // Limits were converted at the direction's rate before any markup, the lower rate for a max in the
      // to currency and a reserve cap that a markup (a lower rate) only loosens: safe for every export.
      fields = {
        amount: formatDecimal(roundDown(direction.reserve, to.precision)),
        minfee: direction.minfee === undefined ? undefined : formatFee(direction.minfee),
        fromfee: direction.fromfee === undefined ? undefined : formatFee(direction.fromfee),
        tofee: direction.tofee === undefined ? undefined : formatFee(direction.tofee),
        minamount: priced.min === undefined ? undefined : formatDecimal(priced.min),
        maxamount: formatDecimal(priced.max),
        floating: direction.floating === undefined ? undefined : formatFloating(direction.floating),
        delay: direction.delay === undefined ? undefined : String(direction.delay),
        param: direction.params.length === 0 ? undefined : direction.params.join(', '),
      };
      this.common.set(priced, fields);
    }
    return fields;
  }

  rateFields(priced: PricedDirection, markup: Decimal): { in: string; out: string } {
    const key = markup.toString();
    let byDirection = this.rates.get(key);
    if (!byDirection) this.rates.set(key, (byDirection = new WeakMap()));
    let fields = byDirection.get(priced);
    if (!fields) {
      const rate = markup.isZero() ? priced.rate : priced.rate.times(new Decimal(1).minus(markup));
      const published = publishedRate(rate, priced.direction.from, priced.direction.to);
      fields = { in: formatDecimal(published.in), out: formatDecimal(published.out) };
      byDirection.set(priced, fields);
    }
    return fields;
  }
}

/** The items one priced direction contributes to one export: one per city, or one without a city. */
export function exportItems(priced: PricedDirection, template: ExportTemplate, cache = new FieldCache()): ExportItem[] {
  const { from, to, cities } = priced.direction;
  const codes = { from: template.aliases[from.code] ?? from.code, to: template.aliases[to.code] ?? to.code };
  const rate = cache.rateFields(priced, template.markup);
  const common = cache.commonFields(priced);
  // Every item has every key (undefined when unset) so all items share one shape: 30,000 items build fast.
  return (cities.length > 0 ? cities : [undefined]).map((city) => ({
    from: codes.from,
    to: codes.to,
    in: rate.in,
    out: rate.out,
    amount: common.amount,
    minfee: common.minfee,
    fromfee: common.fromfee,
    tofee: common.tofee,
    minamount: common.minamount,
    maxamount: common.maxamount,
    floating: common.floating,
    delay: common.delay,
    param: common.param,
    city,
    url: template.url === undefined ? undefined : fillUrl(template.url, { ...codes, city: city ?? '' }),
  }));
}

/** Every export's items, directions in config order, cities in the order given. */
export function selectExports(priced: readonly PricedDirection[], templates: readonly ExportTemplate[]): ExportModel[] {
  const cache = new FieldCache();
  return templates.map((template) => ({
    name: template.name,
    file: template.file,
    items: priced.filter((p) => selects(template, p.direction.tags)).flatMap((p) => exportItems(p, template, cache)),
  }));
}
