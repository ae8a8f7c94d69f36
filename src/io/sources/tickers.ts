// An exchange's list of tickers (binance, bybit, okx and others) read into quotes for the configured pairs: the adapters
// differ only in where the list is, which field names a ticker and which fields hold its bid, ask and time.
import { SourceError } from './http.js';
import type { SourceContext, SourceResult } from '../../model/source.js';
import { collectQuotes, isRecord, type PairSymbol, quoteFrom, shown } from '../../pure/sources/values.js';

/** Where an exchange's answer keeps its tickers and what their fields are called. */
export interface TickerShape {
  /** The list of tickers in the answer's body (undefined when it is not there). */
  list: (body: unknown) => unknown;
  /** The list as a message names it when it is missing: `result.list, a list of tickers`. */
  expected: string;
  /** The field naming a ticker by the exchange's symbol (`symbol`, `instId`). */
  symbol: string;
  bid: string;
  ask: string;
  /** The quote's time from the ticker, or from the whole answer (one snapshot time); the fetch's time when absent. */
  time?: (ticker: Record<string, unknown>, fetchedAt: Date, body: unknown) => Date;
  /** Why a ticker must not be used whatever its prices say (trading halted), or undefined. */
  unusable?: (ticker: Record<string, unknown>) => string | undefined;
}

/** Quotes for `pairs` out of an answer, one problem line per pair missing or unusable; no list at all throws. */
export function tickerQuotes(
  context: Pick<SourceContext, 'name' | 'now'>,
  pairs: readonly PairSymbol[],
  response: { where: string; body: unknown },
  shape: TickerShape,
): SourceResult {
  const { where, body } = response;
  const list = shape.list(body);
  if (!Array.isArray(list))
    throw new SourceError(`${context.name}: ${where}: expected ${shape.expected}, got ${shown(list)}`);
  const tickers = new Map<string, Record<string, unknown>>();
  for (const entry of list) {
    if (!isRecord(entry)) continue;
    const symbol = entry[shape.symbol];
    if (typeof symbol === 'string') tickers.set(symbol, entry);
  }
  const fetchedAt = context.now();
  return collectQuotes(
    pairs,
    where,
    (pair) => tickers.get(pair.symbol),
    (ticker, pair, label) => {
      const unusable = shape.unusable?.(ticker);
      if (unusable !== undefined) return `${label}: ${unusable}`;
      return quoteFrom(
        pair.pair,
        label,
        { bid: [shape.bid, ticker[shape.bid]], ask: [shape.ask, ticker[shape.ask]] },
        shape.time?.(ticker, fetchedAt, body) ?? fetchedAt,
      );
    },
  );
}
