// referenceDirections: a market one source alone sets, held to what else the build tells of it — other sources'
// quotes, a consensus's other terms, a cross, BestChange rivals — and never to the same source again, nor to a
// failing one; past the band it is withheld (kind `reference`) with both values and their sources.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import { type Formula, parseFormula } from '../../../../src/base/config/formula.js';
import type { Direction, ReferenceSettings } from '../../../../src/model/config.js';
import type { Quote } from '../../../../src/model/source.js';
import type { RatesFile } from '../../../../src/model/rates.js';
import type { BestChangeFeed, CompetitorRow } from '../../../../src/pure/bestchange/feed.js';
import type { FeedState } from '../../../../src/pure/compete/contest.js';
import { referenceDirections, type RivalFeed } from '../../../../src/pure/guards/reference.js';
import { makeBook, type SourceQuotes } from '../../../../src/pure/rates/book.js';
import { ruleOrder, rulesOf } from '../../../../src/pure/rates/rules.js';
import { priceDirections } from '../../../../src/pure/pricing/price.js';
import { testCurrency, testDirection } from '../../../support/model.js';

const now = new Date('2026-11-28T00:00:00Z');

function quote(source: string, pair: string, bid: string, ask: string): Quote {
  const [base = '', other = ''] = pair.split('/');
  return { pair, base, quote: other, bid: new Decimal(bid), ask: new Decimal(ask), time: now, source };
}

const list = (source: string, ...quotes: [pair: string, bid: string, ask: string][]): SourceQuotes => ({
  source,
  quotes: quotes.map(([pair, bid, ask]) => quote(source, pair, bid, ask)),
});

const BTC = testCurrency('BTC', 'BTC', 8);
const USDT = testCurrency('USDTTRC20', 'USDT', 2);
const SBER = testCurrency('SBERRUB', 'RUB', 2);
const btcUsdt = testDirection(BTC, USDT);
const usdtRub = testDirection(USDT, SBER);
const btcRub = testDirection(BTC, SBER);

const settings = (extra: Partial<ReferenceSettings> = {}): ReferenceSettings => ({
  band: new Decimal('0.03'),
  rivalsBand: new Decimal('0.1'),
  rivals: 5,
  pairs: new Map(),
  ...extra,
});

interface Run {
  lists: SourceQuotes[];
  rates?: RatesFile;
  directions?: Direction[];
  feeds?: RivalFeed[];
  settings?: ReferenceSettings;
}

function run({ lists, rates = {}, directions = [btcUsdt], feeds = [], settings: given = settings() }: Run) {
  const ordered = ruleOrder(rulesOf(rates));
  const rules = 'order' in ordered ? ordered.order : [];
  const { book, derivations } = makeBook(lists, rules, now);
  const { priced } = priceDirections(directions, book);
  return referenceDirections({ priced, lists, derivations, book, feeds, settings: given });
}

const honest = list('a', ['BTC/USDT', '97000', '97010'], ['USDT/RUB', '92.10', '92.30']);
const broken = list('a', ['BTC/USDT', '97000000', '97010000'], ['USDT/RUB', '92.10', '92.30']);

