// Asking one source: what it is given to fetch with (FetchDeps, sourceContext), its quotes checked one by one, its failure as one line.
import { defaultUserAgent } from '../../base/requests.js';
import { parseDecimal } from '../../base/decimal.js';
import { errorLine } from '../../base/errors.js';
import type { SourceConfig } from '../../model/config.js';
import type { Quote, RawQuote, SourceContext, SourceDefinition, SourceFeed } from '../../model/source.js';
import { priceLengthProblem, shown } from '../../pure/sources/values.js';
import type { QuoteCache } from './quote-cache.js';
import { sourcePriority } from './source-options.js';
import type { Yardstick } from '../../pure/sources/scale.js';

export interface FetchDeps {
  configDir: string;
  fetch: typeof globalThis.fetch;
  /** The User-Agent of the sources' requests (the config's `userAgent`); default `ratefile/<version>`. */
  userAgent?: string;
  now: () => Date;
  signal?: AbortSignal;
  /** Environment for base URL overrides and keys; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  cache?: QuoteCache;
  /** The config's schedule period, for default max ages; default 30 s. */
  schedulePeriodMs?: number;
  sleep?: SourceContext['sleep'];
  /** Take quotes past their source's maxAge out of the book (what a build prices on); default: every checked quote is in it. */
  dropStale?: boolean;
  /** Each source's last accepted answer, an answer off it by a power of ten is refused by (src/pure/sources/scale.ts); updated as answers are accepted. Absent: not checked. */
  yardsticks?: Map<string, Yardstick>;
}

/** Check one quote: a BASE/QUOTE pair, positive prices, bid not above ask. Returns the reason it is unusable, if it is. */
export function checkQuote(raw: RawQuote, source: string): Quote | string {
  const [base, quote] = raw.pair.split('/');
  if (!base || !quote || base === quote) return `${raw.pair}: expected a pair like BTC/USDT`;
  // Bounded before parsing: a megabyte of digits is a broken feed, not a price.
  for (const [side, text] of [
    ['bid', raw.bid],
    ['ask', raw.ask],
  ] as const) {
    const tooLong = priceLengthProblem(text);
    if (tooLong) return `${raw.pair}: ${side} ${tooLong}: ${shown(text)}`;
  }
  const bid = parseDecimal(raw.bid);
  const ask = parseDecimal(raw.ask);
  if (!bid?.isPositive() || bid.isZero())
    return `${raw.pair}: bid ${JSON.stringify(raw.bid)} is not a positive decimal`;
  if (!ask?.isPositive() || ask.isZero())
    return `${raw.pair}: ask ${JSON.stringify(raw.ask)} is not a positive decimal`;
  if (bid.greaterThan(ask)) return `${raw.pair}: bid ${raw.bid} is above ask ${raw.ask}`;
  if (Number.isNaN(raw.time.getTime())) return `${raw.pair}: time is not a valid date`;
  return { pair: `${base}/${quote}`, base, quote, bid, ask, time: raw.time, source };
}

/** A thrown error as one line, with a RatefileError's details after a colon: a source's failure as logged. */
export function errorText(error: unknown): string {
  return errorLine(error, ': ');
}

/** What a source (of quotes or of reserves) is given to fetch with. */
export function sourceContext(
  name: string,
  deps: Pick<FetchDeps, 'configDir' | 'fetch' | 'userAgent' | 'signal' | 'now' | 'env' | 'sleep'>,
): SourceContext {
  return {
    name,
    configDir: deps.configDir,
    fetch: deps.fetch,
    userAgent: deps.userAgent ?? defaultUserAgent(),
    signal: deps.signal ?? new AbortController().signal,
    now: deps.now,
    env: deps.env ?? process.env,
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
  };
}

/** Fetches in this process so far: two answers of one source at one clock reading are still two answers. */
let fetches = 0;

/** This fetch's identity, `source@time#n`, which its quotes carry (`Quote.answers`). */
export const answerId = (source: string, now: Date): string => `${source}@${now.toISOString()}#${++fetches}`;

export async function askSource(
  source: SourceConfig,
  definition: SourceDefinition<{ type: string }>,
  deps: FetchDeps,
  previous: SourceFeed | undefined,
  previousStale = false,
): Promise<{ quotes: Quote[]; rejected: string[]; feed?: SourceFeed }> {
  const context: SourceContext = {
    ...sourceContext(source.name, deps),
    ...(previous ? { previous } : {}),
    ...(source.competes ? { competes: source.competes } : {}),
    ...(previousStale ? { previousStale } : {}),
    ...(deps.cache ? { kept: deps.cache.kept } : {}),
  };
  const result = await definition.fetchQuotes(source.options, context);
  const {
    quotes: raws,
    problems,
    feed,
  } = Array.isArray(result) ? { quotes: result, problems: [], feed: undefined } : result;
  const priority = sourcePriority(source);
  const quotes: Quote[] = [];
  const rejected = [...problems];
  // One answer: every quote of it shares its identity.
  const answers = raws.length > 0 ? [answerId(source.name, deps.now())] : [];
  for (const raw of raws) {
    const checked = checkQuote(raw, source.name);
    if (typeof checked === 'string') {
      rejected.push(checked);
      continue;
    }
    checked.answers = answers;
    if (priority !== 0) checked.priority = priority;
    quotes.push(checked);
  }
  return feed ? { quotes, rejected, feed } : { quotes, rejected };
}
