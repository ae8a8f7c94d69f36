// The signed quote (`/quote`, `ratefile quote`): for one direction and amount, the rate an export publishes now for
// that amount — its tier, checked against its limits and reserve, read from the file's item, never priced anew —
// with where it comes from, until when it holds, and the canonical text the operator's key signs. Pure.
import { checkDecimalLength, Decimal, parseDecimal } from '../../base/decimal.js';
import { readItems, type ReadItem } from './items.js';

/** What is signed starts with this line: no archive record's signed text does (`ratefile-archive-v1:`). */
export const QUOTE_PREFIX = 'ratefile-quote-v1\n';

export interface QuoteRequest {
  from: string;
  to: string;
  amount: string;
  city?: string;
}

/** The export a quote reads and the record that published it. */
export interface QuoteSource {
  file: string;
  text: string;
  sha256: string;
  build: string;
  record: number;
  published: string;
  /** The export's aliases (config code → published code): a request may name either. */
  aliases?: Readonly<Record<string, string>>;
}

/** Every value a string, so no engine reads a number through a float. `signature` is added by the signer. */
export interface QuoteFields {
  v: '1';
  from: string;
  to: string;
  city?: string;
  amount: string;
  in: string;
  out: string;
  min?: string;
  max?: string;
  reserve: string;
  export: string;
  sha256: string;
  build: string;
  record: string;
  published: string;
  issuedAt: string;
  validUntil: string;
  key: string;
}

export type SignedQuote = QuoteFields & { signature: string };

export type QuoteAnswer = { fields: QuoteFields } | { status: number; refused: string };

/** The canonical text signed: the prefix, then `name=value` lines in code-point order of the names, `signature` left out. */
export function quoteMessage(fields: Readonly<Record<string, string | undefined>>): string {
  const names = Object.keys(fields)
    .filter((name) => name !== 'signature' && fields[name] !== undefined)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return QUOTE_PREFIX + names.map((name) => `${name}=${fields[name]}\n`).join('');
}

const code = /^[A-Z0-9]{1,20}$/;

/** The quote of `request` from the export as published now, or why there is none (the HTTP status and the words). */
export function quoteOf(
  request: QuoteRequest,
  source: QuoteSource,
  issuedAt: Date,
  validForMs: number,
  publicKey: string,
): QuoteAnswer {
  const bad = requestProblem(request);
  if (bad) return { status: 400, refused: bad };
  const amount = new Decimal(request.amount);
  const alias = (value: string) => source.aliases?.[value] ?? value;
  const matching = readItems(source.text).filter(
    (item) => item.from === alias(request.from) && item.to === alias(request.to),
  );
  const named = `${request.from} → ${request.to}`;
  if (matching.length === 0) return { status: 409, refused: `${named} is not published in ${source.file} now` };
  const chosen = chooseItem(matching, request.city);
  if (typeof chosen === 'string')
    return { status: chosen.startsWith('name a city') ? 400 : 409, refused: `${named}: ${chosen}` };
  const priced = rateFor(chosen, amount);
  if (typeof priced === 'string') return { status: 409, refused: `${named}: ${priced}` };
  const { fields } = chosen;
  return {
    fields: {
      v: '1',
      from: chosen.from,
      to: chosen.to,
      ...(fields.city ? { city: fields.city } : {}),
      amount: request.amount,
      in: priced.in,
      out: priced.out,
      ...(priced.min ? { min: priced.min } : {}),
      ...(priced.max ? { max: priced.max } : {}),
      reserve: fields.amount ?? '0',
      export: source.file,
      sha256: source.sha256,
      build: source.build,
      record: String(source.record),
      published: source.published,
      issuedAt: issuedAt.toISOString(),
      validUntil: new Date(issuedAt.getTime() + validForMs).toISOString(),
      key: publicKey,
    },
  };
}

function requestProblem(request: QuoteRequest): string | undefined {
  for (const name of ['from', 'to'] as const)
    if (!code.test(request[name] ?? '')) return `${name}: expected a currency code like "BTC"`;
  if (request.city !== undefined && !code.test(request.city)) return 'city: expected a city code like "MSK"';
  const amount = parseDecimal(request.amount ?? '');
  if (!amount || checkDecimalLength(request.amount) || !amount.greaterThan(0))
    return 'amount: expected a positive decimal amount of the from currency, like "0.05"';
  return undefined;
}

/** The item of the city asked (or the only one); a cash direction in several cities needs its city named. */
function chooseItem(items: readonly ReadItem[], city: string | undefined): ReadItem | string {
  if (city !== undefined)
    return items.find((item) => item.fields.city === city) ?? `not published for city ${city} now`;
  if (items.length === 1) return items[0]!;
  return `name a city (city=): ${items.map((item) => item.fields.city ?? '?').join(', ')}`;
}

/** The rate for the amount: the tier holding it (EREF 1.1 steps) or the item's, within its limits and its reserve. */
function rateFor(item: ReadItem, amount: Decimal): { in: string; out: string; min?: string; max?: string } | string {
  const { fields } = item;
  const min = fields.frommin ?? fields.minamount;
  const max = fields.frommax ?? fields.maxamount;
  if (min !== undefined && amount.lessThan(min)) return `${amount.toFixed()} is below the minimum ${min}`;
  if (max !== undefined && amount.greaterThan(max)) return `${amount.toFixed()} is above the maximum ${max}`;
  const step = item.steps.find((s) => amount.greaterThanOrEqualTo(s.frommin) && amount.lessThanOrEqualTo(s.frommax));
  if (item.steps.length > 0 && !step) return `no tier holds ${amount.toFixed()}`;
  const rate = step ?? { in: fields.in ?? '', out: fields.out ?? '' };
  if (!parseDecimal(rate.in)?.greaterThan(0) || !parseDecimal(rate.out)) return 'the export has no rate for it';
  const reserve = parseDecimal(fields.amount ?? '');
  if (reserve && amount.times(rate.out).div(rate.in).greaterThan(reserve))
    return `${amount.toFixed()} would be paid more than the reserve ${fields.amount}`;
  return { in: rate.in, out: rate.out, ...(min ? { min } : {}), ...(max ? { max } : {}) };
}
