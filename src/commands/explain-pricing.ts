// The pricing part of `ratefile explain`: how a priced direction's rate comes about, in order: the quotes of its chain
// and the market rate, the margin (or the compete step), the reserve and the limits, what else it publishes, its tiers.
import { competeLines } from '../pure/compete/explain.js';
import type { CompeteDetail } from '../pure/compete/price.js';
import { Decimal, formatDecimal, roundDown, roundUp } from '../base/decimal.js';
import type { Direction, ExportTemplate, Money } from '../model/config.js';
import { selects } from '../pure/exports/select.js';
import { publisherAt } from '../pure/pricing/published.js';
import type { PricedDirection } from '../model/priced.js';
import type { SoleSource } from '../pure/guards/reference.js';
import { age, percent, show } from '../base/words.js';
import type { Derivation } from '../pure/rates/derivation.js';
import { derivationLines } from '../pure/rates/explain.js';

const ONE = new Decimal(1);
/** 1 ÷ x to 34 of the 40 digits: 1 ÷ (1 ÷ x) is x again. */
export const inverse = (x: Decimal) => ONE.div(x).toSignificantDigits(34);

/**
 * The lines of a priced direction. `give`: its exports publish it as X:1 (from per to), for a rate below 1.
 * `templates`: the exports explained, to say of each tier whether one publishes it.
 */
export function pricingLines(
  priced: PricedDirection,
  at: Date,
  compete?: CompeteDetail,
  listing: readonly string[] = [],
  derivations: readonly Derivation[] = [],
  templates: readonly ExportTemplate[] = [],
  sole?: SoleSource,
): string[] {
  const give = !priced.published.rate.form.in.equals(ONE);
  return [
    ...marketLines(priced, at, give, derivations),
    ...referenceLines(priced, give, sole),
    ...(compete ? [...competeLines(compete, priced.direction), ...listing] : [marginLine(priced, give)]),
    ...reserveAndLimitLines(priced, give),
    ...alsoPublishedLines(priced.direction),
    ...tierLines(priced, templates),
  ];
}

/** Each quote of the chain and the side taken, then the market rate; or why no quote is needed. */
function marketLines(priced: PricedDirection, at: Date, give: boolean, derivations: readonly Derivation[]): string[] {
  const { direction, steps, market } = priced;
  const { from, to } = direction;
  if (steps.length === 0)
    return [`Market: ${from.code} and ${to.code} are both ${from.asset}, so the market rate is 1 (no quote needed)`];
  const lines = [
    `Quotes (chain ${direction.chain ? 'given in the config' : 'found in the quote book'}: ${steps.map((s) => s.pair).join(', ')}):`,
  ];
  let asset = from.asset;
  for (const step of steps) {
    const { quote } = step;
    const selling = quote.base === asset;
    const price = quote[step.side];
    lines.push(
      `  ${quote.pair} from ${quote.source}: bid ${priceText(quote, 'bid')}, ask ${priceText(quote, 'ask')}, ${age((at.getTime() - quote.time.getTime()) / 1000)} old (${quote.time.toISOString()})`,
    );
    // A pair of `rates:`: how it was made, term by term.
    const made = quote.ruled && derivations.find((derivation) => derivation.pair === quote.pair);
    if (made) lines.push(...derivationLines(made, derivations, at));
    lines.push(
      selling
        ? `    ${asset} → ${quote.quote}: sell ${quote.base} at the bid, × ${formatDecimal(price)}`
        : `    ${asset} → ${quote.base}: buy ${quote.base} at the ask, ÷ ${formatDecimal(price)}`,
    );
    asset = selling ? quote.quote : quote.base;
  }
  // In the direction's form: 1 BTC = 5000100 RUB for SBERRUB → BTC, as its exports publish it (X:1).
  lines.push(
    give
      ? `Market: 1 ${to.asset} = ${show(inverse(market))} ${from.asset} (at every step the side worse for the client)`
      : `Market: 1 ${from.asset} = ${show(market)} ${to.asset} (at every step the side worse for the client)`,
  );
  return lines;
}

/**
 * Where one source alone sets the market: what it was checked against, how far and the band (past it: withheld), or
 * that nothing in the config tells the same market.
 */
