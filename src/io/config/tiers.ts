// `tiers:` on a direction: from an order amount (in the from currency) on, another margin. Checked across fields here.
import { Decimal, percentToFraction } from '../../base/decimal.js';
import { quoteValue } from '../../base/errors.js';
import type { Problem } from '../../base/config/problems.js';

export interface TierInput {
  from: string;
  margin: string;
}

/** A tier's `from` as text (a YAML number is read as its decimal text, as the schema does); undefined when it is neither. */
function fromText(tier: unknown): string | undefined {
  const from = typeof tier === 'object' && tier !== null ? (tier as { from?: unknown }).from : undefined;
  if (typeof from === 'number' && Number.isFinite(from) && !/e/i.test(String(from))) return String(from);
  return typeof from === 'string' ? from : undefined;
}

/**
 * A direction's tiers: amounts ascending and above 0, each in the asset of its from currencies (a bare number is in
 * the from currency). Margins may go either way; a tier worse for the client than the direction's own margin is a
 * warning, since the published range then ends below it (the monitors' one rate must hold for every amount listed).
 */
export function checkTiers(
  tiers: unknown,
  path: (string | number)[],
  fromAssets: readonly (string | undefined)[],
  margin: unknown,
  /** The asset a unit stands for: a configured currency's, else the unit itself. */
  assetOfUnit: (unit: string) => string,
): { problems: Problem[]; warnings: Problem[] } {
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  if (!Array.isArray(tiers)) return { problems, warnings };
  let previous: Decimal | undefined;
  tiers.forEach((tier, index) => {
    const from = fromText(tier);
    if (from === undefined || !/^\d+(\.\d+)?( [A-Z][A-Z0-9]*)?$/.test(from)) return;
    const at = [...path, 'tiers', index, 'from'];
    const [value = '0', unit] = from.split(' ');
    const amount = new Decimal(value);
    if (unit !== undefined && fromAssets.some((asset) => asset !== undefined && asset !== assetOfUnit(unit))) {
      problems.push({
        path: at,
        message: `expected an amount of the from currency (${[...new Set(fromAssets)].join(', ')}) or a plain number, got ${quoteValue(from)}`,
      });
    }
    if (amount.isZero())
      problems.push({
        path: at,
        message: "expected an amount above 0: the direction's own margin applies from its minimum",
      });
    else if (previous !== undefined && !amount.greaterThan(previous))
      problems.push({
        path: at,
        message: `expected amounts in ascending order, got ${quoteValue(from)} after ${previous.toFixed()}`,
      });
    previous = amount;
    const own = (tier as { margin?: unknown }).margin;
    if (
      typeof margin === 'string' &&
      typeof own === 'string' &&
      /^-?\d+(\.\d+)?\s?%$/.test(margin) &&
      /^-?\d+(\.\d+)?\s?%$/.test(own)
    ) {
      if (percentToFraction(own).greaterThan(percentToFraction(margin))) {
        warnings.push({
          path: [...path, 'tiers', index, 'margin'],
          message: `${own} is worse for the client than the direction's ${margin}: the published range ends below ${from} while this tier's rate is worse than the listed one`,
        });
      }
    }
  });
  return { problems, warnings };
}

/** The tiers of a direction as amounts of its from asset and margins as fractions. */
export function toTiers(tiers: readonly TierInput[]): { from: Decimal; margin: Decimal }[] {
  return tiers.map((tier) => ({ from: new Decimal(tier.from.split(' ')[0]!), margin: percentToFraction(tier.margin) }));
}