describe('a market one source alone sets', () => {
  it("agrees with another source's quote of it: published, its reference and band kept on the direction", () => {
    const result = run({ lists: [honest, list('b', ['BTC/USDT', '97100', '97120'])] });
    expect(result.withheld).toEqual([]);
    const [priced] = result.priced;
    expect(priced!.reference).toMatchObject({ from: 'b:BTC/USDT', sources: ['a'], pairs: ['BTC/USDT (a)'] });
    expect(priced!.reference!.value.toFixed()).toBe('97100');
    expect(priced!.reference!.deviation.toSignificantDigits(3).toFixed()).toBe('0.00103');
    expect(priced!.reference!.band.toFixed()).toBe('0.03');
    expect(result.soleSource.map((s) => [s.directions.map((p) => p.direction.id), s.reference?.from])).toEqual([
      [['BTC>USDTTRC20'], 'b:BTC/USDT'],
    ]);
  });

  it('1000× off the other source: withheld as `reference`, naming both values and both sources', () => {
    const result = run({ lists: [broken, list('b', ['BTC/USDT', '97100', '97120'])] });
    expect(result.priced).toEqual([]);
    expect(result.withheld).toHaveLength(1);
    const [held] = result.withheld;
    expect(held!.kind).toBe('reference');
    expect(held!.reason).toBe(
      'its market 97000000 (BTC/USDT (a)) is 99800% from its reference 97100 (b:BTC/USDT), past its band of 3%',
    );
    // What explain and the status read: the direction as priced, its reference on it.
    expect(result.checked[0]!.reference!.from).toBe('b:BTC/USDT');
  });

  it('a band exactly reached is not past it; past it by a hair is', () => {
    const at = run({ lists: [list('a', ['BTC/USDT', '103', '104']), list('b', ['BTC/USDT', '100', '101'])] });
    expect(at.withheld).toEqual([]);
    const past = run({ lists: [list('a', ['BTC/USDT', '103.0001', '104']), list('b', ['BTC/USDT', '100', '101'])] });
    expect(past.withheld.map((w) => w.kind)).toEqual(['reference']);
  });

  it('compares like sides: the bid it sells at with the bid of the reference, never a mid with a side', () => {
    // Both bids agree; the reference's ask is far away: the direction selling BTC reads bids only.
    const result = run({ lists: [list('a', ['BTC/USDT', '100', '101']), list('b', ['BTC/USDT', '100', '150'])] });
    expect(result.priced[0]!.reference!.deviation.isZero()).toBe(true);
    // Buying BTC reads the asks: 1/101 against 1/150.
    const back = run({
      lists: [list('a', ['BTC/USDT', '100', '101']), list('b', ['BTC/USDT', '100', '150'])],
      directions: [testDirection(USDT, BTC)],
    });
    expect(back.withheld.map((w) => w.kind)).toEqual(['reference']);
  });

  it('with only its own source there is no reference: listed as priced by one source, published as before', () => {
    const result = run({ lists: [honest] });
    expect(result.priced.map((p) => p.reference)).toEqual([undefined]);
    expect(result.soleSource.map((s) => [s.sources, s.pairs, s.reference])).toEqual([
      [['a'], ['BTC/USDT (a)'], undefined],
    ]);
  });

  it("is never checked against a cross through the same source's other quotes (all of them 1000× off at once)", () => {
    const kopecks = list(
      'a',
      ['BTC/USDT', '97000000', '97010000'],
      ['BTC/EUR', '90000000', '90010000'],
      ['EUR/USDT', '1.07', '1.08'],
    );
    const result = run({ lists: [kopecks] });
    expect(result.priced[0]!.reference).toBeUndefined();
  });

  it('takes a cross through other sources when none quotes the pair itself', () => {
    const result = run({
      lists: [broken, list('b', ['BTC/EUR', '90000', '90010']), list('c', ['EUR/USDT', '1.077', '1.078'])],
    });
    expect(result.withheld[0]!.reference!.from).toBe('cross b:BTC/EUR × c:EUR/USDT');
    expect(result.withheld[0]!.reference!.value.toFixed()).toBe('96930');
  });

  it('the median of several other sources, so one of them gone wrong too does not decide', () => {
    const result = run({
      lists: [
        honest,
        list('b', ['BTC/USDT', '97100', '97120']),
        list('c', ['BTC/USDT', '97050', '97060']),
        list('d', ['BTC/USDT', '9705000', '9706000']),
      ],
    });
    expect(result.priced[0]!.reference).toMatchObject({ from: 'median of b:BTC/USDT, c:BTC/USDT, d:BTC/USDT' });
    expect(result.priced[0]!.reference!.value.toFixed()).toBe('97100');
  });

  it('a failing source is no reference, even with its last good quotes standing in', () => {
    const b = {
      ...list('b', ['BTC/USDT', '97100', '97120']),
      error: 'GET /ticker: HTTP 503 (using its last good quotes)',
    };
    const result = run({ lists: [broken, b] });
    expect(result.priced[0]!.reference).toBeUndefined();
    expect(result.withheld).toEqual([]);
  });

  it('a chain of two sources: each step against its own reference, the reference independent of both', () => {
    const result = run({
      lists: [
        list('a', ['BTC/USDT', '97000', '97010']),
        list('p2p', ['USDT/RUB', '9210', '9230']),
        list('b', ['BTC/USDT', '97100', '97120'], ['USDT/RUB', '92.0', '92.4']),
      ],
      directions: [btcRub],
    });
    const [held] = result.withheld;
    expect(held!.reference).toMatchObject({
      from: 'BTC/USDT: b:BTC/USDT; USDT/RUB: b:USDT/RUB',
      sources: ['a', 'p2p'],
      pairs: ['BTC/USDT (a)', 'USDT/RUB (p2p)'],
    });
  });

  it('checks the steps it can and names the ones it cannot', () => {
    const result = run({
      lists: [
        list('a', ['BTC/USDT', '97000', '97010']),
        list('p2p', ['USDT/RUB', '92.1', '92.3']),
        list('b', ['BTC/USDT', '97100', '97120']),
      ],
      directions: [btcRub],
    });
    expect(result.priced[0]!.reference).toMatchObject({ from: 'BTC/USDT: b:BTC/USDT', unchecked: ['USDT/RUB (p2p)'] });
  });
});

