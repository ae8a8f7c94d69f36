// What EREF 1.1 and JSON cannot say that the classic format can: a direction needing it is left out of that export only.
import { jsonRate, jsonNumberHolds } from './json.js';
import type { ExportFormat } from '../../model/formats.js';

/** The item fields a refusal depends on, as the classic format writes them. */
export interface RefusalInput {
  in: string;
  out: string;
  minamount?: string | undefined;
  maxamount?: string | undefined;
  minfee?: string | undefined;
  fromfee?: string | undefined;
  tofee?: string | undefined;
}

/** A fee with a currency unit (`2 USD`): both formats take a plain number in the side's currency or a percentage. */
const feeWithUnit = /\s[A-Z][A-Z0-9]*$/;
const feeInUnit = /^(\S+) ([A-Z][A-Z0-9]*)$/;

/**
 * A fee as EREF 1.1 and JSON can write it for its side's currency: `4 USDT` on USDTERC20 (priced as USDT) or
 * `4 USDTERC20` is 4 of that currency, the plain number the formats take; any other fee as it is.
 */
export function sideFee(fee: string, side: { code: string; asset: string }): string {
  const match = feeInUnit.exec(fee);
  return match !== null && (match[2] === side.code || match[2] === side.asset) ? match[1]! : fee;
}

/**
 * Why a direction cannot be written in `format`, or undefined; its fees as `sideFee` gives them. Dropping a fee or a
 * minimum fee would publish a better deal than the real one, so such a direction is withheld from that export instead.
 */
export function formatRefusal(format: Exclude<ExportFormat, 'classic'>, item: RefusalInput): string | undefined {
  if (item.minfee !== undefined) return `minfee ${item.minfee} has no element in ${format}`;
  for (const name of ['fromfee', 'tofee'] as const) {
    const fee = item[name];
    if (fee !== undefined && feeWithUnit.test(fee))
      return `${name} ${fee} names a currency; ${format} takes a plain number in the ${name === 'fromfee' ? 'from' : 'to'} currency or a percentage`;
  }
  if (format !== 'json') return undefined;
  const rate = jsonRate(item.in, item.out);
  // JSON readers hold numbers as doubles: a value a double does not hold exactly would be read as another.
  const feeNumber = (fee: string | undefined) => fee?.replace(' %', '');
  for (const [name, value] of [
    ['rate', rate],
    ['min', item.minamount],
    ['max', item.maxamount],
    ['fromfee', feeNumber(item.fromfee)],
    ['tofee', feeNumber(item.tofee)],
  ] as const) {
    if (value !== undefined && !jsonNumberHolds(value))
      return `${name} ${value} cannot be read back exactly from JSON (more digits than a double holds)`;
  }
  return undefined;
}