function referenceLines(priced: PricedDirection, give: boolean, sole: SoleSource | undefined): string[] {
  const check = priced.reference ?? sole?.reference;
  const pairs = check?.pairs ?? sole?.pairs;
  if (!pairs) return [];
  const setBy = `one source alone sets ${pairs.join(', ')}`;
  if (!check)
    return [
      `Reference: none (${setBy}, and nothing else in the config tells this market: another source of the pair, a consensus in rates: or a BestChange feed would; docs/pricing-and-guards.md)`,
    ];
  const { from, to } = priced.direction;
  const value = give
    ? `1 ${to.asset} = ${show(inverse(check.value))} ${from.asset}`
    : `1 ${from.asset} = ${show(check.value)} ${to.asset}`;
  const off = percent(check.deviation.toSignificantDigits(3));
  const past = check.deviation.greaterThan(check.band);
  return [
    `Reference (${setBy}): ${value} from ${check.from}`,
    `  the market is ${off} from it, ${past ? `PAST its band of ${percent(check.band)}: withheld (kind reference)` : `within its band of ${percent(check.band)}`}${check.unchecked ? `; nothing checks ${check.unchecked.join(', ')}` : ''}`,
  ];
}

/** A source's price as it sent it; a made one (a quotient may run to 40 digits) to 14 significant digits. */
const priceText = (quote: PricedDirection['steps'][number]['quote'], side: 'bid' | 'ask') =>
  quote.ruled ? show(quote[side]) : formatDecimal(quote[side]);

function marginLine(priced: PricedDirection, give: boolean): string {
  const { direction, market, rate } = priced;
  const { from, to } = direction;
  return give
    ? `Margin ${percent(direction.margin)} against the client: ${show(inverse(market))} ÷ (1 − ${formatDecimal(direction.margin)}) = ${show(inverse(rate))} ${from.code} per ${to.code}`
    : `Margin ${percent(direction.margin)} against the client: ${show(market)} × (1 − ${formatDecimal(direction.margin)}) = ${show(rate)} ${to.code} per ${from.code}`;
}

/** The reserve as `<amount>`, then `<minamount>` and `<maxamount>` at the rate as published. */
function reserveAndLimitLines(priced: PricedDirection, give: boolean): string[] {
  const { direction } = priced;
  const { from, to } = direction;
  const own =
    direction.reserveFormula !== undefined
      ? 'made by its reserveFormula'
      : direction.reserveSource !== undefined
        ? `read from ${direction.reserveSource}`
        : direction.reserve.equals(to.reserve)
          ? `${to.code}'s reserve`
          : 'set on the direction';
  // Limits hold at the rate as published (in:out), not the unrounded one; each export's at its own.
  const { form } = priced.published.rate;
  const { limits } = priced.published;
  const published = form.out.div(form.in);
  const amount = roundDown(direction.reserve, to.precision);
  const capacity = amount.div(published);
  return [
    `Reserve: ${formatDecimal(direction.reserve)} ${to.code} (${own}), rounded down to ${to.precision} places → <amount>${formatDecimal(amount)}</amount>`,
    ...(direction.reserveMade ?? []).map((step) => `  ${step}`),
    `Limits, in ${from.code} at the published rate ${formatDecimal(form.in)}:${formatDecimal(form.out)} (${from.precision} places; minimum rounded up, maximum down; an export with a markup at its own rate):`,
    direction.min && limits.min !== undefined
      ? `  min ${describeLimit(direction.min, direction, published)} → <minamount>${formatDecimal(limits.min)}</minamount>`
      : '  min: none set, so no <minamount>',
    give
      ? `  the <amount> pays at most ${formatDecimal(amount)} × ${formatDecimal(form.in)} = ${show(capacity)} ${from.code}`
      : `  the <amount> pays at most ${formatDecimal(amount)} ÷ ${show(published)} = ${show(capacity)} ${from.code}`,
    direction.max
      ? `  max ${describeLimit(direction.max, direction, published)}; the smaller of the two → <maxamount>${formatDecimal(limits.max)}</maxamount>`
      : `  max: none set, so the reserve's → <maxamount>${formatDecimal(limits.max)}</maxamount>`,
  ];
}

