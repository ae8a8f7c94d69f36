// BestChange's public feed (info.zip): unzip, decode windows-1251, parse into competitor rows per direction,
// and rank a direction's competitors by what the client gets per unit given. Pure: bytes in, model out.
import { compact, Decimal } from '../../base/decimal.js';
import { quoteValue } from '../../base/errors.js';
import { knownCities } from '../../base/codes.js';
import { ownString } from '../../base/own-string.js';
import { checkLineCount, decode, fail, idOf, readPairs, required, unzip } from './zip.js';

// The feed's limits are defined with the zip's reading; named here too, where tests and docs look for them.
export { maxFeedRows, maxRatesBytes } from './zip.js';

/** One exchanger's rate in one direction: a client gives `give` units of from and gets `get` units of to. */
export interface CompetitorRow {
  exchangerId: number;
  /** Shared with every row of the exchanger (one string per exchanger, not per row). */
  exchanger: string;
  /** Decimal text as the feed has it: rates are compared in Decimal, never as JS numbers. */
  give: string;
  get: string;
  /** Reserve of the to currency. */
  reserve: string;
  /** Amount limits, 11-field layout only. */
  min?: string;
  max?: string;
  /** API v2 only: BestChange's rate with the exchanger's fees at $300, in v2's give form (from per 1 to). */
  rankrate?: string;
  /** In a view ranked by rankrate (give = rankrate, get = 1): the row's own rate as `give:get`. */
  bare?: string;
}

export interface FeedCity {
  id: number;
  name: string;
  /** The export city code (CASH directions' `city`), when known by name or from the config's `cities`. */
  code?: string;
}

export interface BestChangeFeed {
  /** Rows by direction key (`directionKey`); a cash direction's rows are under its city code. */
  directions: ReadonlyMap<string, readonly CompetitorRow[]>;
  rows: number;
  /** Fields per bm_rates.dat row: 8 (format 2.01) or 11 (2.02 and later: min, max, city). */
  layout: 8 | 11;
  /** How BestChange ranks the rows: `rankrate` (API v2); absent: by the bare rate (info.zip has no rankrate). */
  order?: 'rankrate';
  /** Export codes of bm_cycodes.dat (for `check`). */
  currencies: ReadonlySet<string>;
  exchangers: ReadonlyMap<number, string>;
  cities: ReadonlyMap<number, FeedCity>;
  /** Cities that rows use but no export code was found for: "id name"; their rows are under `#<id>`. */
  unmappedCities: string[];
  /** bm_info.dat `last_update=…` as written (Moscow time, no year). */
  lastUpdate?: string;
}

export interface ParseOptions {
  /** Config override: BestChange city id or name → export city code. */
  cities?: Readonly<Record<string, string>>;
}

/** Where a direction's rows are: `FROM>TO`, or `FROM>TO@CITY` for a cash direction. */
export const directionKey = (from: string, to: string, city?: string) =>
  city === undefined ? `${from}>${to}` : `${from}>${to}@${city}`;

/** A bm_rates.dat line: the real ones have at most 51 characters; a longer one is not a row. */
export const maxLineLength = 256;
const decimalText = /^\d{1,40}(\.\d{1,40})?$/;

function amountOf(text: string | undefined, file: string, line: number, what: string): string {
  if (text === undefined || !decimalText.test(text))
    throw fail(`${file} line ${line}: ${what} ${quoteValue(text ?? '')} is not a decimal`);
  return text;
}

// About 40,000 of the real feed's 600,000 amounts are long enough to be views of bm_rates.dat's 8 MB text: each is
// made a string of its own (`ownString`), or one would keep the whole text as long as the feed is kept.
const own = ownString;

function cityCodes(names: Map<number, string>, overrides: Readonly<Record<string, string>>): Map<number, FeedCity> {
  const byName = new Map([...knownCities().values()].map((city) => [city.name.toLowerCase(), city.code]));
  const cities = new Map<number, FeedCity>();
  for (const [id, name] of names) {
    const code = overrides[String(id)] ?? overrides[name] ?? byName.get(name.toLowerCase());
    cities.set(id, code === undefined ? { id, name } : { id, name, code });
  }
  return cities;
}

