// Which answers of its sources a quote comes from (`source@fetch`), and those behind a chain of quotes: the jump guard
// confirms a new rate only on answers it has not seen, and names the sources behind a rate it holds back. Pure.
import type { Quote } from '../../model/source.js';

/**
 * A quote's answers; a streamed one is the frame it came in (`source@stream#n`: a repeated tick is a new frame, as a
 * venue sends it again); one made by hand (no `answers`) is one answer of its source at its time.
 */
export const answersOf = (quote: Quote): readonly string[] =>
  quote.answers ??
  (quote.streamSeq === undefined
    ? [`${quote.source}@${quote.time.toISOString()}`]
    : [`${quote.source}@stream#${quote.streamSeq}`]);

/** The answers behind these quotes, each once, sorted (so equal sets compare equal as text). */
export function answersBehind(quotes: Iterable<Quote>): string[] {
  const all = new Set<string>();
  for (const quote of quotes) for (const answer of answersOf(quote)) all.add(answer);
  return [...all].sort();
}

/** The source an answer is of: source names have no `@` (`[a-z][a-z0-9_-]*`). */
export const sourceOfAnswer = (answer: string): string => {
  const at = answer.indexOf('@');
  return at < 0 ? answer : answer.slice(0, at);
};

/** The sources behind these answers, each once, in order of first appearance. */
export const sourcesOf = (answers: readonly string[]): string[] => [...new Set(answers.map(sourceOfAnswer))];
