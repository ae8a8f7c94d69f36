// BestChange's keyed JSON API (v2), read: the catalogues (currencies, cities, changers) and the `rates` answers,
// each checked and bounded like info.zip (src/pure/bestchange/feed.ts), then made into the same BestChangeFeed the
// compete step reads. v2 sends a rate in "give" form (units of from per 1 unit of to), so a row is `give = rate,
// get = 1`: exact, no division. Pure: parsed JSON in, model out. What v2 leaves unsaid: docs/sources.md.
import { knownCities } from '../../base/codes.js';
import { RatefileError, quoteValue } from '../../base/errors.js';
import type { FeedPair } from '../../model/config.js';
import { isRecord } from '../sources/values.js';
import { directionKey, type BestChangeFeed, type CompetitorRow, type FeedCity } from './feed.js';
import { maxFeedRows } from './zip.js';

export interface V2Currency {
  id: number;
  code: string;
}

export interface V2Catalogue {
  currencies: V2Currency[];
  /** BestChange city id → name and export code (when known by code, name or the config's `cities`). */
  cities: Map<number, FeedCity>;
  changers: Map<number, string>;
}

/** Most items a catalogue may list: BestChange has a few hundred currencies and cities and about 400 changers. */
const maxCatalogueItems = 20_000;
/** Most offers one pair may have: a busy pair has a few dozen. */
const maxOffersPerPair = 2_000;
/** Tokens per `rates` request: Premium Exchanger sends 490, iEX at most 500; no client sends more. */
export const maxTokensPerRequest = 490;
const maxNameLength = 200;
const maxCodeLength = 40;
const decimalText = /^\d{1,40}(\.\d{1,40})?$/;
const idText = /^\d{1,9}$/;

const fail = (message: string) => new RatefileError('E_SOURCE', message);

/** The list under the envelope's one key (`{"currencies": [...]}`), or a failure naming what came instead. */
function listOf(body: unknown, key: string): unknown[] {
  const list = isRecord(body) ? body[key] : undefined;
  if (!Array.isArray(list)) throw fail(`expected {"${key}": [...]}, got ${envelopeShape(body)}`);
  if (list.length > maxCatalogueItems)
    throw fail(`${key} lists ${list.length} items, more than the ${maxCatalogueItems} allowed`);
  return list;
}

function envelopeShape(body: unknown): string {
  if (Array.isArray(body)) return 'a list';
  if (!isRecord(body)) return typeof body === 'string' ? `the text ${quoteValue(body)}` : String(body);
  const keys = Object.keys(body).slice(0, 5);
  return keys.length === 0 ? 'an empty object' : `an object with ${keys.map((key) => quoteValue(key)).join(', ')}`;
}

function idOf(value: unknown, where: string): number {
  const text = typeof value === 'string' ? value : '';
  if (!idText.test(text)) throw fail(`${where}: id ${quoteValue(String(value))} is not an id`);
  return Number(text);
}

function textOf(value: unknown, where: string, limit: number): string {
  if (typeof value !== 'string' || value === '' || value.length > limit)
    throw fail(`${where}: expected a text of 1 to ${limit} characters, got ${quoteValue(String(value))}`);
  return value;
}

/** `currencies/{lang}`: id and code (the monitor code, as bm_cycodes.dat writes it) of each. */
export function parseCurrencies(body: unknown): V2Currency[] {
  return listOf(body, 'currencies').map((item, index) => {
    const where = `currencies[${index}]`;
    if (!isRecord(item)) throw fail(`${where}: expected an object`);
    return { id: idOf(item.id, where), code: textOf(item.code, `${where}.code`, maxCodeLength) };
  });
}

/** `cities/{lang}`: each city with its export code, from `code`, the config's `cities` (id or name), or its name. */
export function parseCities(body: unknown, overrides: Readonly<Record<string, string>> = {}): Map<number, FeedCity> {
  const byName = new Map([...knownCities().values()].map((city) => [city.name.toLowerCase(), city.code]));
  const known = new Set(knownCities().keys());
  const cities = new Map<number, FeedCity>();
  listOf(body, 'cities').forEach((item, index) => {
    const where = `cities[${index}]`;
    if (!isRecord(item)) throw fail(`${where}: expected an object`);
    const id = idOf(item.id, where);
    const name = textOf(item.name, `${where}.name`, maxNameLength);
    const own =
      typeof item.code === 'string' && known.has(item.code.toUpperCase()) ? item.code.toUpperCase() : undefined;
    const code = overrides[String(id)] ?? overrides[name] ?? own ?? byName.get(name.toLowerCase());
    cities.set(id, code === undefined ? { id, name } : { id, name, code });
  });
  return cities;
}

/** `changers/{lang}`: id → name. */
export function parseChangers(body: unknown): Map<number, string> {
  const changers = new Map<number, string>();
  listOf(body, 'changers').forEach((item, index) => {
    const where = `changers[${index}]`;
    if (!isRecord(item)) throw fail(`${where}: expected an object`);
    changers.set(idOf(item.id, where), textOf(item.name, `${where}.name`, maxNameLength));
  });
  return changers;
}

/** One `rates` token and the direction key its rows are filed under. */
export interface RatesToken {
  token: string;
  key: string;
}

