// BestChange's public feed (info.zip): unzip, decode windows-1251, parse into competitor rows per direction,
// and rank a direction's competitors by what the client gets per unit given. Pure: bytes in, model out.
import { unzipSync } from 'fflate';
import { compact, Decimal } from '../decimal.js';
import { RatefileError, quoteValue } from '../errors.js';
import { knownCities } from '../codes.js';
import { ownString } from '../own-string.js';

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

const required = ['bm_rates.dat', 'bm_cycodes.dat', 'bm_exch.dat'] as const;
const wanted = new Set<string>([...required, 'bm_cities.dat', 'bm_info.dat']);
/**
 * The most rows a feed may have. The real dump of March 2021 has 202,690 and raises a process's RSS by about
 * 75 MB while it is parsed (rows are objects with decimal text); 300,000 such rows stay near the ~100 MB a
 * feed may cost. A feed with more is refused before it is parsed, so one absurd feed cannot take the service's memory.
 */
export const maxFeedRows = 300_000;
/** Unpacked bm_rates.dat: the real one is 8.2 MB (about 40 bytes a row); 24 MB holds 300,000 long 11-field rows. */
export const maxRatesBytes = 24 * 1024 * 1024;
/** Every other file read: the real bm_exch.dat is 10 KB, bm_cycodes.dat 2 KB. */
const maxOtherBytes = 1024 * 1024;
/** A bm_rates.dat line: the real ones have at most 51 characters; a longer one is not a row. */
export const maxLineLength = 256;
const decimalText = /^\d{1,40}(\.\d{1,40})?$/;
const idText = /^\d{1,9}$/;

const fail = (message: string) => new RatefileError('E_SOURCE', message);