/** Parse info.zip. Throws RatefileError(E_SOURCE) naming the file and line of anything it cannot read. */
export function parseFeed(bytes: Uint8Array, options: ParseOptions = {}): BestChangeFeed {
  const files = unzip(bytes);
  for (const name of required) if (!files[name]) throw fail(`${name} is missing from the zip`);
  checkLineCount(files['bm_rates.dat']!);
  const text = (name: string) => {
    const file = files[name];
    return file ? decode(file) : undefined;
  };
  const codes = readPairs(text('bm_cycodes.dat') ?? '', 'bm_cycodes.dat');
  const exchangers = readPairs(text('bm_exch.dat') ?? '', 'bm_exch.dat');
  const citiesText = text('bm_cities.dat');
  const cities = cityCodes(
    citiesText === undefined ? new Map() : readPairs(citiesText, 'bm_cities.dat'),
    options.cities ?? {},
  );
  const lastUpdate = /^last_update=(.*)$/m.exec(text('bm_info.dat') ?? '')?.[1]?.trim();
  const rates = text(ratesFile) ?? '';
  // The unpacked bytes are not needed once decoded: freed before the rows are made.
  delete files[ratesFile];
  const read = readRates(rates, { codes, exchangers, cities });
  if (read.layout === undefined) throw fail(`${ratesFile} has no rows`);
  return {
    directions: read.directions,
    rows: read.rows,
    layout: read.layout,
    currencies: new Set(codes.values()),
    exchangers,
    cities,
    unmappedCities: [...read.unmapped].map(([id, name]) => `${id} ${name}`),
    ...(lastUpdate ? { lastUpdate } : {}),
  };
}

const ratesFile = 'bm_rates.dat';

/** The lists a rate row's ids are read through. */
interface Lists {
  readonly codes: ReadonlyMap<number, string>;
  readonly exchangers: ReadonlyMap<number, string>;
  readonly cities: ReadonlyMap<number, FeedCity>;
}

/** The rows of bm_rates.dat as they are read: one object for the whole file, so a row costs no more than itself. */
interface RatesRead {
  readonly directions: Map<string, CompetitorRow[]>;
  /** City ids with no code, and their names. */
  readonly unmapped: Map<number, string>;
  /** 8 or 11 fields, as the first row has; every row has the same. */
  layout: 8 | 11 | undefined;
  rows: number;
}

function readRates(rates: string, lists: Lists): RatesRead {
  const read: RatesRead = { directions: new Map(), unmapped: new Map(), layout: undefined, rows: 0 };
  // Fields by indexOf straight from the file's text into one reused array: no line strings, no split();
  // 200k rows × 11 fields through split() cost twice the time and memory.
  const fields: string[] = [];
  let number = 0;
  for (let at = 0; at < rates.length; ) {
    let end = rates.indexOf('\n', at);
    if (end === -1) end = rates.length;
    const next = end + 1;
    if (rates.charCodeAt(end - 1) === 13) end--;
    number++;
    if (end > at) {
      if (end - at > maxLineLength) throw fail(`${ratesFile} line ${number}: longer than ${maxLineLength} characters`);
      splitFields(rates, at, end, fields);
      addRow(read, lists, fields, number);
    }
    at = next;
  }
  return read;
}

/** The `;`-separated fields of `text` from `at` to `end` into `fields`; a 12th field holds the rest of the line. */
function splitFields(text: string, at: number, end: number, fields: string[]): void {
  fields.length = 0;
  for (let start = at; ; ) {
    const cut = text.indexOf(';', start);
    if (cut === -1 || cut >= end || fields.length === 11) {
      fields.push(text.slice(start, end));
      return;
    }
    fields.push(text.slice(start, cut));
    start = cut + 1;
  }
}

