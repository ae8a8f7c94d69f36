// The jump guard's decision for one direction whose rate moved from its last published one: published, held until
// distinct answers of its sources confirm it (`maxJump`), or held until `ratefile accept` (past `hardJump`). Pure.
import { Decimal } from '../../base/decimal.js';
import type { Config } from '../../model/config.js';
import type { JumpFacts, PricedDirection, WithheldDirection } from '../../model/priced.js';
import { percent, show } from '../../base/words.js';
import { sourcesOf } from '../rates/answers.js';

/** A jump being confirmed, kept in guard.json between builds. */
export interface PendingJump {
  rate: string;
  /** Confirmations counted so far: distinct answers of the sources behind the rate (named when builds were counted). */
  builds: number;
  /** The answers (`source@fetch`) of every confirmation counted: the next counts only when none of its answers is here. Absent in files written before answers were counted. */
  answers?: string[];
  /** Past the hard bound: never confirmed, only accepted. */
  hard?: true;
}

/** The rate a jump is measured from: guard.json's, or (a first rate) the one the export files on disk publish. */
export interface LastRate {
  rate: string;
  at: string;
  /** Where it was read, when not from guard.json: `parserfile.xml`, `s3://bucket/parserfile.xml`. */
  file?: string;
}

/** How far a rate moved from a last one, when beyond maxJump or past the hard bound. */
export interface Move {
  /** |new − last| ÷ last. */
  move: Decimal;
  /** new ÷ last. */
  ratio: Decimal;
  hard: boolean;
}

export interface JumpCase {
  priced: PricedDirection;
  rateText: string;
  last: LastRate;
  moved: Move;
  /** The answers behind the rate this build (sorted), and the pending confirmation of the last build, if any. */
  answers: readonly string[];
  pending: PendingJump | undefined;
  accepted: boolean;
  guards: Config['guards'];
}

/** What to do with a moved rate: publish it, or hold it back with this pending entry and reason. */
export type JumpOutcome = { publish: true } | { publish: false; pending: PendingJump; withheld: WithheldDirection };

/**
 * Accepted: published. Past the hard bound: held, however often seen. Otherwise counted: a build adds one only when
 * every answer behind the rate is one not counted before (a quote reused between fetches, or a source's last good
 * quotes standing in, is the same answer), and a rate still moving by more than maxJump starts over.
 */
export function decideJump(c: JumpCase): JumpOutcome {
  if (c.accepted) return { publish: true };
  const { priced, rateText, answers, guards } = c;
  const pending = usable(c.pending);
  if (c.moved.hard) return held(c, { rate: rateText, builds: 1, answers: [...answers], hard: true }, hardReason(c));
  const steady =
    pending !== undefined &&
    pending.hard === undefined &&
    priced.rate.minus(pending.rate).abs().lessThanOrEqualTo(guards.maxJump.times(pending.rate));
  // A state from before answers were counted (or a hand-edited one) has none: its next answer counts.
  const counted = Array.isArray(pending?.answers) ? new Set(pending.answers) : undefined;
  const fresh = counted === undefined || answers.every((answer) => !counted.has(answer));
  const builds = steady ? pending.builds + (fresh ? 1 : 0) : 1;
  if (builds >= guards.confirmAnswers) return { publish: true };
  // Every answer counted so far (at most confirmAnswers × the sources behind the rate): none counts twice.
  const seen = !steady || !counted ? [...answers] : fresh ? union([...counted], answers) : [...counted];
  return held(c, { rate: rateText, builds, answers: seen }, softReason(c, builds));
}

/** A pending entry as a build wrote it; one edited by hand into something else counts as none. */
const usable = (pending: PendingJump | undefined): PendingJump | undefined =>
  pending && /^\d+(\.\d+)?$/.test(String(pending.rate)) && Number.isInteger(pending.builds) && pending.builds > 0
    ? pending
    : undefined;

const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])].sort();

function held(c: JumpCase, pending: PendingJump, reason: string): JumpOutcome {
  const { from, to } = c.priced.direction;
  const jump: JumpFacts = {
    last: c.last.rate,
    rate: c.rateText,
    sources: sources(c),
    hard: c.moved.hard,
    command: `ratefile accept ${from.code} ${to.code}`,
  };
  return { publish: false, pending, withheld: { direction: c.priced.direction, kind: 'jump', reason, jump } };
}

/** The sources behind the rate: its answers' (a ruled quote's terms'), else its quotes' own names. */
const sources = (c: JumpCase): string[] =>
  c.answers.length > 0 ? sourcesOf(c.answers) : [...new Set(c.priced.steps.map((step) => step.quote.source))];

/** `from the last published 98.9386 (parserfile.xml) to 98938.6`: both rates, and where the last was read. */
const fromTo = (c: JumpCase) =>
  `from the last published ${show(new Decimal(c.last.rate))}${c.last.file ? ` (${c.last.file})` : ''} to ${show(c.priced.rate)}`;

function softReason(c: JumpCase, builds: number): string {
  const { from, to } = c.priced.direction;
  return `rate moved ${percent(c.moved.move.toDecimalPlaces(4))} ${fromTo(c)}; seen in ${builds} of ${c.guards.confirmAnswers} distinct answers of ${sources(c).join(', ')} (ratefile accept ${from.code} ${to.code} to publish now)`;
}

function hardReason(c: JumpCase): string {
  const { from, to } = c.priced.direction;
  const { ratio, move } = c.moved;
  const factor = ratio.greaterThanOrEqualTo(1)
    ? `×${show(ratio.toSignificantDigits(4))}, +${percent(move.toDecimalPlaces(2))}`
    : `÷${show(new Decimal(1).div(ratio).toSignificantDigits(4))}, −${percent(move.toDecimalPlaces(2))}`;
  const bound = show(new Decimal(1).plus(c.guards.hardJump));
  return `rate moved ${factor} ${fromTo(c)}, from ${sources(c).join(', ')}: past the hard bound ×${bound} or ÷${bound} (guards.hardJump ${percent(c.guards.hardJump)}), it is published only by ratefile accept ${from.code} ${to.code}`;
}
