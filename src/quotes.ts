// fetchQuotes: ask every configured source at once and gather their checked quotes into one quote book.
import { parseDecimal } from './decimal.js';
import { describeError, RatefileError } from './errors.js';
import type { SourceConfig } from './model.js';
import { sourceDefinition } from './sources/index.js';
import type { Quote, RawQuote, SourceContext } from './sources/source.js';

/** Quotes by pair (`BTC/USDT`). When two sources quote the same pair, the one listed first in the config wins. */
export type QuoteBook = ReadonlyMap<string, Quote>;

export interface SourceReport {
  name: string;
  type: string;
  ok: boolean;
  quotes: number;
  /** Why the source failed as a whole. */
  error?: string;
  /** Quotes it sent that were dropped, with the reason. */
  rejected: string[];
}

export interface FetchDeps {
  configDir: string;
  fetch: typeof globalThis.fetch;
  now: () => Date;
  signal?: AbortSignal;
}

/** Check one quote: a BASE/QUOTE pair, positive prices, bid not above ask. Returns the reason it is unusable, if it is. */
export function checkQuote(raw: RawQuote, source: string): Quote | string {
  const [base, quote] = raw.pair.split('/');
  if (!base || !quote || base === quote) return `${raw.pair}: expected a pair like BTC/USDT`;
  const bid = parseDecimal(raw.bid);
  const ask = parseDecimal(raw.ask);
  if (!bid || !bid.isPositive() || bid.isZero()) return `${raw.pair}: bid ${JSON.stringify(raw.bid)} is not a positive decimal`;
  if (!ask || !ask.isPositive() || ask.isZero()) return `${raw.pair}: ask ${JSON.stringify(raw.ask)} is not a positive decimal`;
  if (bid.greaterThan(ask)) return `${raw.pair}: bid ${raw.bid} is above ask ${raw.ask}`;
  if (Number.isNaN(raw.time.getTime())) return `${raw.pair}: time is not a valid date`;
  return { pair: `${base}/${quote}`, base, quote, bid, ask, time: raw.time, source };
}

async function fetchSource(source: SourceConfig, deps: FetchDeps): Promise<{ report: SourceReport; quotes: Quote[] }> {
  const report: SourceReport = { name: source.name, type: source.type, ok: false, quotes: 0, rejected: [] };
  const definition = sourceDefinition(source.type);
  try {
    if (!definition) throw new RatefileError('E_SOURCE', `${source.name}: unknown source type ${source.type}`);
    const context: SourceContext = {
      name: source.name,
      configDir: deps.configDir,
      fetch: deps.fetch,
      signal: deps.signal ?? new AbortController().signal,
      now: deps.now,
    };
    const quotes: Quote[] = [];
    for (const raw of await definition.fetchQuotes(source.options, context)) {
      const checked = checkQuote(raw, source.name);
      if (typeof checked === 'string') report.rejected.push(checked);
      else quotes.push(checked);
    }
    report.ok = true;
    report.quotes = quotes.length;
    return { report, quotes };
  } catch (error) {
    const details = error instanceof RatefileError && error.details.length > 0 ? `: ${error.details.join('; ')}` : '';
    report.error = describeError(error) + details;
    return { report, quotes: [] };
  }
}

/** Fetch all sources concurrently; a failing source is reported, never thrown, so the others still count. */
export async function fetchQuotes(sources: readonly SourceConfig[], deps: FetchDeps): Promise<{ book: QuoteBook; reports: SourceReport[] }> {
  const results = await Promise.all(sources.map((source) => fetchSource(source, deps)));
  const book = new Map<string, Quote>();
  for (const { quotes } of results) {
    for (const quote of quotes) if (!book.has(quote.pair)) book.set(quote.pair, quote);
  }
  return { book, reports: results.map((result) => result.report) };
}
