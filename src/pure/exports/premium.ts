// Premium Exchanger's "rate from file" and "reserve from file" text files: a line per direction, keyed by its line
// number, in the config's order (docs/exports.md). Premium's parsers (moduls/files_course and moduls/files_reserv of
// premiumbox 2.7; test/fixtures/premium/README.md) split the file on "\n", number every line from 1, and read a rate line
// as `TITLE : GIVE = GET`, a reserve line as `TITLE = SUM`. Pure.
import { formatDecimal, roundDown } from '../../base/decimal.js';
import { RatefileError } from '../../base/errors.js';
import type { Direction, ExportTemplate } from '../../model/config.js';
import type { PremiumFormat } from '../../model/formats.js';
import type { ExportModel, PremiumLine } from '../../model/items.js';
import { selects, type ExportWalk } from './select.js';
import type { WithheldDirection } from '../../model/priced.js';

/**
 * Decimals Premium keeps of a number in either file: both parsers read it with `is_sum` at its default of 12, through a
 * double, `sprintf("%0.{n}F")` with n the decimals written, capped at 12.
 */
const places = 12;

/**
 * Whether Premium reads `text` back as exactly this number: at most `cap` decimals and 15 significant digits (what
 * every double holds, DBL_DIG), so its double and `%0.nF` give the same digits back.
 */
export function premiumReadsExactly(text: string, cap: number): boolean {
  const decimals = text.split('.')[1]?.length ?? 0;
  return decimals <= cap && text.replace(/^[-0.]+|\./g, '').length <= 15;
}

/** A direction's title in the files: the codes it is published under, `USDRUB` as Premium's guide writes them. */
function titleOf(direction: Direction, aliases: Readonly<Record<string, string>>): string {
  return `${aliases[direction.from.code] ?? direction.from.code}${aliases[direction.to.code] ?? direction.to.code}`;
}

/**
 * The lines of a Premium export: one per direction of the config the template selects, in config order, whatever
 * this build publishes, so a direction's line number never moves with another's fate. A direction not published
 * keeps its line with zeros (see `renderPremium`).
 */
export function selectPremium(
  template: ExportTemplate & { format: PremiumFormat },
  directions: readonly Direction[],
  walk: (visit: Parameters<ExportWalk>[1]) => WithheldDirection[],
): { model: ExportModel; withheld: WithheldDirection[] } {
  const cap = places;
  const published = new Map<string, Omit<PremiumLine, 'title'>>();
  const withheld = walk((p, rate) => {
    const amount = formatDecimal(roundDown(p.direction.reserve, p.direction.to.precision));
    for (const [name, value] of [
      ['rate', template.format === 'premium-rates' ? rate.in : undefined],
      ['rate', template.format === 'premium-rates' ? rate.out : undefined],
      ['reserve', template.format === 'premium-reserves' ? amount : undefined],
    ] as const) {
      if (value !== undefined && !premiumReadsExactly(value, cap))
        return {
          kind: 'format',
          reason: `${name} ${value} is not read back exactly by Premium (more than ${cap} decimals or 15 significant digits)`,
        };
    }
    published.set(p.direction.id, { in: rate.in, out: rate.out, amount });
    return undefined;
  });
  const lines: PremiumLine[] = [];
  for (const direction of directions) {
    if (!selects(template, direction.tags)) continue;
    lines.push({ title: titleOf(direction, template.aliases), ...published.get(direction.id) });
  }
  return { model: { name: template.name, file: template.file, format: template.format, items: [], lines }, withheld };
}

/**
 * A Premium file's bytes: `TITLE : IN = OUT` (rates) or `TITLE = AMOUNT` (reserves), one line each, "\n" after each.
 * A line without a rate is `TITLE : 0 = 0`: Premium skips a rate that is not above zero and keeps the rate it last read
 * (fcourse_request_cron), so the reserves file, where such a line is `TITLE = 0`, is what stops orders at that rate.
 */
export function renderPremium(model: ExportModel): Buffer {
  if (model.lines === undefined)
    throw new RatefileError(
      'E_RENDER',
      `${model.file}: cannot render: a Premium file needs every line of its template`,
    );
  const rates = model.format === 'premium-rates';
  const text = model.lines
    .map((line) => {
      if (rates) return `${line.title} : ${line.in ?? '0'} = ${line.out ?? '0'}\n`;
      return `${line.title} = ${line.amount ?? '0'}\n`;
    })
    .join('');
  return Buffer.from(text, 'utf8');
}

/** How many lines of a Premium model carry a rate (the export's items, as the report counts them). */
export function premiumItems(model: ExportModel): number {
  return model.lines?.filter((line) => line.in !== undefined).length ?? 0;
}
