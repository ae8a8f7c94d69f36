// Price wars: when the competitor at the place answers each of our moves (its new rate, ahead of ours again, in the
// first feeds after the move), several times in a row, ratefile stops chasing and holds its rate for a cool-down.
// Pure: the memory of moves (kept in .ratefile/ by src/io/state/war-state.ts) and the clock come in, the next memory goes out.
import { Decimal } from '../../base/decimal.js';
import type { CompeteRule, WarRule } from '../../model/config.js';
import type { CompeteOutcome, CompeteWar, PublishedRate } from '../../model/priced.js';
import type { CityField, FieldCore } from './field.js';
import { compareForms, compareToRow, type RateCodes, sayForm } from './grid.js';
import { rankForm, rankrateOf, type RankTerms } from './rankrate.js';

/** What a build remembers of one competing direction for the next. */
export interface WarEntry {
  /** Our last compete rate, `in:out`. */
  rate: string;
  /** Our moves answered in a row by the same competitor. */
  rounds: number;
  /** Our last move, waiting for its answer: when, and the competitor at the place then with its rate (get ÷ give). */
  pending?: { at: string; rivalId: number; rival: string; rivalRate: string };
  /** A war being held out: the rate held and until when. */
  war?: CompeteWar & { hold: string };
}

/** By direction id. */
export type WarMemory = Record<string, WarEntry>;

/** Forms are shared by the builds of one feed or market (standing.ts, bounds.ts): their text is made once. */
const texts = new WeakMap<PublishedRate, string>();

function formText(form: PublishedRate): string {
  let text = texts.get(form);
  if (text === undefined) texts.set(form, (text = `${form.in.toString()}:${form.out.toString()}`));
  return text;
}

export function formOf(text: string): PublishedRate | undefined {
  const match = /^(\d{1,40}(?:\.\d{1,40})?):(\d{1,40}(?:\.\d{1,40})?)$/.exec(text);
  if (!match) return undefined;
  const form = { in: new Decimal(match[1]!), out: new Decimal(match[2]!) };
  return form.in.isZero() || form.out.isZero() ? undefined : form;
}

/** What the memory says before this build's pricing: the entry after any answer the feed shows, and a hold. */
export interface WarBefore {
  entry?: WarEntry;
  /** The most generous rate this build may publish, and the war it holds out. */
  hold?: PublishedRate;
  war?: CompeteWar;
}

const later = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();

/**
 * Reads this build's feed against the memory: a war still held, one that ended, an answer to our last move (the
 * competitor we passed is at the place again, more generous than it was and at least as generous as we are, in a
 * feed fetched after the move and at most `withinMs` after it), a move left unanswered; and the war that the
 * rounds make. `feedAt`: when the feed in use was fetched.
 */
export function warBefore(
  entry: WarEntry | undefined,
  rule: CompeteRule,
  cores: readonly FieldCore[],
  feedAt: Date | undefined,
  now: Date,
  ranked?: RankTerms,
): WarBefore {
  const war = rule.war;
  if (!war || !entry) return entry ? { entry } : {};
  if (entry.war) {
    const hold = formOf(entry.war.hold);
    if (hold && now.getTime() < Date.parse(entry.war.until)) {
      const { hold: _, ...shown } = entry.war;
      return { entry, hold, war: shown };
    }
    // The cool-down is over (or the held rate unreadable): chase again, counting from nothing.
    return { entry: { rate: entry.rate, rounds: 0 } };
  }
  const { pending } = entry;
  if (!pending || !feedAt) return { entry };
  const movedAt = Date.parse(pending.at);
  if (!(feedAt.getTime() > movedAt)) return { entry };
  const late = feedAt.getTime() - movedAt > war.withinMs;
  // By rankrate (API v2) the rows' give is their rankrate: ours is compared as our rankrate.
  const last = formOf(entry.rate);
  const rankrate = last && ranked ? rankrateOf(last, ranked.fees, ranked.amount) : undefined;
  const ours = ranked ? rankrate && rankForm(rankrate) : last;
  const answered = !late && ours !== undefined && cores.some((core) => answers(core, rule, pending, ours));
  if (!answered) return late ? { entry: { rate: entry.rate, rounds: 0 } } : { entry };
  const rounds = entry.rounds + 1;
  if (rounds < war.rounds) return { entry: { rate: entry.rate, rounds } };
  return startWar(entry, rounds, pending, war, now);
}

