// The `rates:` block made into rules, and the order they are made in: a pair whose formula reads another ruled
// pair from the book (a bare `USDT/UAH`) comes after it. A pair that reads itself through others is a loop. Pure.
import { percentToFraction } from '../../base/decimal.js';
import { parseFormula, quotesOf, type Formula } from '../../base/config/formula.js';
import type { ConsensusTerm, RateRule, RatesFile } from '../../model/rates.js';
import { marketOf } from './book.js';

/** The rules of a checked `rates:` block, in the config's order. */
export function rulesOf(rates: RatesFile): RateRule[] {
  return Object.entries(rates).map(([pair, entry]) => {
    const [base, quote] = pair.split('/') as [string, string];
    if (typeof entry === 'object' && 'sources' in entry) {
      const terms = entry.sources.map((term) => termOf(term, pair));
      return {
        kind: 'consensus',
        pair,
        base,
        quote,
        terms,
        method: entry.method,
        quorum: entry.quorum ?? Math.floor(terms.length / 2) + 1,
        ...(entry.spread === undefined ? {} : { spread: percentToFraction(entry.spread) }),
      };
    }
    return { kind: 'formula', pair, base, quote, formula: entry };
  });
}

/** A consensus term: a source's name alone is that source's quote of the pair; anything else a formula. */
export function termOf(text: string, pair: string): ConsensusTerm {
  const trimmed = text.trim();
  if (/^[a-z][a-z0-9_-]*$/.test(trimmed))
    return { label: trimmed, formula: parseFormula(`${trimmed}:${pair}`) as Formula };
  const read = parseFormula(trimmed);
  if ('problem' in read) throw new Error(`unchecked rates term ${trimmed}: ${read.problem}`);
  return { label: read.text, formula: read };
}

/** Every formula of a rule: its own, or its terms'. */
export const formulasOf = (rule: RateRule): Formula[] =>
  rule.kind === 'formula' ? [rule.formula] : rule.terms.map((term) => term.formula);

/** The ruled pairs a rule reads from the book (bare references to a ruled market). */
function readsOf(rule: RateRule, ruled: ReadonlyMap<string, RateRule>): RateRule[] {
  return formulasOf(rule)
    .flatMap((formula) => quotesOf(formula.node))
    .flatMap((ref) => (ref.source === undefined && ruled.has(marketOf(ref)) ? [ruled.get(marketOf(ref))!] : []));
}

/** The rules in an order that makes each after those it reads; or the first loop, as the pairs around it. */
export function ruleOrder(rules: readonly RateRule[]): { order: RateRule[] } | { loop: string[] } {
  const ruled = new Map(rules.map((rule) => [marketOf(rule), rule]));
  const order: RateRule[] = [];
  const state = new Map<RateRule, 'visiting' | 'done'>();
  const visit = (rule: RateRule, path: RateRule[]): string[] | undefined => {
    if (state.get(rule) === 'done') return undefined;
    if (state.get(rule) === 'visiting') return [...path.slice(path.indexOf(rule)), rule].map((r) => r.pair);
    state.set(rule, 'visiting');
    for (const read of readsOf(rule, ruled)) {
      const loop = visit(read, [...path, rule]);
      if (loop) return loop;
    }
    state.set(rule, 'done');
    order.push(rule);
    return undefined;
  };
  for (const rule of rules) {
    const loop = visit(rule, []);
    if (loop) return { loop };
  }
  return { order };
}