/** One row of bm_rates.dat: its layout checked, its ids looked up, filed under its direction (and city). */
function addRow(read: RatesRead, lists: Lists, fields: readonly string[], number: number): void {
  const layout = layoutOf(read, fields.length, number);
  const fromId = fields[0];
  const toId = fields[1];
  const from = lists.codes.get(idOf(fromId, ratesFile, number, 'from currency id'));
  const to = lists.codes.get(idOf(toId, ratesFile, number, 'to currency id'));
  if (from === undefined || to === undefined)
    throw fail(
      `${ratesFile} line ${number}: currency id ${from === undefined ? fromId : toId} is not in bm_cycodes.dat`,
    );
  const row = rowOf(fields, layout, lists.exchangers, number);
  const city = layout === 11 ? cityOf(fields[10], lists.cities, read.unmapped, number) : undefined;
  const key = directionKey(from, to, city);
  const list = read.directions.get(key);
  if (list) list.push(row);
  else read.directions.set(key, [row]);
  read.rows++;
}

/** 8 or 11 fields, the same in every row: the first row's count is the file's. */
function layoutOf(read: RatesRead, count: number, number: number): 8 | 11 {
  if (count !== 8 && count !== 11)
    throw fail(`${ratesFile} line ${number}: expected 8 or 11 fields, got ${count === 12 ? 'more than 11' : count}`);
  read.layout ??= count;
  if (count !== read.layout)
    throw fail(`${ratesFile} line ${number}: ${count} fields where earlier rows have ${read.layout}`);
  return read.layout;
}

/** The exchanger and its amounts (give, get, reserve; with 11 fields min and max). */
function rowOf(
  fields: readonly string[],
  layout: 8 | 11,
  exchangers: ReadonlyMap<number, string>,
  number: number,
): CompetitorRow {
  const exchangerId = fields[2];
  const exchangerNumber = idOf(exchangerId, ratesFile, number, 'exchanger id');
  const exchanger = exchangers.get(exchangerNumber);
  if (exchanger === undefined)
    throw fail(`${ratesFile} line ${number}: exchanger id ${exchangerId} is not in bm_exch.dat`);
  const give = own(amountOf(fields[3], ratesFile, number, 'give'));
  const get = own(amountOf(fields[4], ratesFile, number, 'get'));
  const reserve = own(amountOf(fields[5], ratesFile, number, 'reserve'));
  // Every field in one literal: a field added afterwards would give each of a feed's rows a second block for it.
  return layout === 11
    ? {
        exchangerId: exchangerNumber,
        exchanger,
        give,
        get,
        reserve,
        min: own(amountOf(fields[8], ratesFile, number, 'min')),
        max: own(amountOf(fields[9], ratesFile, number, 'max')),
      }
    : { exchangerId: exchangerNumber, exchanger, give, get, reserve };
}

/** A row's city: its code, `#id` for one without (noted in `unmapped`), none for id 0 (every city). */
function cityOf(
  text: string | undefined,
  cities: ReadonlyMap<number, FeedCity>,
  unmapped: Map<number, string>,
  number: number,
): string | undefined {
  const cityId = idOf(text, ratesFile, number, 'city id');
  if (cityId === 0) return undefined;
  const known = cities.get(cityId);
  if (known?.code === undefined) unmapped.set(cityId, known?.name ?? '(not in bm_cities.dat)');
  return known?.code ?? `#${cityId}`;
}

export interface RankedCompetitor {
  row: CompetitorRow;
  /** What the client gets per unit given: get / give. */
  rate: Decimal;
}

/** A direction's competitors, best for the client first (most `get` per unit `give`); ties keep feed order. */
export function competitors(feed: BestChangeFeed, from: string, to: string, city?: string): RankedCompetitor[] {
  const rows = feed.directions.get(directionKey(from, to, city)) ?? [];
  const ranked: RankedCompetitor[] = [];
  for (const row of rows) {
    const give = new Decimal(row.give);
    // A zero give is no offer (and no rate); the feed has none, but a row like it must not rank first.
    if (give.isZero()) continue;
    // Kept with the feed for its refresh interval (see compete/field.ts): a compact copy.
    ranked.push({ row, rate: compact(new Decimal(row.get).dividedBy(give)) });
  }
  return ranked.sort((a, b) => b.rate.comparedTo(a.rate));
}
