// War detection (src/pure/compete/war.ts) on fields read by the real parser: a move waits for its answer, an answer
// counts only from the same competitor, moved up, at least as generous as we are and within `within` of the move;
// the rounds make a war; the rate is held (never more generous) through the cool-down, then chasing resumes.
import { describe, expect, it } from 'vitest';
import { parseFeed, type BestChangeFeed } from '../../../../src/pure/bestchange/feed.js';
import { competeDirections } from '../../../../src/pure/compete/price.js';
import { warAfter, warBefore, type WarEntry, type WarMemory } from '../../../../src/pure/compete/war.js';
import { type CityField, fieldCore } from '../../../../src/pure/compete/field.js';
import { Decimal, formatDecimal } from '../../../../src/base/decimal.js';
import type { CompeteRule } from '../../../../src/model/config.js';
import { priceDirection } from '../../../../src/pure/pricing/price.js';
import type { Quote, QuoteBook } from '../../../../src/model/source.js';
import { base, dump } from '../../../support/bestchange.js';
import { competeCurrency, competeRule, competingDirection } from '../../../support/compete.js';

const t0 = Date.parse('2026-11-21T12:00:00Z');
const at = (seconds: number) => new Date(t0 + seconds * 1000);
const quote: Quote = {
  pair: 'BTC/RUB',
  base: 'BTC',
  quote: 'RUB',
  bid: new Decimal(5000000),
  ask: new Decimal(5000000),
  time: at(0),
  source: 'test',
};
const book: QuoteBook = new Map([['BTC/RUB', quote]]);
const BTC = competeCurrency('BTC', 'BTC', 8);
const SBER = competeCurrency('SBERRUB', 'RUB', 2);
const war = { rounds: 3, withinMs: 120_000, coolDownMs: 900_000 };
const rule = competeRule({ worst: 1, war });

function feedOf(rows: [number, string][]): BestChangeFeed {
  return parseFeed(
    dump({
      ...base,
      'bm_exch.dat': '2;Bravo;;0;1\n3;Charlie;;0;1\n4;Delta;;0;1\n',
      'bm_rates.dat': rows.map(([id, rate]) => `2;1;${id};1;${rate};90000000;0.1;0;0.001;2;0`).join('\n'),
    }),
  );
}

const cores = (feed: BestChangeFeed, r: CompeteRule = rule) => [fieldCore(feed, BTC, SBER, r, undefined, undefined)];

/** One build at `seconds` on `rows` (fetched then), from `memory`: the rate published and the memory after it. */
function build(rows: [number, string][], seconds: number, memory: WarMemory, r: CompeteRule = rule) {
  const margined = priceDirection(competingDirection(BTC, SBER, r), book);
  if ('reason' in margined) throw new Error(margined.reason);
  const result = competeDirections({
    priced: [margined],
    book,
    feeds: new Map([['bc', { feed: feedOf(rows), ageSeconds: 0, fetchedAt: at(seconds) }]]),
    now: at(seconds),
    memory,
  });
  return { rate: formatDecimal(result.priced[0]!.rate), outcome: result.priced[0]!.compete!, memory: result.memory };
}

const pending = (seconds: number, rivalRate: string): NonNullable<WarEntry['pending']> => ({
  at: at(seconds).toISOString(),
  rivalId: 2,
  rival: 'Bravo',
  rivalRate,
});