/**
 * The tokens for the wanted pairs (`from-to`, a cash direction `from-to-city` per city), de-duplicated, and one
 * problem per pair v2 cannot be asked for (a code not in `currencies`, a city not in `cities`).
 */
export function ratesTokens(
  wanted: readonly FeedPair[],
  catalogue: V2Catalogue,
): { tokens: RatesToken[]; problems: string[] } {
  const ids = new Map(catalogue.currencies.map((currency) => [currency.code.toUpperCase(), currency.id]));
  const cityIds = new Map<string, number>();
  for (const city of catalogue.cities.values())
    if (city.code && !cityIds.has(city.code)) cityIds.set(city.code, city.id);
  const tokens = new Map<string, RatesToken>();
  const problems: string[] = [];
  for (const pair of wanted) {
    const from = ids.get(pair.from.toUpperCase());
    const to = ids.get(pair.to.toUpperCase());
    if (from === undefined || to === undefined) {
      const missing = [from === undefined ? pair.from : '', to === undefined ? pair.to : ''].filter(Boolean);
      problems.push(`${pair.from}>${pair.to}: ${missing.join(' and ')} not in the API's currencies list`);
      continue;
    }
    if (pair.cities.length === 0) {
      const token = `${from}-${to}`;
      tokens.set(token, { token, key: directionKey(pair.from, pair.to) });
    }
    for (const city of pair.cities) {
      const id = cityIds.get(city);
      if (id === undefined) {
        problems.push(
          `${pair.from}>${pair.to} in ${city}: no city of the API's cities list has this code (map it with the source's \`cities\`)`,
        );
        continue;
      }
      const token = `${from}-${to}-${id}`;
      tokens.set(token, { token, key: directionKey(pair.from, pair.to, city) });
    }
  }
  return { tokens: [...tokens.values()], problems };
}

/** Tokens in requests of at most `maxTokensPerRequest`. */
export function batches<T>(items: readonly T[], size = maxTokensPerRequest): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

/** A decimal amount of an offer: a string or a JSON number (as its text), within 40 digits each side. */
function amountOf(value: unknown, where: string, positive: boolean): string {
  const text = typeof value === 'string' ? value : '';
  if (!decimalText.test(text)) throw fail(`${where}: ${quoteValue(String(value))} is not a decimal`);
  if (positive && /^[0.]+$/.test(text)) throw fail(`${where}: ${quoteValue(text)} is not positive`);
  return text;
}

/**
 * One `rates` answer: rows per direction key for the tokens asked (a token the answer lacks has no offers).
 * `rate` and `rankrate` must be positive decimals; `reserve`, `inmin`, `inmax` decimals; a row without `rankrate`
 * ranks by its `rate`. Anything else fails the whole answer, as a broken info.zip does.
 */
export function parseRates(
  body: unknown,
  asked: readonly RatesToken[],
  changers: ReadonlyMap<number, string>,
  into: Map<string, CompetitorRow[]>,
  rowsSoFar: number,
): number {
  const rates = isRecord(body) ? body.rates : undefined;
  if (!isRecord(rates)) throw fail(`expected {"rates": {"<from>-<to>": [...], ...}}, got ${envelopeShape(body)}`);
  let rows = rowsSoFar;
  for (const { token, key } of asked) {
    const offers = rates[token];
    if (offers === undefined) continue;
    if (!Array.isArray(offers)) throw fail(`rates.${token}: expected a list of offers`);
    if (offers.length > maxOffersPerPair)
      throw fail(`rates.${token}: ${offers.length} offers, more than the ${maxOffersPerPair} allowed`);
    if ((rows += offers.length) > maxFeedRows) throw fail(`more than ${maxFeedRows} offers in all: refused`);
    const list = into.get(key) ?? [];
    offers.forEach((offer, index) => {
      const where = `rates.${token}[${index}]`;
      if (!isRecord(offer)) throw fail(`${where}: expected an object`);
      const changer = idOf(offer.changer, `${where}.changer`);
      const rate = amountOf(offer.rate, `${where}.rate`, true);
      const row: CompetitorRow = {
        exchangerId: changer,
        // A changer listed after the catalogue was read: its id stands in for the name until the next refresh.
        exchanger: changers.get(changer) ?? `#${changer}`,
        give: rate,
        get: '1',
        rankrate: offer.rankrate === undefined ? rate : amountOf(offer.rankrate, `${where}.rankrate`, true),
        reserve: amountOf(offer.reserve ?? '0', `${where}.reserve`, false),
      };
      if (offer.inmin !== undefined) row.min = amountOf(offer.inmin, `${where}.inmin`, false);
      if (offer.inmax !== undefined) row.max = amountOf(offer.inmax, `${where}.inmax`, false);
      list.push(row);
    });
    into.set(key, list);
  }
  return rows;
}

/** The feed the compete step reads, from the catalogue and the rows of every batch. */
export function v2Feed(catalogue: V2Catalogue, directions: Map<string, CompetitorRow[]>, rows: number): BestChangeFeed {
  return {
    directions,
    rows,
    // v2 has order limits and cities: read like an 11-field info.zip.
    layout: 11,
    order: 'rankrate',
    currencies: new Set(catalogue.currencies.map((currency) => currency.code)),
    exchangers: catalogue.changers,
    cities: catalogue.cities,
    unmappedCities: [],
  };
}