function describeLimit(limit: Money, direction: Direction, rate: Decimal): string {
  const given = `${formatDecimal(limit.value)} ${limit.asset}`;
  if (limit.asset === direction.from.asset)
    return direction.from.code === limit.asset
      ? `${given}, in the from currency`
      : `${given}, the from currency's asset: ${formatDecimal(limit.value)} ${direction.from.code}`;
  if (limit.asset === direction.to.asset)
    return rate.lessThan(1)
      ? `${given} × the published rate ${show(inverse(rate))} ${direction.from.code} per ${direction.to.code} = ${show(limit.value.div(rate))} ${direction.from.code}`
      : `${given} ÷ the published rate ${show(rate)} = ${show(limit.value.div(rate))} ${direction.from.code}`;
  return `${given}, converted to ${direction.from.asset} through the quotes`;
}

/** The labels, fees and other fields the direction publishes besides its rate, on one line when there are any. */
function alsoPublishedLines(direction: Direction): string[] {
  const extras = [
    direction.params.length > 0 ? `labels ${direction.params.join(', ')}` : undefined,
    direction.fromfee ? `fromfee ${direction.fromfee}` : undefined,
    direction.tofee ? `tofee ${direction.tofee}` : undefined,
    direction.minfee ? `minfee ${direction.minfee}` : undefined,
    direction.floating !== undefined ? `floating ${direction.floating}` : undefined,
    direction.delay !== undefined ? `delay ${direction.delay} min` : undefined,
    direction.cities.length > 0 ? `cities ${direction.cities.join(', ')}` : undefined,
  ].filter((part) => part !== undefined);
  // Labels and the switch from the back office (`switchesFrom:`): where they came from this build.
  const switched = direction.switched ?? [];
  return [...(extras.length > 0 ? [`Also published: ${extras.join('; ')}`] : []), ...switched];
}

function tierLines(priced: PricedDirection, templates: readonly ExportTemplate[]): string[] {
  const { direction, tierRates } = priced;
  if (!direction.tiers || !tierRates) return [];
  const { from, to } = direction;
  const unpublished = templates.length > 0 ? unpublishedTier(priced, templates) : () => undefined;
  return [
    'Tiers (EREF 1.1 <step>s; every format lists the first, and its range ends below a tier worse for the client):',
    ...direction.tiers.map((tier, i) => {
      const why = unpublished(roundUp(tier.from, from.precision));
      return `  from ${formatDecimal(tier.from)} ${from.code}: margin ${percent(tier.margin)} → ${show(tierRates[i]!)} ${to.code} per ${from.code}${why ? `: NOT PUBLISHED, ${why}` : ''}`;
    }),
  ];
}

/**
 * Why no export of `templates` publishes the tier starting at `start` (the publications the exports make, at their
 * markups), or undefined when an EREF 1.1 export lists it as a <step>.
 */
function unpublishedTier(
  priced: PricedDirection,
  templates: readonly ExportTemplate[],
): (start: Decimal) => string | undefined {
  const selecting = templates.filter((template) => selects(template, priced.direction.tags));
  const made = selecting.map((template) => ({ template, published: publisherAt(template.markup)(priced) }));
  const publications = made.flatMap(({ template, published }) =>
    'reason' in published ? [] : [{ template, published }],
  );
  const code = priced.direction.from.code;
  const widest = publications.reduce<Decimal | undefined>(
    (max, { published }) => (max === undefined || published.limits.max.greaterThan(max) ? published.limits.max : max),
    undefined,
  );
  return (start) => {
    const stepped = publications.some(
      ({ template, published }) =>
        template.format === 'eref-1.1' && (published.steps ?? []).some((step) => step.min.equals(start)),
    );
    if (stepped) return undefined;
    if (widest === undefined) return 'no export publishes this direction';
    if (start.greaterThan(widest))
      return `beyond the range any export publishes (orders up to ${formatDecimal(widest)} ${code}: the reserve or the maximum)`;
    if (!publications.some(({ template }) => template.format === 'eref-1.1'))
      return 'no EREF 1.1 export carries the direction (the other formats list only the first rate)';
    return 'the range ends below it (a rate worse for the client than the listed one, or one the reserve cannot pay from its first amount)';
  };
}