describe('war detection', () => {
  it('counts an answer: the competitor we passed, moved up to at least our rate, in a feed within `within`', () => {
    const entry: WarEntry = { rate: '1:4900000.01', rounds: 0, pending: pending(0, '4900000') };
    const answered = cores(feedOf([[2, '4900000.02']]));
    expect(warBefore(entry, rule, answered, at(30), at(30)).entry).toEqual({ rate: '1:4900000.01', rounds: 1 });
    // A feed fetched before (or at) the move cannot show its answer: still waiting.
    expect(warBefore(entry, rule, answered, at(0), at(30)).entry).toBe(entry);
    // Too late: more than two minutes after the move, the count starts over.
    expect(warBefore(entry, rule, answered, at(121), at(121)).entry).toEqual({ rate: '1:4900000.01', rounds: 0 });
    // Not moved (still at its rate), behind us, or someone else at the place: no answer, still waiting.
    for (const rows of [[[2, '4900000']], [[2, '4900000.005']], [[3, '4900000.02']]] as [number, string][][]) {
      expect(warBefore(entry, rule, cores(feedOf(rows)), at(30), at(30)).entry, JSON.stringify(rows)).toBe(entry);
    }
    // Without war detection the memory is not read.
    const off = competeRule({ worst: 1 });
    expect(warBefore(entry, off, answered, at(30), at(30))).toEqual({ entry });
  });

  it('by rankrate (API v2): our last rate is compared as its rankrate with the rows’ rankrates', () => {
    const zero = new Decimal(0);
    // 1% fromfee: our rankrate at 4,900,000.01 is 1.01 ÷ 4,900,000.01 — worse than a feeless row at 4,900,000.02's.
    const ranked = {
      fees: { fromShare: new Decimal('0.01'), fromFixed: zero, toShare: zero, toFixed: zero, min: zero },
      amount: new Decimal('0.003'),
    };
    const entry: WarEntry = { rate: '1:4900000.01', rounds: 0, pending: pending(0, '4880000') };
    const view = (rate: string) => {
      const bare = feedOf([[2, rate]]);
      const rows = bare.directions.get('BTC>SBERRUB')!.map((row) => ({
        ...row,
        give: new Decimal(1).div(rate).toFixed(30),
        get: '1',
      }));
      return cores({ ...bare, directions: new Map([['BTC>SBERRUB', rows]]) });
    };
    // Bravo moved from 4,880,000 to 4,890,000: less than our bare rate, but ahead of our rankrate: an answer.
    expect(warBefore(entry, rule, view('4890000'), at(30), at(30), ranked).entry).toEqual({
      rate: '1:4900000.01',
      rounds: 1,
    });
    // Compared bare, the same row is behind us: no answer yet.
    expect(warBefore(entry, rule, view('4890000'), at(30), at(30)).entry).toBe(entry);
  });

  it('the third answer in a row is a war: the rate is held, never more generous, for the cool-down', () => {
    const entry: WarEntry = { rate: '1:4900000.01', rounds: 2, pending: pending(0, '4900000') };
    const seen = warBefore(entry, rule, cores(feedOf([[2, '4900000.02']])), at(30), at(30));
    expect(seen.hold).toEqual({ in: new Decimal(1), out: new Decimal('4900000.01') });
    expect(seen.war).toEqual({
      rival: 'Bravo',
      rivalId: 2,
      rounds: 3,
      since: at(30).toISOString(),
      until: at(930).toISOString(),
    });
  });

  it('a move records the competitor at the place; a second move before its answer ends the count', () => {
    // The decisive city is the one with the worst place: Bravo's (place 2), not Charlie's.
    const field = (id: number, name: string, rate: string, place: number): CityField => ({
      entries: [],
      counted: [],
      place,
      rival: { row: { exchangerId: id, exchanger: name, give: '1', get: rate, reserve: '1' }, rate: new Decimal(rate) },
    });
    const fields = [field(3, 'Charlie', '4800000', 1), field(2, 'Bravo', '4900000', 2)];
    const form = (out: string) => ({ in: new Decimal(1), out: new Decimal(out) });
    expect(warAfter(undefined, form('4900000.01'), 'place', fields, at(0))).toEqual({
      rate: '1:4900000.01',
      rounds: 0,
    });
    const moved = warAfter({ rate: '1:4890000', rounds: 2 }, form('4900000.01'), 'place', fields, at(10));
    expect(moved).toEqual({ rate: '1:4900000.01', rounds: 2, pending: pending(10, '4900000') });
    // Not a move (the same rate or less generous): the move still waits for its answer.
    expect(warAfter(moved, form('4899000'), 'place', fields, at(20))).toEqual({ ...moved, rate: '1:4899000' });
    expect(warAfter(moved, form('4900000.02'), 'place', fields, at(20))).toMatchObject({ rounds: 0 });
    // The floor, the ceiling and a cap follow the market: a rise there is no move.
    for (const basis of ['floor', 'ceiling', 'cap'] as const)
      expect(warAfter(moved, form('4900000.02'), basis, fields, at(20)), basis).toEqual({
        ...moved,
        rate: '1:4900000.02',
      });
  });

  it('through builds: three answered moves make a war, held through the cool-down, then chasing resumes', () => {
    let memory: WarMemory = {};
    let bravo = new Decimal('4900000');
    const rates: string[] = [];
    // Bravo answers each of our moves 30 s later by one kopeck more than us; Charlie stays behind.
    for (let round = 0; round < 6; round++) {
      const rows: [number, string][] = [
        [2, formatDecimal(bravo)],
        [3, '4800000'],
      ];
      const result = build(rows, round * 30, memory);
      memory = result.memory;
      rates.push(result.rate);
      bravo = new Decimal(result.rate).plus('0.01');
    }
    // Moves at 0 s (the first, nothing to answer it), 30, 60 and 90 s; Bravo's answers to the moves at 30, 60 and
    // 90 s make three: at 120 s the rate stays where it was.
    expect(rates).toEqual(['4900000.01', '4900000.03', '4900000.05', '4900000.07', '4900000.07', '4900000.07']);
    const held = build([[2, formatDecimal(bravo)]], 180, memory);
    expect(held.outcome).toMatchObject({ basis: 'war', place: 2, war: { rival: 'Bravo', rounds: 3 } });
    // Bravo backs off during the war: followed down, still at war (the alert lasts the cool-down).
    const down = build([[2, '4890000']], 200, memory);
    expect(down).toMatchObject({ rate: '4890000.01', outcome: { basis: 'place', war: { rival: 'Bravo' } } });
    // The cool-down ends 15 minutes after the war was seen (at 120 s): chasing again, counting from nothing.
    const after = build([[2, formatDecimal(bravo)]], 120 + 900, memory);
    expect(after.rate).toBe(formatDecimal(bravo.plus('0.01')));
    expect(after.outcome.war).toBeUndefined();
    expect(after.memory['BTC>SBERRUB']).toMatchObject({ rounds: 0, pending: { rivalId: 2 } });
  });

  it('a direction not priced this build (paused, a stale quote) keeps its memory, a war in it too', () => {
    const kept: WarEntry = {
      rate: '1:4900000.01',
      rounds: 3,
      war: {
        rival: 'Bravo',
        rivalId: 2,
        rounds: 3,
        since: at(0).toISOString(),
        until: at(900).toISOString(),
        hold: '1:4900000.01',
      },
    };
    const result = competeDirections({
      priced: [],
      book,
      feeds: new Map(),
      now: at(60),
      memory: { 'BTC>SBERRUB': kept },
    });
    expect(result.memory).toEqual({ 'BTC>SBERRUB': kept });
  });

  it('with war detection off the memory stays empty and every answer is chased', () => {
    const off = competeRule({ worst: 1 });
    let memory: WarMemory = {};
    let bravo = new Decimal('4900000');
    for (let round = 0; round < 6; round++) {
      const result = build([[2, formatDecimal(bravo)]], round * 30, memory, off);
      memory = result.memory;
      expect(result.rate).toBe(formatDecimal(bravo.plus('0.01')));
      bravo = new Decimal(result.rate).plus('0.01');
    }
    expect(memory).toEqual({});
  });
});
