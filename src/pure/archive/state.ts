// The archive's state lines: what `ratefile at` says of a direction besides the exports' items, as of a build. One
// JSON line per quote a published direction used (its source, bid, ask and time) and one per direction (its chain,
// margin or compete place, market and rate in the published form, or why it was held back). Pure. The archive keeps
// them as one more stream beside the exports (keyframes and diffs alike), so a build that moved 21 quotes adds 21
// changed lines and the lines of the directions whose market moved.
import { formatDecimal } from '../../base/decimal.js';
import { publishedRate } from '../pricing/published.js';
import type { PricedDirection, PublishedRate, WithheldDirection } from '../../model/priced.js';
import type { Quote } from '../../model/source.js';
import type { BuildReport } from '../status/report.js';

/** A quote as the state keeps it. `key` is `source pair`. */
export interface StateQuote {
  q: string;
  bid: string;
  ask: string;
  t: string;
  ruled?: true;
}

/** A direction as the state keeps it: published (`r`, `m`, `chain`) or held back (`w`, `why`). */
export interface StateDirection {
  d: string;
  /** Its rate and the market in the published form, `in:out` (no markup). */
  r?: string;
  m?: string;
  /** Each step: `source pair side`, the quote lines' keys and the side taken. */
  chain?: string[];
  /** The margin (a fraction), when its rate is the market after it. */
  margin?: string;
  /** With `compete:`: what set the rate and the place held, `place 2 of 5`. */
  compete?: string;
  /** Held back by every export: the kind and the reason. */
  w?: string;
  why?: string;
}

const form = (rate: PublishedRate) => `${formatDecimal(rate.in)}:${formatDecimal(rate.out)}`;

const quoteKey = (quote: Pick<Quote, 'source' | 'pair'>) => `${quote.source} ${quote.pair}`;

/** The state lines of a build, quotes first (by key), then the directions in config order. */
export function stateLines(report: BuildReport): string {
  const quotes = new Map<string, StateQuote>();
  const directions: { index: number; line: StateDirection }[] = [];
  const seen = new Set<Quote>();
  for (const priced of report.directions.published) {
    for (const { quote } of priced.steps) {
      if (seen.has(quote)) continue;
      seen.add(quote);
      quotes.set(quoteKey(quote), quoteLine(quote));
    }
    directions.push({ index: priced.direction.index, line: pricedLine(priced) });
  }
  for (const held of report.directions.withheld)
    directions.push({ index: held.direction.index, line: withheldLine(held) });
  directions.sort((a, b) => a.index - b.index || (a.line.d < b.line.d ? -1 : 1));
  const lines = [
    ...[...quotes.keys()].sort().map((key) => JSON.stringify(quotes.get(key))),
    ...directions.map((entry) => JSON.stringify(entry.line)),
  ];
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function quoteLine(quote: Quote): StateQuote {
  return {
    q: quoteKey(quote),
    bid: formatDecimal(quote.bid),
    ask: formatDecimal(quote.ask),
    t: quote.time.toISOString(),
    ...(quote.ruled ? { ruled: true as const } : {}),
  };
}

function pricedLine(priced: PricedDirection): StateDirection {
  const { direction, compete } = priced;
  return {
    d: direction.id,
    r: `${priced.published.rate.in}:${priced.published.rate.out}`,
    m: marketForm(priced),
    chain: priced.steps.map((step) => `${quoteKey(step.quote)} ${step.side}`),
    ...(compete
      ? { compete: `${compete.basis}, place ${compete.place} of ${compete.competitors} (target ${compete.target})` }
      : { margin: marginText(direction.margin) }),
  };
}

/** Margins are shared objects of the config (one per distinct value): formatted once each. */
const margins = new WeakMap<object, string>();
const marginText = (margin: PricedDirection['direction']['margin']) =>
  margins.get(margin) ?? margins.set(margin, formatDecimal(margin)).get(margin)!;

/**
 * The market in the published form, once per market value and pair of precisions: directions of one chain share
 * their market object, so 10,000 directions round a few hundred times, not 10,000.
 */
const markets = new WeakMap<object, Map<string, string>>();
function marketForm({ market, direction }: PricedDirection): string {
  const key = `${direction.from.ratePrecision}:${direction.to.ratePrecision}`;
  let forms = markets.get(market);
  if (!forms) markets.set(market, (forms = new Map()));
  let text = forms.get(key);
  if (text === undefined) forms.set(key, (text = form(publishedRate(market, direction.from, direction.to))));
  return text;
}

const withheldLine = (held: WithheldDirection): StateDirection => ({
  d: held.direction.id,
  w: held.kind,
  why: held.reason,
});

/** The state read back: quotes by key, directions by id. Lines that are not state lines are skipped. */
export function readState(text: string): { quotes: Map<string, StateQuote>; directions: Map<string, StateDirection> } {
  const quotes = new Map<string, StateQuote>();
  const directions = new Map<string, StateDirection>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const entry = value as Partial<StateQuote & StateDirection>;
    if (typeof entry.q === 'string') quotes.set(entry.q, entry as StateQuote);
    else if (typeof entry.d === 'string') directions.set(entry.d, entry as StateDirection);
  }
  return { quotes, directions };
}