describe('a pair of `rates:`', () => {
  it("a consensus of three within its spread is nobody's alone: no reference needed, not listed", () => {
    const rates: RatesFile = { 'BTC/USDT': { sources: ['a', 'b', 'c'], method: 'median', spread: '1%' } };
    const lists = [honest, list('b', ['BTC/USDT', '97100', '97120']), list('c', ['BTC/USDT', '97050', '97060'])];
    const result = run({ lists, rates });
    expect(result.soleSource).toEqual([]);
    expect(result.priced[0]!.reference).toBeUndefined();
  });

  it('a consensus of quorum 1 with one fresh term is that source alone: held to another source of the pair', () => {
    const rates: RatesFile = { 'BTC/USDT': { sources: ['a', 'b'], method: 'median', quorum: 1, spread: '1%' } };
    const lists = [broken, { source: 'b', quotes: [], error: 'HTTP 503' }, list('c', ['BTC/USDT', '97050', '97060'])];
    const result = run({ lists, rates });
    expect(result.withheld[0]).toMatchObject({ kind: 'reference', reference: { from: 'c:BTC/USDT', sources: ['a'] } });
  });

  it("a consensus one source outweighs is held to the consensus's other term", () => {
    const rates: RatesFile = {
      'USDT/RUB': { sources: ['a', 'a:USDT/EUR * b:EUR/RUB', 'c:USDT/USD * d:USD/RUB'], method: 'median' },
    };
    const lists = [
      list('a', ['USDT/RUB', '9210', '9230'], ['USDT/EUR', '92', '93']),
      list('b', ['EUR/RUB', '100', '100.1']),
      list('c', ['USDT/USD', '0.999', '1.001']),
      list('d', ['USD/RUB', '92.2', '92.25']),
    ];
    const result = run({ lists, rates, directions: [usdtRub] });
    expect(result.withheld[0]).toMatchObject({
      kind: 'reference',
      reference: { from: 'c:USDT/USD * d:USD/RUB', sources: ['a'], pairs: ['USDT/RUB (a)'] },
    });
  });

  it("a formula over one source's quotes is that source's: held to another source of the pair it makes", () => {
    const rates: RatesFile = { 'BTC/RUB': parseFormula('a:BTC/USDT * a:USDT/RUB') as Formula };
    const lists = [broken, list('b', ['BTC/RUB', '8930000', '8940000'])];
    const result = run({ lists, rates, directions: [btcRub] });
    expect(result.withheld[0]).toMatchObject({
      kind: 'reference',
      reference: { from: 'b:BTC/RUB', pairs: ['BTC/RUB (a)'] },
    });
  });
});

