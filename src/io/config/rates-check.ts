// Checks of `rates:` across the config: every source a formula or a consensus names exists, a pair is not made
// of itself through other pairs, a market has one rule (not one each way round), and a quorum can be met. Reported
// with the schema's problems, with their lines.
import { entriesOf, parseFormula, quotesOf } from '../../base/config/formula.js';
import { closest, type Problem } from '../../base/config/problems.js';
import { quoteValue } from '../../base/errors.js';
import { ruleOrder, rulesOf } from '../../pure/rates/rules.js';
import type { RatesFile } from '../../model/rates.js';
import { ratesSchema } from '../../model/rates.js';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The problems of a raw `rates:` block; only what the schema itself cannot see. */
export function checkRates(raw: Record<string, unknown>): Problem[] {
  if (!isRecord(raw.rates)) return [];
  const sources = isRecord(raw.sources) ? Object.keys(raw.sources) : [];
  const problems: Problem[] = [];
  for (const [pair, entry] of Object.entries(raw.rates)) {
    const [base, quote] = pair.split('/');
    if (base !== undefined && base === quote)
      problems.push({ path: ['rates', pair], message: `expected two different assets, got ${quoteValue(pair)}` });
    for (const { path, text } of formulaTexts(entry, pair)) {
      const read = parseFormula(text);
      // A pair's own formula is read by the schema, which says what is wrong; a consensus term only here.
      if ('problem' in read) {
        if (path.length > 0) problems.push({ path: ['rates', pair, ...path], message: read.problem });
        continue;
      }
      for (const ref of quotesOf(read.node))
        if (ref.source !== undefined && !sources.includes(ref.source))
          problems.push({ path: ['rates', pair, ...path], message: unknownSource(ref.source, sources) });
    }
    if (isRecord(entry) && Array.isArray(entry.sources)) problems.push(...quorumProblems(pair, entry));
  }
  problems.push(...reversedPairs(Object.keys(raw.rates)));
  // The order is read from the checked block: a loop is one problem, at the first pair on it.
  const parsed = ratesSchema.safeParse(raw.rates);
  if (parsed.success && problems.length === 0) {
    const ordered = ruleOrder(rulesOf(parsed.data as RatesFile));
    if ('loop' in ordered)
      problems.push({
        path: ['rates', ordered.loop[0]!],
        message: `expected a pair made of other pairs, got a loop: ${ordered.loop.join(' → ')} (a term naming its source, like "binance:${ordered.loop[0]}", reads that source's quote, not the book's)`,
      });
  }
  return problems;
}

/**
 * A pair and its reverse are one market: with a rule for each, the book takes one and the other (its quorum, its
 * spread) is never used. One problem, at the later of the two, naming both.
 */
function reversedPairs(pairs: readonly string[]): Problem[] {
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const pair of pairs) {
    const [base, quote] = pair.split('/');
    const reverse = `${quote}/${base}`;
    if (base !== quote && seen.has(reverse))
      problems.push({
        path: ['rates', pair],
        message: `expected one rule per market, got rules for both ${quoteValue(reverse)} and ${quoteValue(pair)} (one market the other way round: only one would be used, the other's sources, quorum and spread ignored); keep one`,
      });
    seen.add(pair);
  }
  return problems;
}

/** Each formula text of an entry and its path under the pair: the entry itself, or each of `sources`. */
function formulaTexts(entry: unknown, pair: string): { path: (string | number)[]; text: string }[] {
  if (typeof entry === 'string') return [{ path: [], text: entry }];
  if (!isRecord(entry)) return [];
  if (!Array.isArray(entry.sources)) return [];
  return entry.sources.flatMap((term, index) =>
    typeof term !== 'string'
      ? []
      : [{ path: ['sources', index], text: /^\s*[a-z][a-z0-9_-]*\s*$/.test(term) ? `${term.trim()}:${pair}` : term }],
  );
}

function unknownSource(name: string, sources: readonly string[]): string {
  const hint = closest(name, sources);
  return `expected a source of \`sources:\`, got ${quoteValue(name)}${hint ? ` (did you mean ${hint}?)` : ''}`;
}

/** A quorum no larger than the terms; a trimmed mean needs three terms to trim. */
function quorumProblems(pair: string, entry: Record<string, unknown>): Problem[] {
  const terms = (entry.sources as unknown[]).length;
  const quorum = typeof entry.quorum === 'number' ? entry.quorum : Math.floor(terms / 2) + 1;
  const problems: Problem[] = [];
  if (quorum > terms)
    problems.push({
      path: ['rates', pair, 'quorum'],
      message: `expected at most the ${terms} terms listed, got ${quorum}`,
    });
  if (entry.method === 'trimmed' && quorum < 3)
    problems.push({
      path: ['rates', pair, 'quorum'],
      message: `expected at least 3 for a trimmed mean (it drops the highest and the lowest term), got ${quorum}`,
    });
  return problems;
}

/** A reserve formula names reserve sources that exist, and stands alone (not beside reserve or reserveFrom). */
export function reserveFormulaProblems(
  entry: Record<string, unknown>,
  path: (string | number)[],
  reserveNames: readonly string[],
): Problem[] {
  if (typeof entry.reserveFormula !== 'string') return [];
  const problems: Problem[] = [];
  if (entry.reserve !== undefined || entry.reserveFrom !== undefined)
    problems.push({ path: [...path, 'reserveFormula'], message: 'set one of reserve, reserveFrom and reserveFormula' });
  const read = parseFormula(entry.reserveFormula, 'entry');
  if ('problem' in read) return problems;
  for (const ref of entriesOf(read.node))
    if (!reserveNames.includes(ref.source)) {
      const hint = closest(ref.source, reserveNames);
      problems.push({
        path: [...path, 'reserveFormula'],
        message: `expected a reserve source of \`reserves:\`, got ${quoteValue(ref.source)}${hint ? ` (did you mean ${hint}?)` : ''}`,
      });
    }
  return problems;
}
