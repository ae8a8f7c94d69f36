// A reserve shaped before pricing: made by a formula over back-office entries (never below 0), capped at an amount
// or a share of what is there, and the margin that goes with it (`reserveMargins`). Exact decimals, each step in
// words for `explain`. Pure.
import { Decimal, formatDecimal, roundDown } from '../../base/decimal.js';
import { formulaText } from '../../base/config/formula.js';
import { percent } from '../../base/words.js';
import type { Direction } from '../../model/config.js';
import type { ReserveBook } from '../../model/reserve-source.js';
import { evaluateAmount } from '../rates/evaluate.js';
import { checkEntry } from './entry.js';

/** A shaped reserve: the amount, the margin at it, and how each came about; or why the direction is withheld. */
export type Shaped =
  | { reserve: Decimal; margin: Decimal; words: string[] }
  | { kind: 'reserve' | 'paused'; reason: string };

/** The reserve a formula over back-office entries makes, or why it cannot be made (a paused entry pauses). */
export function formulaReserve(
  direction: Direction,
  book: ReserveBook,
): { reserve: Decimal; words: string[] } | Extract<Shaped, { kind: string }> {
  const formula = direction.reserveFormula!;
  const read: string[] = [];
  let paused: string | undefined;
  const value = evaluateAmount(formula.node, (ref) => {
    const reading = book.get(ref.source);
    if (!reading) return { why: `${ref.source}: not read` };
    if ('error' in reading) return { why: reading.error };
    const entry = checkEntry(ref.key, reading.entries.get(ref.key));
    if (typeof entry === 'string') return { why: `${ref.source}: ${entry}` };
    if (!entry.enabled) paused ??= `switched off by ${ref.source} (${ref.key} enabled: false)`;
    read.push(`${ref.source}:${ref.key} ${formatDecimal(entry.reserve)}`);
    return entry.reserve;
  });
  if (paused !== undefined) return { kind: 'paused', reason: paused };
  if ('why' in value)
    return { kind: 'reserve', reason: `reserve of ${direction.to.code} by ${formula.text}: ${value.why}` };
  const reserve = Decimal.max(value, 0);
  const clamped = value.isNegative() ? ' (below 0: none)' : '';
  return {
    reserve,
    words: [`formula ${formulaText(formula.node)}: ${read.join(', ')} → ${formatDecimal(value)}${clamped}`],
  };
}

/** The cap and the margin by reserve, applied to a reserve that is there (configured, read or made). */
export function shapeReserve(direction: Direction, reserve: Decimal, words: readonly string[]): Shaped {
  const { to } = direction;
  const steps = [...words];
  let shown = reserve;
  const cap = direction.reserveCap;
  if (cap && 'amount' in cap && shown.greaterThan(cap.amount)) {
    steps.push(`capped at ${formatDecimal(cap.amount)} ${to.code}`);
    shown = cap.amount;
  } else if (cap && 'share' in cap) {
    shown = roundDown(shown.times(cap.share), to.precision);
    steps.push(`${percent(cap.share)} of it shown: ${formatDecimal(shown)} ${to.code}`);
  }
  return { reserve: shown, ...marginAt(direction, roundDown(shown, to.precision), steps) };
}

/** The margin of the highest `reserveMargins` step the published reserve reaches; below them all, the direction's. */
function marginAt(direction: Direction, published: Decimal, steps: string[]): { margin: Decimal; words: string[] } {
  const margins = direction.reserveMargins;
  if (!margins) return { margin: direction.margin, words: steps };
  const step = margins.findLast((candidate) => published.greaterThanOrEqualTo(candidate.from));
  const margin = step ? step.margin : direction.margin;
  const why = step
    ? `reserve ${formatDecimal(published)} ≥ ${formatDecimal(step.from)}: margin ${percent(margin)}`
    : `reserve ${formatDecimal(published)} below ${formatDecimal(margins[0]!.from)}: the direction's margin ${percent(margin)}`;
  return { margin, words: [...steps, why] };
}
