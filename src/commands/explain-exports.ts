// The export part of `ratefile explain`: a direction's items as each export wrote them (classic and EREF XML, a JSON
// entry, a Premium line), and how the export's markup and rounding make its published in/out from the direction rate.
import type { BuildResult } from '../io/build/build.js';
import { parseDocument, type XmlElement } from '../pure/check/tree.js';
import { Decimal, formatDecimal } from '../base/decimal.js';
import { isPremiumFormat } from '../model/formats.js';
import type { Direction, ExportTemplate } from '../model/config.js';
import type { PricedDirection } from '../model/priced.js';
import { publishedRate, rateAtMarkup } from '../pure/pricing/published.js';
import { percent, show } from '../base/words.js';
import { inverse } from './explain-pricing.js';

const ONE = new Decimal(1);

/** A JSON export's entry of this direction, as its line in the file (json.ts writes one entry per line). */
function entryIn(text: string, codes: { from: string; to: string }): string[] {
  const { currencies } = JSON.parse(text) as { currencies: { list: Record<string, string> } };
  const number = (code: string) => Object.entries(currencies.list).find(([, listed]) => listed === code)?.[0];
  const [from, to] = [number(codes.from), number(codes.to)];
  let block: string | undefined;
  for (const line of text.split('\n')) {
    block = /^ {4}"(\w+)": \{$/.exec(line)?.[1] ?? block;
    if (block === from && line.startsWith(`        "${to}": {`)) return [line.replace(/,$/, '')];
  }
  return [];
}

/** The items of this direction in one rendered export (published codes, optionally one city), with their XML text. */
function itemsIn(
  result: BuildResult,
  template: ExportTemplate,
  direction: Direction,
  city: string | undefined,
): string[] {
  const file = result.files.find((f) => f.file === template.file);
  if (!file) return [];
  const text = file.bytes.toString('utf8');
  const codes = {
    from: template.aliases[direction.from.code] ?? direction.from.code,
    to: template.aliases[direction.to.code] ?? direction.to.code,
  };
  if (template.format === 'json') return entryIn(text, codes);
  if (isPremiumFormat(template.format)) return premiumLineIn(text, `${codes.from}${codes.to}`);
  const value = (item: XmlElement, name: string) => item.children.find((c) => c.name === name)?.text;
  return (
    (parseDocument(text).root?.children ?? [])
      .filter(
        (item) =>
          value(item, 'from') === codes.from &&
          value(item, 'to') === codes.to &&
          (city === undefined || value(item, 'city') === city),
      )
      // From the start of the item's line, so the item keeps its indentation.
      .map((item) => text.slice(text.lastIndexOf('\n', item.index) + 1, item.end))
  );
}

/** A direction's line in a Premium file, with its number (what Premium's admin maps), when it carries a rate. */
function premiumLineIn(text: string, title: string): string[] {
  const lines = text.split('\n');
  const index = lines.findIndex((line) => line.startsWith(`${title} `));
  const line = lines[index];
  if (line === undefined || / (: 0 = 0|= 0)$/.test(line)) return [];
  return [`line ${index + 1}: ${line}`];
}

export function exportLines(
  result: BuildResult,
  template: ExportTemplate,
  priced: PricedDirection,
  city: string | undefined,
): { lines: string[]; published: boolean } {
  const { direction } = priced;
  const items = itemsIn(result, template, direction, city);
  if (items.length === 0) {
    const tags = direction.tags.length > 0 ? direction.tags.join(', ') : 'none';
    const why =
      template.includeTags && !template.includeTags.some((t) => direction.tags.includes(t))
        ? `it takes only directions tagged ${template.includeTags.join(' or ')} (this one: ${tags})`
        : template.excludeTags.some((t) => direction.tags.includes(t))
          ? `it leaves out directions tagged ${template.excludeTags.join(' or ')} (this one: ${tags})`
          : 'not found in the rendered file';
    return { lines: [`${template.file}: not in this export: ${why}`], published: false };
  }
  const { from, to } = direction;
  const rate = rateAtMarkup(priced.rate, template.markup);
  const form = publishedRate(rate, from, to);
  const lines = [`${template.file}:`];
  // Said in the form the export publishes: from per to (X:1) for a rate below 1.
  const give = rate.lessThan(1);
  if (!template.markup.isZero())
    lines.push(
      give
        ? `  partner markup ${percent(template.markup)}: ${show(inverse(priced.rate))} ÷ (1 − ${formatDecimal(template.markup)}) = ${show(inverse(rate))} ${from.code} per ${to.code}`
        : `  partner markup ${percent(template.markup)}: ${show(priced.rate)} × (1 − ${formatDecimal(template.markup)}) = ${show(rate)}`,
    );
  lines.push(
    give
      ? `  under 1 ${to.code} per ${from.code}, so published from per to: out = 1, in = ${show(inverse(rate))} rounded up to ${from.ratePrecision} places (${from.code}): ${formatDecimal(form.in)}`
      : `  ${show(rate)} ≥ 1, so in = 1 and out = the rate rounded down to ${to.ratePrecision} places (${to.code}): ${formatDecimal(form.out)}`,
  );
  const effective = form.out.div(form.in);
  const below = ONE.minus(effective.div(priced.market)).times(100).toDecimalPlaces(4);
  lines.push(
    `  published ${formatDecimal(form.in)}:${formatDecimal(form.out)}, ${formatDecimal(below)}% below the market rate`,
  );
  const aliased = [from.code, to.code]
    .filter((code) => template.aliases[code] !== undefined)
    .map((code) => `${code} as ${template.aliases[code]}`);
  if (aliased.length > 0) lines.push(`  codes published under this export's aliases: ${aliased.join(', ')}`);
  for (const item of items) lines.push(...item.split('\n').map((line) => `  ${line}`));
  return { lines, published: true };
}