/** Unpacks the files read, each checked against its size limit by the zip's directory before it is inflated. */
function unzip(bytes: Uint8Array): Record<string, Uint8Array> {
  try {
    return unzipSync(bytes, {
      filter: (file) => {
        if (!wanted.has(file.name)) return false;
        const limit = file.name === 'bm_rates.dat' ? maxRatesBytes : maxOtherBytes;
        // fflate inflates into a buffer of originalSize and no larger, so a directory that lies cannot get past this.
        const size = Math.max(file.size, file.originalSize);
        if (size > limit)
          throw fail(`${file.name} unpacks to ${size} bytes, more than the ${limit} allowed: refused before unpacking`);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof RatefileError) throw error;
    throw fail(`not a readable zip (${(error as Error).message}; truncated?)`);
  }
}

/** Refuses a bm_rates.dat with more lines than `maxFeedRows`, counted in the bytes before anything is decoded. */
function checkLineCount(bytes: Uint8Array): void {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let lines = bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? 1 : 0;
  for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) {
    if (++lines > maxFeedRows)
      throw fail(
        `bm_rates.dat has more than ${maxFeedRows} lines (the real feed has about 200,000 rows): refused before parsing`,
      );
  }
}

const cp1251 = new TextDecoder('windows-1251');

/** windows-1251 text. Plain ASCII (all of bm_rates.dat in practice) is the same in latin1, which Node decodes natively. */
function decode(bytes: Uint8Array): string {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return cp1251.decode(bytes);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** Lines of a file with their 1-based numbers; the last line may lack its newline, CRLF is accepted. */
function* lines(text: string): Generator<[string, number]> {
  let start = 0;
  let number = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    number++;
    const line = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    if (line !== '') yield [line, number];
    start = end + 1;
  }
}

function idOf(text: string | undefined, file: string, line: number, what: string): number {
  if (text === undefined || !idText.test(text))
    throw fail(`${file} line ${line}: ${what} ${quoteValue(text ?? '')} is not an id`);
  return Number(text);
}

function amountOf(text: string | undefined, file: string, line: number, what: string): string {
  if (text === undefined || !decimalText.test(text))
    throw fail(`${file} line ${line}: ${what} ${quoteValue(text ?? '')} is not a decimal`);
  return text;
}

// About 40,000 of the real feed's 600,000 amounts are long enough to be views of bm_rates.dat's 8 MB text: each is
// made a string of its own (`ownString`), or one would keep the whole text as long as the feed is kept.
const own = ownString;

function readPairs(text: string, file: string): Map<number, string> {
  const map = new Map<number, string>();
  for (const [line, number] of lines(text)) {
    const cut = line.indexOf(';');
    const id = idOf(cut === -1 ? line : line.slice(0, cut), file, number, 'id');
    // bm_exch.dat has more fields after the name; the name itself never holds ';'.
    const rest = cut === -1 ? '' : line.slice(cut + 1);
    const value = rest.split(';', 1)[0] ?? '';
    if (value === '') throw fail(`${file} line ${number}: no name after the id`);
    map.set(id, value);
  }
  return map;
}

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

  const directions = new Map<string, CompetitorRow[]>();
  const unmapped = new Map<number, string>();
  let layout: 8 | 11 | undefined;
  let rows = 0;
  const file = 'bm_rates.dat';
  const fields: string[] = [];
  const rates = text(file) ?? '';
  // The unpacked bytes are not needed once decoded: freed before the rows are made.
  delete files[file];
  let number = 0;
  for (let at = 0; at < rates.length; ) {
    // Fields by indexOf straight from the file's text into one reused array: no line strings, no split();
    // 200k rows × 11 fields through split() cost twice the time and memory.
    let end = rates.indexOf('\n', at);
    if (end === -1) end = rates.length;
    const next = end + 1;
    if (rates.charCodeAt(end - 1) === 13) end--;
    number++;
    if (end <= at) {
      at = next;
      continue;
    }
    if (end - at > maxLineLength) throw fail(`${file} line ${number}: longer than ${maxLineLength} characters`);
    fields.length = 0;
    for (let start = at; ; ) {
      const cut = rates.indexOf(';', start);
      if (cut === -1 || cut >= end || fields.length === 11) {
        fields.push(rates.slice(start, end));
        break;
      }
      fields.push(rates.slice(start, cut));
      start = cut + 1;
    }
    at = next;
    const count = fields.length === 12 ? 'more than 11' : fields.length;
    if (fields.length !== 8 && fields.length !== 11)
      throw fail(`${file} line ${number}: expected 8 or 11 fields, got ${count}`);
    layout ??= fields.length;
    if (fields.length !== layout)
      throw fail(`${file} line ${number}: ${fields.length} fields where earlier rows have ${layout}`);
    const [fromId, toId, exchangerId, give, get, reserve] = fields;
    const from = codes.get(idOf(fromId, file, number, 'from currency id'));
    const to = codes.get(idOf(toId, file, number, 'to currency id'));
    if (from === undefined || to === undefined)
      throw fail(`${file} line ${number}: currency id ${from === undefined ? fromId : toId} is not in bm_cycodes.dat`);
    const exchangerNumber = idOf(exchangerId, file, number, 'exchanger id');
    const exchanger = exchangers.get(exchangerNumber);
    if (exchanger === undefined)
      throw fail(`${file} line ${number}: exchanger id ${exchangerId} is not in bm_exch.dat`);
    const gives = own(amountOf(give, file, number, 'give'));
    const gets = own(amountOf(get, file, number, 'get'));
    const reserves = own(amountOf(reserve, file, number, 'reserve'));
    // Every field in one literal: a field added afterwards would give each of a feed's rows a second block for it.
    const row: CompetitorRow =
      layout === 11
        ? {
            exchangerId: exchangerNumber,
            exchanger,
            give: gives,
            get: gets,
            reserve: reserves,
            min: own(amountOf(fields[8], file, number, 'min')),
            max: own(amountOf(fields[9], file, number, 'max')),
          }
        : { exchangerId: exchangerNumber, exchanger, give: gives, get: gets, reserve: reserves };
    let city: string | undefined;
    if (layout === 11) {
      const cityId = idOf(fields[10], file, number, 'city id');
      if (cityId !== 0) {
        const known = cities.get(cityId);
        city = known?.code ?? `#${cityId}`;
        if (known?.code === undefined) unmapped.set(cityId, known?.name ?? '(not in bm_cities.dat)');
      }
    }
    const key = directionKey(from, to, city);
    const list = directions.get(key);
    if (list) list.push(row);
    else directions.set(key, [row]);
    rows++;
  }
  if (layout === undefined) throw fail(`${file} has no rows`);
  return {
    directions,
    rows,
    layout,
    currencies: new Set(codes.values()),
    exchangers,
    cities,
    unmappedCities: [...unmapped].map(([id, name]) => `${id} ${name}`),
    ...(lastUpdate ? { lastUpdate } : {}),
  };
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