describe('bands', () => {
  const lists = [list('a', ['BTC/USDT', '104', '105']), list('b', ['BTC/USDT', '100', '101'])];

  it("a pair's own band (guards.reference.pairs, either way round) and a direction's own (referenceBand)", () => {
    expect(run({ lists }).withheld).toHaveLength(1);
    const wide = settings({ pairs: new Map([['BTC/USDT', new Decimal('0.05')]]) });
    expect(run({ lists, settings: wide }).priced[0]!.reference!.band.toFixed()).toBe('0.05');
    const own = testDirection(BTC, USDT, { referenceBand: new Decimal('0.01') });
    expect(run({ lists, settings: wide, directions: [own] }).withheld[0]!.reference!.band.toFixed()).toBe('0.01');
  });
});

describe('BestChange rivals', () => {
  const row = (exchangerId: number, get: string): CompetitorRow => ({
    exchangerId,
    exchanger: `#${exchangerId}`,
    give: '1',
    get,
    reserve: '1000000',
  });
  const feed = (rows: CompetitorRow[]): BestChangeFeed => ({
    directions: new Map([['BTC>USDTTRC20', rows]]),
    rows: rows.length,
    layout: 11,
    currencies: new Set(['BTC', 'USDTTRC20']),
    exchangers: new Map(),
    cities: new Map(),
    unmappedCities: [],
  });
  const field = [row(1, '96000'), row(2, '95500'), row(3, '95900'), row(4, '95000'), row(5, '94000'), row(6, '1')];
  const rivals = (state: FeedState, self: number[] = []): RivalFeed[] => [{ name: 'bc', state, self: new Set(self) }];

  it('the median of the best five rivals, with the wider band their margins need', () => {
    const result = run({ lists: [honest], feeds: rivals({ feed: feed(field), ageSeconds: 10, maxAgeSeconds: 120 }) });
    expect(result.priced[0]!.reference).toMatchObject({ from: 'BestChange rivals on bc (median of the best 5)' });
    expect(result.priced[0]!.reference!.value.toFixed()).toBe('95500');
    expect(result.priced[0]!.reference!.band.toFixed()).toBe('0.1');
  });

  it('×1.5 off the field: withheld; our own listing (self) never counts as a rival', () => {
    const high = list('a', ['BTC/USDT', '145500', '145600']);
    expect(run({ lists: [high], feeds: rivals({ feed: feed(field) }) }).withheld[0]!.kind).toBe('reference');
    const ours = [row(40, '145000'), row(41, '145100'), row(42, '145200'), ...field];
    expect(run({ lists: [high], feeds: rivals({ feed: feed(ours) }, [40, 41, 42]) }).withheld).toHaveLength(1);
  });

  it('a feed past its maxAge, failing, or with fewer than three rivals is no reference', () => {
    const old = run({ lists: [honest], feeds: rivals({ feed: feed(field), ageSeconds: 300, maxAgeSeconds: 120 }) });
    const failing = run({ lists: [honest], feeds: rivals({ feed: feed(field), error: 'HTTP 502' }) });
    const thin = run({ lists: [honest], feeds: rivals({ feed: feed(field.slice(0, 2)) }) });
    for (const result of [old, failing, thin]) expect(result.priced[0]!.reference).toBeUndefined();
  });

  it("other sources' quotes of every step come first; the rivals cover what they do not", () => {
    const withQuote = run({
      lists: [honest, list('b', ['BTC/USDT', '97100', '97120'])],
      feeds: rivals({ feed: feed(field) }),
    });
    expect(withQuote.priced[0]!.reference!.from).toBe('b:BTC/USDT');
  });
});