/** The competitor we passed is at the place again, having moved up to at least our rate. */
function answers(core: FieldCore, rule: CompeteRule, pending: NonNullable<WarEntry['pending']>, ours: PublishedRate) {
  const rival = core.counted[rule.worst - 1];
  return (
    rival !== undefined &&
    rival.row.exchangerId === pending.rivalId &&
    rival.rate.greaterThan(pending.rivalRate) &&
    compareToRow(ours, rival.row) <= 0
  );
}

function startWar(
  entry: WarEntry,
  rounds: number,
  pending: NonNullable<WarEntry['pending']>,
  war: WarRule,
  now: Date,
): WarBefore {
  const since = now.toISOString();
  const shown: CompeteWar = {
    rival: pending.rival,
    rivalId: pending.rivalId,
    rounds,
    since,
    until: later(since, war.coolDownMs),
  };
  const hold = formOf(entry.rate)!;
  return { entry: { rate: entry.rate, rounds, war: { ...shown, hold: entry.rate } }, hold, war: shown };
}

/**
 * The memory after this build: the rate chosen, and a move when it is more generous than the last to hold the
 * place (`basis: place`; the floor, the ceiling and a cap follow the market, not a rival): the competitor at the
 * place now, in the city that decides, is the one whose answer the next feeds are read for. A new move while the
 * last one still waits for its answer ends the count. (At the normal margin the caller keeps the memory as it was.)
 */
export function warAfter(
  before: WarEntry | undefined,
  chosen: PublishedRate,
  basis: CompeteOutcome['basis'],
  fields: readonly CityField[],
  now: Date,
): WarEntry {
  const rate = formText(chosen);
  if (!before) return { rate, rounds: 0 };
  // Most builds: the same rate as the last one, nothing to remember anew.
  if (rate === before.rate) return before;
  if (before.war) return { ...before, rate };
  const last = formOf(before.rate);
  if (basis !== 'place' || !last || compareForms(chosen, last) <= 0) return { ...before, rate };
  const rounds = before.pending ? 0 : before.rounds;
  const decisive = fields.reduce<CityField | undefined>(
    (worst, field) => (field.rival && (!worst || field.place > worst.place) ? field : worst),
    undefined,
  );
  const rival = decisive?.rival;
  if (!rival) return { rate, rounds };
  const { exchangerId, exchanger } = rival.row;
  return {
    rate,
    rounds,
    pending: { at: now.toISOString(), rivalId: exchangerId, rival: exchanger, rivalRate: rival.rate.toString() },
  };
}

/**
 * A direction not priced this build (paused, a stale quote) keeps its memory: a war's hold outlives a pause. The
 * I/O reading the memory keeps only the config's directions with war detection on, so this stays bounded.
 */
export function keepUnpriced(
  memory: WarMemory,
  previous: Readonly<WarMemory> | undefined,
  priced: ReadonlyMap<string, unknown>,
): WarMemory {
  for (const id in previous) {
    if (id !== '__proto__' && Object.hasOwn(previous, id) && !priced.has(id)) memory[id] = previous[id]!;
  }
  return memory;
}

/** Why the rate is held. */
export const warReason = (
  war: CompeteWar,
  held: PublishedRate,
  needed: PublishedRate,
  rule: CompeteRule,
  codes: RateCodes,
) =>
  `price war with ${war.rival} (#${war.rivalId}): ${war.rounds} of our moves answered in a row; holding ${sayForm(held, codes)} (place ${rule.worst} needs ${sayForm(needed, codes)}) until ${war.until}`;
