// The text of a direction's own fields as every format prints them: fees, floating, delay, labels. Pure.
import { Decimal, formatDecimal } from '../../base/decimal.js';
import type { Direction } from '../../model/config.js';
import type { ExportItem } from '../../model/items.js';

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

/** What every export shares of a direction: its own fields and the reserve as published. */
export type CommonFields = DirectionFields & Pick<ExportItem, 'amount'>;
