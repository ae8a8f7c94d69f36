// guardDirections and the guards around it: working hours (own, default and manualHours), stale quotes,
// sanity, and the jump guard with confirmations, accept requests and its memory in .ratefile/guard.json.
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../../../../src/io/build/build.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { runCycle } from '../../../../src/io/build/cycle.js';
import { Decimal } from '../../../../src/base/decimal.js';
import {
  emptyGuardState,
  guardDirections,
  staleHold,
  withinJump,
  type GuardInput,
  type GuardResult,
  type GuardState,
} from '../../../../src/pure/guards/guards.js';
import type { Config, Direction } from '../../../../src/model/config.js';
import { priceDirections } from '../../../../src/pure/pricing/price.js';
import type { Quote, QuoteBook } from '../../../../src/model/source.js';
import { GUARD_AT_LAG_MS, readGuardState, requestAccept } from '../../../../src/io/state/state.js';
import {
  projectsPerTest,
  sampleConfig,
  sampleQuotes,
  writeSampleQuotes,
  type Project,
} from '../../../support/project.js';
import { random } from '../../../support/random.js';
import type { PricedDirection } from '../../../../src/model/priced.js';
import { show } from '../../../../src/base/words.js';

const friday = new Date('2026-11-20T12:00:00Z');
const saturday = new Date('2026-11-21T12:00:00Z');

const project = projectsPerTest();

/** The sample's quotes stamped 12:00:00, as a back office that dates its quotes writes them. */
const stampedQuotes = JSON.stringify({
  quotes: sampleQuotes.quotes.map((quote) => ({ ...quote, time: '2026-11-21T12:00:00Z' })),
});

async function configOf(yaml: string): Promise<Config> {
  const made = await project({ 'ratefile.config.yaml': yaml, 'quotes.json': stampedQuotes });
  return loadConfig(made.configPath);
}

interface QuoteSpec {
  pair: string;
  bid: string;
  ask: string;
  time?: Date;
  source?: string;
}

function quoteOf(spec: QuoteSpec, now: Date): Quote {
  const [base = '', quote = ''] = spec.pair.split('/');
  return {
    pair: spec.pair,
    base,
    quote,
    bid: new Decimal(spec.bid),
    ask: new Decimal(spec.ask),
    time: spec.time ?? now,
    source: spec.source ?? 'backoffice',
  };
}

/** The sample quotes, BTC/USDT scaled by `btc`: every BTC direction's rate moves by exactly that factor. */
function sampleBook(
  now: Date,
  btc = '1',
  overrides: Partial<Record<'btc' | 'usdt', Partial<QuoteSpec>>> = {},
): QuoteBook {
  const factor = new Decimal(btc);
  const specs: QuoteSpec[] = [
    {
      pair: 'BTC/USDT',
      bid: factor.times('97012.30').toFixed(),
      ask: factor.times('97012.31').toFixed(),
      ...overrides.btc,
    },
    { pair: 'USDT/RUB', bid: '92.10', ask: '92.35', ...overrides.usdt },
  ];
  return new Map(specs.map((spec) => [spec.pair, quoteOf(spec, now)]));
}

function priced(config: Config, book: QuoteBook): PricedDirection[] {
  const result = priceDirections(config.directions, book);
  expect(result.withheld, 'every direction of the sample prices').toEqual([]);
  return result.priced;
}

function guard(input: Partial<GuardInput> & Pick<GuardInput, 'priced'>, config?: Config): GuardResult {
  return guardDirections({
    now: friday,
    state: emptyGuardState(),
    accepted: new Set(),
    guards: config?.guards ?? defaultGuards,
    maxAgeMs: () => undefined,
    ...input,
  });
}

/** The defaults: maxJump 10%, hardJump three times it, three answers. */
const defaultGuards = { maxJump: new Decimal('0.1'), hardJump: new Decimal('0.3'), confirmAnswers: 3 };

const ids = (list: readonly { direction: Direction }[]) => list.map((entry) => entry.direction.id);
const reasonOf = (result: GuardResult, id: string) => result.withheld.find((w) => w.direction.id === id)?.reason;

describe('first publication', () => {
  it('has no reference: any rate is published and becomes the reference', async () => {
    const config = await configOf(sampleConfig);
    const result = guard({ priced: priced(config, sampleBook(friday, '5')) });
    expect(result.withheld).toEqual([]);
    expect(ids(result.published)).toEqual(config.directions.map((d) => d.id));
    const btc = result.published.find((p) => p.direction.id === 'BTC>SBERRUB');
    expect(result.state.published['BTC>SBERRUB']).toEqual({ rate: btc?.rate.toString(), at: friday.toISOString() });
    expect(result.state.pending).toEqual({});
    expect(result.acceptedUsed).toEqual([]);
  });
});

describe('first publication bounded by the export files on disk (`lastExports`)', () => {
  const reference = {
    value: new Decimal(1),
    from: 'bybit:BTC/USDT',
    deviation: new Decimal(0),
    band: new Decimal('0.05'),
    sources: ['binance'],
    pairs: ['BTC/USDT (binance)'],
  };

  it('a direction guard.json does not know is measured from the files; one they lack is published; all are kept', async () => {
    const config = await configOf(sampleConfig);
    const base = guard({ priced: priced(config, sampleBook(friday)) }).state.published;
    const lastExports = new Map(
      ['BTC>SBERRUB', 'SBERRUB>USDTTRC20'].map((id) => [id, { ...base[id]!, file: 'parserfile.xml' }]),
    );
    const result = guard({ priced: priced(config, sampleBook(friday, '2')), lastExports });
    expect(ids(result.withheld)).toEqual(['BTC>SBERRUB']);
    expect(reasonOf(result, 'BTC>SBERRUB')).toMatch(
      /^rate moved ×2, \+100% from the last published .* \(parserfile\.xml\) to /,
    );
    expect(ids(result.published)).toEqual(['BTC>USDTTRC20', 'SBERRUB>USDTTRC20', 'USDTTRC20>CASHRUB']);
    expect(result.state.published['BTC>SBERRUB']).toEqual(lastExports.get('BTC>SBERRUB'));
    // guard.json's own rate wins over the files'.
    const known = guard({
      priced: priced(config, sampleBook(friday, '2')),
      lastExports,
      state: { published: { 'BTC>SBERRUB': { rate: '1', at: 'then' } }, pending: {} },
    });
    expect(reasonOf(known, 'BTC>SBERRUB')).toMatch(/from the last published 1 to /);
  });

  it('a direction an independent reference checks: the reference decides its first rate, not the files', async () => {
    const config = await configOf(sampleConfig);
    const base = guard({ priced: priced(config, sampleBook(friday)) }).state.published;
    const file = { ...base['BTC>SBERRUB']!, file: 'parserfile.xml' };
    const checked = priced(config, sampleBook(friday, '2')).map((p) => ({ ...p, reference }));
    const fromFiles = guard({ priced: checked, lastExports: new Map([['BTC>SBERRUB', file]]) });
    expect(fromFiles.withheld).toEqual([]);
    // Nor a rate guard.json kept from the files: only rates a build published bound a referenced direction.
    const kept = guard({ priced: checked, state: { published: { 'BTC>SBERRUB': file }, pending: {} } });
    expect(kept.withheld).toEqual([]);
  });
});

describe('working hours', () => {
  const withHours = sampleConfig.replace(
    '- { from: BTC, to: [SBERRUB, USDTTRC20], min: 0.001, max: "500000 RUB", tags: [ref] }',
    '- { from: BTC, to: [SBERRUB, USDTTRC20], min: 0.001, max: "500000 RUB", tags: [ref], hours: ["Mon-Fri 09:00-13:00 UTC", "Mon-Fri 14:00-18:00 UTC"] }',
  );

  it.each([
    ['Friday 12:00 UTC', true, friday],
    ['Friday 13:30 UTC (between the windows)', false, new Date('2026-11-20T13:30:00Z')],
    ['Friday 17:59 UTC', true, new Date('2026-11-20T17:59:00Z')],
    ['Saturday 12:00 UTC', false, saturday],
  ])('a direction with hours at %s: published %s', async (_name, open, now) => {
    const config = await configOf(withHours);
    expect(config.directions.find((d) => d.id === 'BTC>SBERRUB')?.hours?.map((h) => h.text)).toEqual([
      'Mon-Fri 09:00-13:00 UTC',
      'Mon-Fri 14:00-18:00 UTC',
    ]);
    const result = guard({ priced: priced(config, sampleBook(now)), now });
    for (const id of ['BTC>SBERRUB', 'BTC>USDTTRC20']) {
      if (open) {
        expect(ids(result.published)).toContain(id);
      } else {
        expect(ids(result.published)).not.toContain(id);
        expect(reasonOf(result, id)).toBe('outside working hours (Mon-Fri 09:00-13:00 UTC; Mon-Fri 14:00-18:00 UTC)');
      }
    }
    // Directions without hours are never touched by them.
    expect(ids(result.published)).toEqual(expect.arrayContaining(['SBERRUB>USDTTRC20', 'USDTTRC20>CASHRUB']));
  });

  it('out of hours does not become the reference: the last published rate stays', async () => {
    const config = await configOf(withHours);
    const before = guard({ priced: priced(config, sampleBook(friday)) });
    const after = guard({ priced: priced(config, sampleBook(saturday, '2')), now: saturday, state: before.state });
    expect(reasonOf(after, 'BTC>SBERRUB')).toMatch(/^outside working hours/);
    expect(after.state.published['BTC>SBERRUB']).toEqual(before.state.published['BTC>SBERRUB']);
  });

  const manual = `${sampleConfig.replace(
    '- { from: USDTTRC20, to: CASHRUB, cities: [MSK, SPB], tags: [ref, cash] }',
    '- { from: USDTTRC20, to: CASHRUB, cities: [MSK, SPB], tags: [ref, cash], params: [manual], hours: "Sat 10:00-14:00 UTC" }',
  )}manualHours: "Mon-Fri 09:00-18:00 UTC"\n`;

  it('manualHours applies to manual directions without hours of their own, and to nothing else', async () => {
    const config = await configOf(manual);
    const hoursOf = (id: string) => config.directions.find((d) => d.id === id)?.hours?.map((h) => h.text);
    expect(hoursOf('BTC>SBERRUB')).toBeUndefined();
    expect(hoursOf('BTC>USDTTRC20')).toBeUndefined();
    expect(hoursOf('SBERRUB>USDTTRC20')).toEqual(['Mon-Fri 09:00-18:00 UTC']); // manual, no own hours
    expect(hoursOf('USDTTRC20>CASHRUB')).toEqual(['Sat 10:00-14:00 UTC']); // manual, own hours win

    const onSaturday = guard({ priced: priced(config, sampleBook(saturday)), now: saturday });
    expect(ids(onSaturday.published)).toEqual(['BTC>SBERRUB', 'BTC>USDTTRC20', 'USDTTRC20>CASHRUB']);
    expect(onSaturday.withheld.map((w) => [w.direction.id, w.reason])).toEqual([
      ['SBERRUB>USDTTRC20', 'outside working hours (Mon-Fri 09:00-18:00 UTC)'],
    ]);

    const onFriday = guard({ priced: priced(config, sampleBook(friday)), now: friday });
    expect(ids(onFriday.published)).toEqual(['BTC>SBERRUB', 'BTC>USDTTRC20', 'SBERRUB>USDTTRC20']);
    expect(onFriday.withheld.map((w) => [w.direction.id, w.reason])).toEqual([
      ['USDTTRC20>CASHRUB', 'outside working hours (Sat 10:00-14:00 UTC)'],
    ]);
  });

  it('manualHours follows `manual` given in defaults, and a direction whose own params drop it is not manual', async () => {
    const yaml = `${sampleConfig
      .replace('  margin: 1.5%\n', '  margin: 1.5%\n  params: [manual]\n')
      .replace(
        'params: [manual], fromfee: "1%"',
        'params: [verifying], fromfee: "1%"',
      )}manualHours: "Mon-Fri 09:00-18:00 UTC"\n`;
    const config = await configOf(yaml);
    const manualIds = config.directions.filter((d) => d.hours !== undefined).map((d) => d.id);
    expect(manualIds).toEqual(['BTC>SBERRUB', 'BTC>USDTTRC20', 'USDTTRC20>CASHRUB']);
    expect(config.directions.find((d) => d.id === 'SBERRUB>USDTTRC20')?.params).toEqual(['verifying']);
  });

  it('hours in defaults apply to every direction that sets none', async () => {
    const yaml = sampleConfig
      .replace('  margin: 1.5%\n', '  margin: 1.5%\n  hours: "Mon-Fri 09:00-18:00 UTC"\n')
      .replace('params: [manual], fromfee: "1%"', 'params: [manual], fromfee: "1%", hours: "Sat-Sun 00:00-24:00 UTC"');
    const config = await configOf(yaml);
    const result = guard({ priced: priced(config, sampleBook(saturday)), now: saturday });
    expect(ids(result.published)).toEqual(['SBERRUB>USDTTRC20']);
    expect(result.withheld).toHaveLength(3);
  });
});

describe('stale quotes', () => {
  const minute = 60_000;

  it.each([
    // [what, withheld, quote age ms, limit ms]
    ['fresh', false, 10_000, minute],
    ['exactly at the limit', false, minute, minute],
    ['one second over', true, minute + 1_000, minute],
    ['five minutes old', true, 5 * minute, minute],
    ['a year old without a limit', false, 365 * 24 * 60 * minute, undefined],
  ])('%s: withheld %s', async (_what, withheld, age, limit) => {
    const config = await configOf(sampleConfig);
    const old = new Date(friday.getTime() - age);
    const book = sampleBook(friday, '1', { usdt: { time: old } });
    const result = guard({
      priced: priced(config, book),
      maxAgeMs: (source) => (source === 'backoffice' ? limit : undefined),
    });
    // Every direction of the sample but BTC>USDTTRC20 needs USDT/RUB.
    if (withheld) {
      expect(ids(result.published)).toEqual(['BTC>USDTTRC20']);
      for (const id of ['BTC>SBERRUB', 'SBERRUB>USDTTRC20', 'USDTTRC20>CASHRUB']) {
        expect(reasonOf(result, id)).toBe(
          `quote USDT/RUB from backoffice is ${Math.round(age / 1000)} s old (limit ${Math.round((limit ?? 0) / 1000)} s)`,
        );
      }
    } else {
      expect(result.withheld).toEqual([]);
    }
  });

  it('names the pair and source that is stale, and takes out only the directions that use it', async () => {
    const config = await configOf(sampleConfig);
    const book = sampleBook(friday, '1', {
      btc: { source: 'exchange', time: new Date(friday.getTime() - 120_000) },
      usdt: { source: 'bank', time: new Date(friday.getTime() - 3_600_000) },
    });
    const limits: Record<string, number> = { exchange: 30_000 }; // the bank has no limit
    const result = guard({ priced: priced(config, book), maxAgeMs: (source) => limits[source] });
    expect(ids(result.published)).toEqual(['SBERRUB>USDTTRC20', 'USDTTRC20>CASHRUB']);
    expect(reasonOf(result, 'BTC>SBERRUB')).toBe('quote BTC/USDT from exchange is 120 s old (limit 30 s)');
    expect(reasonOf(result, 'BTC>USDTTRC20')).toBe('quote BTC/USDT from exchange is 120 s old (limit 30 s)');
  });

  it('a source’s `maxAge` in the config takes out the directions that use its older quotes', async () => {
    const config = await configOf(
      sampleConfig.replace(
        'backoffice: { type: file, path: quotes.json }',
        'backoffice: { type: file, path: quotes.json, maxAge: 5m }',
      ),
    );
    // The sample quotes are stamped 12:00:00.
    const late = await build(config, { now: () => new Date('2026-11-21T12:10:00Z') });
    expect(late.report.priced).toEqual([]);
    expect(late.report.withheld.map((w) => [w.direction.id, w.reason])).toEqual([
      ['BTC>SBERRUB', 'quote BTC/USDT from backoffice is 600 s old (limit 300 s)'],
      ['BTC>USDTTRC20', 'quote BTC/USDT from backoffice is 600 s old (limit 300 s)'],
      ['SBERRUB>USDTTRC20', 'quote USDT/RUB from backoffice is 600 s old (limit 300 s)'],
      ['USDTTRC20>CASHRUB', 'quote USDT/RUB from backoffice is 600 s old (limit 300 s)'],
    ]);
    const inTime = await build(config, { now: () => new Date('2026-11-21T12:04:59Z') });
    expect(inTime.report.withheld).toEqual([]);
    // Without maxAge: twice the schedule period (60 s); with `maxAge: "off"`, no limit.
    const byDefault = await build(await configOf(sampleConfig), { now: () => new Date('2026-11-21T12:01:01Z') });
    expect(byDefault.report.withheld.map((w) => w.reason)).toContain(
      'quote BTC/USDT from backoffice is 61 s old (limit 60 s)',
    );
    const off = sampleConfig.replace(
      'backoffice: { type: file, path: quotes.json }',
      'backoffice: { type: file, path: quotes.json, maxAge: "off" }',
    );
    const unlimited = await build(await configOf(off), { now: () => new Date('2026-12-21T12:00:00Z') });
    expect(unlimited.report.withheld).toEqual([]);
  });
});

describe('sanity', () => {
  it.each([
    ['zero', new Decimal(0)],
    ['negative', new Decimal(-93)],
    ['not a number', new Decimal(NaN)],
    ['infinite', new Decimal(Infinity)],
  ])('a %s rate is withheld', async (_what, rate) => {
    const config = await configOf(sampleConfig);
    const [first, ...rest] = priced(config, sampleBook(friday));
    if (!first) throw new Error('no priced direction');
    const result = guard({ priced: [{ ...first, rate }, ...rest] });
    expect(reasonOf(result, first.direction.id)).toBe(`rate ${rate.toString()} is not a positive number`);
    expect(ids(result.published)).toEqual(rest.map((p) => p.direction.id));
    expect(result.state.published[first.direction.id]).toBeUndefined();
  });

  it.each([
    [
      'reserve below the minimum order',
      '{ from: BTC, to: SBERRUB, min: 0.01, reserve: "100" }',
      /^reserve 100 SBERRUB is below the minimum order 0\.01 BTC$/,
    ],
    [
      'a minimum above the maximum',
      '{ from: BTC, to: SBERRUB, min: "600000 RUB", max: "500000 RUB" }',
      /^minimum 0\.0\d+ BTC is above the maximum 0\.0\d+ BTC$/,
    ],
    ['no reserve', '{ from: BTC, to: SBERRUB, reserve: "0" }', /^no reserve of SBERRUB \(0 at 2 decimals\)$/],
    ['no quotes leading there', '{ from: BTC, to: CASHUSD }', /^no quotes lead from BTC to USD$/],
  ])('%s: withheld with the reason, the rest published', async (_what, entry, reason) => {
    const yaml = sampleConfig
      .replace(
        '  CASHRUB: { precision: 0, reserve: "3000000" }\n',
        '  CASHRUB: { precision: 0, reserve: "3000000" }\n  CASHUSD: { precision: 0, reserve: "3000" }\n',
      )
      .replace('directions:\n', `directions:\n  - ${entry}\n`)
      .replace('to: [SBERRUB, USDTTRC20]', 'to: [USDTTRC20]');
    const config = await configOf(yaml);
    const result = await build(config, { now: () => new Date('2026-11-21T12:00:10Z') });
    expect(result.report.withheld.map((w) => w.direction.index)).toEqual([0]);
    expect(result.report.withheld[0]?.reason).toMatch(reason);
    expect(result.report.priced.map((p) => p.direction.id)).toEqual([
      'BTC>USDTTRC20',
      'SBERRUB>USDTTRC20',
      'USDTTRC20>CASHRUB',
    ]);
  });
});

type Outcome = 'published' | 'held';

describe('jump guard', () => {
  interface JumpCase {
    name: string;
    maxJump?: string;
    /** Default: three times maxJump. */
    hardJump?: string;
    confirmAnswers: number;
    /** BTC/USDT factor of each build after a first publication at 1. */
    builds: string[];
    expected: Outcome[];
    /** Every hold is past the hard bound. */
    hard?: true;
  }

  const cases: JumpCase[] = [
    {
      name: '+20% held for 2 builds, published on the 3rd',
      confirmAnswers: 3,
      builds: ['1.2', '1.2', '1.2', '1.2'],
      expected: ['held', 'held', 'published', 'published'],
    },
    {
      name: '−20% likewise',
      confirmAnswers: 3,
      builds: ['0.8', '0.8', '0.8'],
      expected: ['held', 'held', 'published'],
    },
    { name: 'confirmAnswers 1 publishes at once', confirmAnswers: 1, builds: ['1.25'], expected: ['published'] },
    { name: 'confirmAnswers 2', confirmAnswers: 2, builds: ['1.25', '1.25'], expected: ['held', 'published'] },
    {
      name: 'confirmAnswers 5',
      confirmAnswers: 5,
      builds: ['1.2', '1.2', '1.2', '1.2', '1.2'],
      expected: ['held', 'held', 'held', 'held', 'published'],
    },
    { name: 'exactly 10% is not more than 10%', confirmAnswers: 3, builds: ['1.1'], expected: ['published'] },
    { name: 'just over 10%', confirmAnswers: 3, builds: ['1.1001'], expected: ['held'] },
    { name: 'exactly −10%', confirmAnswers: 3, builds: ['0.9'], expected: ['published'] },
    {
      name: 'maxJump 5%: 6% held, 4% published',
      maxJump: '0.05',
      confirmAnswers: 3,
      builds: ['1.06', '1.04'],
      expected: ['held', 'published'],
    },
    {
      name: 'back within the threshold resets the count',
      confirmAnswers: 3,
      builds: ['1.2', '1.2', '1.05', '1.3', '1.3', '1.3'],
      expected: ['held', 'held', 'published', 'held', 'held', 'published'],
    },
    {
      name: 'small steps move the reference along',
      confirmAnswers: 3,
      builds: ['1.09', '1.18', '1.28', '1.39'],
      expected: ['published', 'published', 'published', 'published'],
    },
    {
      name: 'exactly ×1.3 is not past the hard bound',
      confirmAnswers: 3,
      builds: ['1.3', '1.3', '1.3'],
      expected: ['held', 'held', 'published'],
    },
    {
      name: '÷1.2987 (0.77) is not past it',
      confirmAnswers: 2,
      builds: ['0.77', '0.77'],
      expected: ['held', 'published'],
    },
    {
      name: 'just past ×1.3 never confirms, however often seen',
      confirmAnswers: 3,
      builds: ['1.3001', '1.3001', '1.3001', '1.3001', '1.3001'],
      expected: ['held', 'held', 'held', 'held', 'held'],
      hard: true,
    },
    {
      name: '÷1.3004 (0.769) never confirms',
      confirmAnswers: 3,
      builds: ['0.769', '0.769', '0.769', '0.769'],
      expected: ['held', 'held', 'held', 'held'],
      hard: true,
    },
    {
      name: '×40 and ÷40 never confirm, even with confirmAnswers 1',
      confirmAnswers: 1,
      builds: ['40', '40', '0.025', '0.025'],
      expected: ['held', 'held', 'held', 'held'],
      hard: true,
    },
    {
      name: 'hardJump 100%: ×1.5 is counted, ×2.5 never',
      hardJump: '1',
      confirmAnswers: 3,
      builds: ['1.5', '1.5', '1.5', '3.75', '3.75', '3.75', '3.75'],
      expected: ['held', 'held', 'published', 'held', 'held', 'held', 'held'],
    },
  ];

  it.each(cases)('$name', async ({ maxJump, hardJump, confirmAnswers, builds, expected, hard }) => {
    const config = await configOf(sampleConfig);
    const max = new Decimal(maxJump ?? '0.1');
    const guards = { maxJump: max, hardJump: hardJump ? new Decimal(hardJump) : max.times(3), confirmAnswers };
    let state: GuardState = guard({ priced: priced(config, sampleBook(friday)), guards }).state;
    const base = new Decimal(state.published['BTC>SBERRUB']?.rate ?? NaN);
    let reference = base;
    let seen = 0;
    let counted: string[] = [];
    let lastHold: 'counted' | 'hard' | undefined;
    const outcomes: Outcome[] = [];
    builds.forEach((factor, index) => {
      const now = new Date(friday.getTime() + (index + 1) * 30_000);
      const result = guard({ priced: priced(config, sampleBook(now, factor)), guards, state, now });
      const held = !ids(result.published).includes('BTC>SBERRUB');
      outcomes.push(held ? 'held' : 'published');
      // Directions that did not move are never touched.
      expect(ids(result.published)).toEqual(expect.arrayContaining(['SBERRUB>USDTTRC20', 'USDTTRC20>CASHRUB']));
      const rate = base.times(factor);
      const withheld = result.withheld.find((w) => w.direction.id === 'BTC>SBERRUB');
      if (held) {
        const ratio = rate.div(reference);
        const isHard = ratio.greaterThan(guards.hardJump.plus(1)) || ratio.times(guards.hardJump.plus(1)).lessThan(1);
        // A count goes on after a counted hold; it starts at a first one, and past the hard bound nothing counts.
        seen = !isHard && lastHold === 'counted' ? seen + 1 : 1;
        lastHold = isHard ? 'hard' : 'counted';
        counted = seen === 1 ? [`backoffice@${now.toISOString()}`] : [...counted, `backoffice@${now.toISOString()}`];
        const moved = rate.minus(reference).abs().div(reference).times(100).toDecimalPlaces(2).toFixed();
        expect(withheld?.jump).toEqual({
          last: reference.toString(),
          rate: rate.toString(),
          sources: ['backoffice'],
          hard: isHard,
          command: 'ratefile accept BTC SBERRUB',
        });
        if (isHard)
          expect(withheld?.reason).toMatch(
            new RegExp(
              `^rate moved [×÷][0-9.]+, [+−][0-9.]+% from the last published ${show(reference)} to ${show(rate)}, from backoffice: past the hard bound ×${show(guards.hardJump.plus(1))} or ÷${show(guards.hardJump.plus(1))} \\(guards\\.hardJump ${guards.hardJump.times(100).toFixed()}%\\), it is published only by ratefile accept BTC SBERRUB$`,
            ),
          );
        else
          expect(withheld?.reason).toBe(
            `rate moved ${moved}% from the last published ${show(reference)} to ${show(rate)}; seen in ${seen} of ${confirmAnswers} distinct answers of backoffice (ratefile accept BTC SBERRUB to publish now)`,
          );
        expect(result.state.pending['BTC>SBERRUB']).toEqual({
          rate: rate.toString(),
          builds: seen,
          answers: counted,
          ...(isHard ? { hard: true } : {}),
        });
        expect(result.state.published['BTC>SBERRUB']?.rate).toBe(reference.toString());
      } else {
        seen = 0;
        lastHold = undefined;
        reference = rate;
        expect(result.state.pending['BTC>SBERRUB']).toBeUndefined();
        expect(result.state.published['BTC>SBERRUB']).toEqual({ rate: rate.toString(), at: now.toISOString() });
      }
      state = result.state;
    });
    expect(outcomes).toEqual(expected);
    if (hard) expect(outcomes.every((outcome) => outcome === 'held')).toBe(true);
  });

  it('counts distinct answers, never builds: the same answer seen again confirms nothing', async () => {
    const config = await configOf(sampleConfig);
    const first = guard({ priced: priced(config, sampleBook(friday)) });
    // One answer at 12:00:30, priced by three builds (a quote reused between fetches), then two new answers.
    const answer = new Date(friday.getTime() + 30_000);
    let state = first.state;
    const reasons: string[] = [];
    for (const [k, time] of [answer, answer, answer, new Date(friday.getTime() + 90_000), answer].entries()) {
      const now = new Date(friday.getTime() + (k + 1) * 30_000);
      const result = guard({ priced: priced(config, sampleBook(time, '1.2')), state, now });
      reasons.push(reasonOf(result, 'BTC>SBERRUB') ?? 'published');
      state = result.state;
    }
    expect(reasons.map((reason) => /seen in (\d) of 3/.exec(reason)?.[1] ?? reason)).toEqual(['1', '1', '1', '2', '2']);
    expect(state.pending['BTC>SBERRUB']?.answers).toEqual([
      `backoffice@${answer.toISOString()}`,
      `backoffice@${new Date(friday.getTime() + 90_000).toISOString()}`,
    ]);
    // A third distinct answer confirms it.
    const third = guard({ priced: priced(config, sampleBook(new Date(friday.getTime() + 150_000), '1.2')), state });
    expect(ids(third.published)).toContain('BTC>SBERRUB');
  });

  it('a chain of two sources confirms only when both answered anew', async () => {
    const config = await configOf(sampleConfig);
    const first = guard({ priced: priced(config, sampleBook(friday)) });
    const t = (seconds: number) => new Date(friday.getTime() + seconds * 1000);
    // BTC/USDT from a venue asked every build, USDT/RUB from one asked every minute.
    const book = (btc: number, usdt: number) =>
      sampleBook(t(btc), '1.2', { btc: { source: 'venue' }, usdt: { source: 'fixing', time: t(usdt) } });
    let state = first.state;
    const seen: string[] = [];
    for (const [btc, usdt] of [
      [30, 30],
      [60, 30],
      [90, 90],
      [120, 90],
      [150, 150],
    ] as const) {
      const result = guard({ priced: priced(config, book(btc, usdt)), state, now: t(btc) });
      seen.push(
        /seen in (\d) of 3 distinct answers of (.*) \(/
          .exec(reasonOf(result, 'BTC>SBERRUB') ?? '')
          ?.slice(1)
          .join(' ') ?? 'published',
      );
      state = result.state;
    }
    expect(seen).toEqual(['1 fixing, venue', '1 fixing, venue', '2 fixing, venue', '2 fixing, venue', 'published']);
  });

  it('the config: hardJump three times maxJump unless set; confirmBuilds read as confirmAnswers, not both', async () => {
    expect((await configOf(sampleConfig)).guards).toEqual(defaultGuards);
    const set = await configOf(`${sampleConfig}guards: { maxJump: 5%, confirmBuilds: 4 }\n`);
    expect(set.guards).toEqual({ maxJump: new Decimal('0.05'), hardJump: new Decimal('0.15'), confirmAnswers: 4 });
    const wide = await configOf(`${sampleConfig}guards: { hardJump: 400%, confirmAnswers: 2 }\n`);
    expect(wide.guards).toEqual({ maxJump: new Decimal('0.1'), hardJump: new Decimal('4'), confirmAnswers: 2 });
    const problem = (yaml: string) =>
      configOf(`${sampleConfig}${yaml}`).then(
        () => [],
        (error: { details?: string[] }) => error.details,
      );
    expect(await problem('guards: { confirmAnswers: 2, confirmBuilds: 2 }\n')).toEqual([
      'guards.confirmBuilds: expected confirmAnswers or its older name confirmBuilds, not both (line 15)',
    ]);
    expect(await problem('guards: { maxJump: 20%, hardJump: 15% }\n')).toEqual([
      'guards.hardJump: expected a percentage above maxJump (20%), got "15%" (line 15)',
    ]);
  });

  it('a guard.json written before answers were counted loads, and its pending entry counts the next answer', async () => {
    const config = await configOf(sampleConfig);
    const first = guard({ priced: priced(config, sampleBook(friday)) });
    const jumped = priced(config, sampleBook(friday, '1.2'));
    const rate = jumped.find((p) => p.direction.id === 'BTC>SBERRUB')!.rate.toString();
    const old: GuardState = { ...first.state, pending: { 'BTC>SBERRUB': { rate, builds: 2 } } };
    const result = guard({ priced: jumped, state: old });
    expect(ids(result.published)).toContain('BTC>SBERRUB');
  });

  it('a pending confirmation survives a build out of hours without advancing', async () => {
    const config = await configOf(sampleConfig);
    const first = guard({ priced: priced(config, sampleBook(friday)) });
    const once = guard({ priced: priced(config, sampleBook(friday, '1.2')), state: first.state });
    expect(once.state.pending['BTC>SBERRUB']?.builds).toBe(1);
    // The next build's quote is stale: the direction is out, and its confirmation is kept as it was.
    const stale = guard({
      priced: priced(config, sampleBook(friday, '1.2', { btc: { time: new Date(friday.getTime() - 600_000) } })),
      state: once.state,
      maxAgeMs: () => 60_000,
    });
    expect(reasonOf(stale, 'BTC>SBERRUB')).toMatch(/^quote BTC\/USDT from backoffice is 600 s old/);
    expect(stale.state.pending['BTC>SBERRUB']?.builds).toBe(1);
    const later = new Date(friday.getTime() + 60_000);
    const twice = guard({ priced: priced(config, sampleBook(later, '1.2')), state: stale.state, now: later });
    expect(reasonOf(twice, 'BTC>SBERRUB')).toMatch(/seen in 2 of 3 distinct answers of backoffice/);
  });

  it('accept publishes a held jump at once, makes it the reference, and is consumed', async () => {
    const config = await configOf(sampleConfig);
    const first = guard({ priced: priced(config, sampleBook(friday)) });
    const jumped = priced(config, sampleBook(friday, '1.5'));
    const held = guard({ priced: jumped, state: first.state });
    expect(ids(held.withheld)).toEqual(['BTC>SBERRUB', 'BTC>USDTTRC20']);

    const accepted = guard({ priced: jumped, state: held.state, accepted: new Set(['BTC>SBERRUB']) });
    expect(ids(accepted.published)).toContain('BTC>SBERRUB');
    expect(ids(accepted.withheld)).toEqual(['BTC>USDTTRC20']); // only what was accepted
    expect(accepted.acceptedUsed).toEqual(['BTC>SBERRUB']);
    expect(accepted.state.published['BTC>SBERRUB']?.rate).toBe(
      jumped.find((p) => p.direction.id === 'BTC>SBERRUB')?.rate.toString(),
    );
    expect(accepted.state.pending['BTC>SBERRUB']).toBeUndefined();

    // Consumed: the next jump is held again.
    const again = guard({ priced: priced(config, sampleBook(friday, '1.8')), state: accepted.state });
    expect(reasonOf(again, 'BTC>SBERRUB')).toMatch(/^rate moved 20% .* seen in 1 of 3 distinct answers/);
    // Past the hard bound, an accept is the only way: it publishes that too.
    const hard = priced(config, sampleBook(friday, '15'));
    expect(reasonOf(guard({ priced: hard, state: accepted.state }), 'BTC>SBERRUB')).toMatch(/past the hard bound/);
    const taken = guard({ priced: hard, state: accepted.state, accepted: new Set(['BTC>SBERRUB']) });
    expect(ids(taken.published)).toContain('BTC>SBERRUB');
    expect(taken.acceptedUsed).toEqual(['BTC>SBERRUB']);
  });

  it('an accept request with nothing to accept is used up too, and an out-of-hours direction keeps its request', async () => {
    const config = await configOf(sampleConfig);
    const first = guard({ priced: priced(config, sampleBook(friday)) });
    const quiet = guard({
      priced: priced(config, sampleBook(friday)),
      state: first.state,
      accepted: new Set(['BTC>SBERRUB']),
    });
    expect(quiet.acceptedUsed).toEqual(['BTC>SBERRUB']);
    const stale = guard({
      priced: priced(config, sampleBook(friday, '1', { btc: { time: new Date(0) } })),
      state: first.state,
      accepted: new Set(['BTC>SBERRUB']),
      maxAgeMs: () => 60_000,
    });
    expect(stale.acceptedUsed).toEqual([]);
  });
});

describe('guard state across runs (.ratefile/guard.json)', () => {
  interface Run {
    project: Project;
    outDir: string;
    stateDir: string;
  }

  /** One `ratefile build` as a fresh process would do it: the config loaded anew, then one cycle. */
  async function cycle(run: Run, now: Date, factor: string) {
    await writeSampleQuotes(run.project, now, factor);
    const config = await loadConfig(run.project.configPath);
    expect(config.stateDir).toBe(run.stateDir);
    return runCycle(config, run.outDir, { now: () => now });
  }

  async function setUp(): Promise<Run> {
    const made = await project();
    return { project: made, outDir: join(made.dir, 'public'), stateDir: join(made.dir, '.ratefile') };
  }

  const readGuard = async (run: Run): Promise<GuardState> =>
    JSON.parse(await readFile(join(run.stateDir, 'guard.json'), 'utf8')) as GuardState;
  const at = (seconds: number) => new Date(friday.getTime() + seconds * 1000);

  it('the last published rates and pending confirmations survive restarts', async () => {
    const run = await setUp();
    const first = await cycle(run, at(0), '1');
    expect(first.build.report.withheld).toEqual([]);
    const saved = await readGuard(run);
    expect(Object.keys(saved.published).sort()).toEqual([
      'BTC>SBERRUB',
      'BTC>USDTTRC20',
      'SBERRUB>USDTTRC20',
      'USDTTRC20>CASHRUB',
    ]);
    const reference = saved.published['BTC>SBERRUB'];
    expect(reference?.at).toBe(at(0).toISOString());
    const parserfile = await readFile(join(run.outDir, 'parserfile.xml'), 'utf8');

    // A restart (fresh config, fresh process state): the jump is measured against guard.json.
    const second = await cycle(run, at(30), '1.25');
    expect(second.build.report.withheld.map((w) => [w.direction.id, w.reason])).toEqual([
      [
        'BTC>SBERRUB',
        expect.stringMatching(/^rate moved 25% from the last published .*; seen in 1 of 3 distinct answers/),
      ],
      ['BTC>USDTTRC20', expect.stringMatching(/^rate moved 25% .*; seen in 1 of 3 distinct answers/)],
    ]);
    expect(await readFile(join(run.outDir, 'parserfile.xml'), 'utf8')).not.toContain('<from>BTC</from>');
    const pending = await readGuard(run);
    expect(pending.published['BTC>SBERRUB']).toEqual(reference);
    expect(pending.pending['BTC>SBERRUB']?.builds).toBe(1);

    expect((await cycle(run, at(60), '1.25')).build.report.withheld).toHaveLength(2);
    expect((await readGuard(run)).pending['BTC>SBERRUB']?.builds).toBe(2);

    const fourth = await cycle(run, at(90), '1.25');
    expect(fourth.build.report.withheld).toEqual([]);
    const after = await readGuard(run);
    expect(after.pending).toEqual({});
    expect(new Decimal(after.published['BTC>SBERRUB']?.rate ?? NaN).div(reference?.rate ?? NaN).toFixed()).toBe('1.25');
    expect(after.published['BTC>SBERRUB']?.at).toBe(at(90).toISOString());
    const republished = await readFile(join(run.outDir, 'parserfile.xml'), 'utf8');
    expect(republished).toContain('<from>BTC</from>');
    expect(republished).not.toBe(parserfile);
  });

  it('accept requests in the state folder are used by the next cycle and removed', async () => {
    const run = await setUp();
    await cycle(run, at(0), '1');
    expect((await cycle(run, at(30), '0.5')).build.report.withheld).toHaveLength(2);
    await requestAccept(run.stateDir, 'BTC>SBERRUB');
    expect(await readdir(join(run.stateDir, 'accept'))).toEqual(['BTC-SBERRUB']);

    const accepted = await cycle(run, at(60), '0.5');
    expect(accepted.build.report.priced.map((p) => p.direction.id)).toContain('BTC>SBERRUB');
    expect(accepted.build.report.withheld.map((w) => w.direction.id)).toEqual(['BTC>USDTTRC20']);
    expect(await readdir(join(run.stateDir, 'accept'))).toEqual([]);
    expect(await readFile(join(run.outDir, 'parserfile.xml'), 'utf8')).toMatch(/<from>BTC<\/from>\s*<to>SBERRUB<\/to>/);

    // Used up: the next jump of BTC>SBERRUB waits for confirmations again.
    const next = await cycle(run, at(90), '0.6');
    expect(next.build.report.withheld.find((w) => w.direction.id === 'BTC>SBERRUB')?.reason).toMatch(
      /seen in 1 of 3 distinct answers/,
    );
  });

  it('an accept request is used up only once the guard state that took it is kept', async () => {
    const run = await setUp();
    await cycle(run, at(0), '1');
    expect((await cycle(run, at(30), '0.5')).build.report.withheld).toHaveLength(2);
    await requestAccept(run.stateDir, 'BTC>SBERRUB');
    // guard.json cannot be replaced (a folder stands in its place): the build that used the request fails to keep it.
    await rm(join(run.stateDir, 'guard.json'));
    await mkdir(join(run.stateDir, 'guard.json'));
    await expect(cycle(run, at(60), '0.5')).rejects.toThrow(/guard\.json/);
    expect(await readdir(join(run.stateDir, 'accept'))).toEqual(['BTC-SBERRUB']);
  });

  it("a guard.json changed by hand between builds is read again, not taken from the last build's memory", async () => {
    const run = await setUp();
    await cycle(run, at(0), '1');
    expect((await cycle(run, at(30), '1')).build.report.withheld).toEqual([]);
    const state = await readGuard(run);
    const halved = Object.fromEntries(
      Object.entries(state.published).map(([id, last]) => [
        id,
        { ...last, rate: new Decimal(last.rate).div(2).toString() },
      ]),
    );
    await writeFile(join(run.stateDir, 'guard.json'), `${JSON.stringify({ ...state, published: halved }, null, 2)}\n`);
    const next = await cycle(run, at(60), '1');
    const reasons = next.build.report.withheld.map((w) => w.reason);
    expect(reasons.length).toBe(Object.keys(halved).length);
    for (const reason of reasons)
      expect(reason).toMatch(/^rate moved ×2, \+100% from the last published .*: past the hard bound/);
  });

  it('a build that changes no published rate nor confirmation leaves guard.json unwritten, for at most GUARD_AT_LAG_MS', async () => {
    const run = await setUp();
    const path = join(run.stateDir, 'guard.json');
    const fileOf = async () => ({
      text: await readFile(path, 'utf8'),
      ...(({ ino, ctimeMs }) => ({ ino, ctimeMs }))(await stat(path)),
    });
    await cycle(run, at(0), '1');
    const first = await fileOf();

    // Same quotes: the same rates published again; only the entries' `at` moves, kept in memory.
    const same = await cycle(run, at(30), '1');
    expect(same.build.report.guardState.published['BTC>SBERRUB']?.at).toBe(at(30).toISOString());
    expect(await fileOf()).toEqual(first);
    const remembered = await readGuardState(run.stateDir);
    expect(remembered.state.published['BTC>SBERRUB']?.at).toBe(at(30).toISOString());

    // A moved rate is written at once.
    await cycle(run, at(60), '1.01');
    const moved = await fileOf();
    expect(moved.text).not.toBe(first.text);
    expect((JSON.parse(moved.text) as GuardState).published['BTC>SBERRUB']?.at).toBe(at(60).toISOString());

    // A pending confirmation is a change too.
    await cycle(run, at(90), '1.5');
    const held = await fileOf();
    expect((JSON.parse(held.text) as GuardState).pending['BTC>SBERRUB']?.builds).toBe(1);

    // Unchanged again, then written once the file's `at` times would lag by GUARD_AT_LAG_MS.
    await cycle(run, at(120), '1.01');
    const back = await fileOf();
    await cycle(run, at(150), '1.01');
    expect(await fileOf()).toEqual(back);
    await cycle(run, at(120 + GUARD_AT_LAG_MS / 1000), '1.01');
    const refreshed = await fileOf();
    expect((JSON.parse(refreshed.text) as GuardState).published['BTC>SBERRUB']?.at).toBe(
      at(120 + GUARD_AT_LAG_MS / 1000).toISOString(),
    );
  });

  it('a guard.json of an older version (pending jumps without answers) loads, and its count goes on', async () => {
    const run = await setUp();
    await cycle(run, at(0), '1');
    const { published } = await readGuard(run);
    const rate = (id: string) => new Decimal(published[id]!.rate).times('1.25').toString();
    const old = {
      published,
      pending: { 'BTC>SBERRUB': { rate: rate('BTC>SBERRUB'), builds: 2 }, 'BTC>USDTTRC20': { rate: 'x', builds: 'y' } },
    };
    await writeFile(join(run.stateDir, 'guard.json'), JSON.stringify(old));
    const next = await cycle(run, at(30), '1.25');
    expect(next.warnings).toEqual([]);
    // Two builds counted before, one answer now: published. The malformed entry starts its count over.
    expect(next.build.report.priced.map((p) => p.direction.id)).toContain('BTC>SBERRUB');
    expect(next.build.report.withheld.map((w) => [w.direction.id, /seen in (\d)/.exec(w.reason)?.[1]])).toEqual([
      ['BTC>USDTTRC20', '1'],
    ]);
  });

  it('an unreadable guard.json starts afresh with a warning; the export files on disk still bound first rates', async () => {
    const run = await setUp();
    await cycle(run, at(0), '1');
    await writeFile(join(run.stateDir, 'guard.json'), '{ torn');
    const next = await cycle(run, at(30), '1.05');
    expect(next.warnings).toEqual([
      expect.stringMatching(
        /guard\.json: unreadable, starting without last published rates \(the export files on disk bound first rates\)/,
      ),
    ]);
    expect(next.build.report.withheld).toEqual([]);
    expect((await readGuard(run)).published['BTC>SBERRUB']?.at).toBe(at(30).toISOString());
    // Torn again, and the rates doubled: measured from what parserfile.xml publishes, past the hard bound.
    await writeFile(join(run.stateDir, 'guard.json'), '{ torn');
    const doubled = await cycle(run, at(60), '2.1');
    expect(doubled.build.report.withheld.map((w) => [w.direction.id, w.jump?.hard])).toEqual([
      ['BTC>SBERRUB', true],
      ['BTC>USDTTRC20', true],
    ]);
    expect(doubled.build.report.withheld[0]?.reason).toMatch(
      /^rate moved ×2, \+100% from the last published \d+(\.\d+)? \(parserfile\.xml\) to /,
    );
    // Kept in guard.json as the last published rate: the next build measures from it though the file lost it.
    expect((await readGuard(run)).published['BTC>SBERRUB']).toMatchObject({ file: 'parserfile.xml' });
    expect(await readFile(join(run.outDir, 'parserfile.xml'), 'utf8')).not.toContain('<from>BTC</from>');
    expect((await cycle(run, at(90), '2.1')).build.report.withheld).toHaveLength(2);
  });
});

describe('guards shared between directions (one check per rate, quote chain and hours)', () => {
  it('withinJump agrees with dividing, on random rates and on the edges of maxJump', () => {
    const generator = random(5);
    const digits = (n: number) => Array.from({ length: n }, () => Math.floor(generator() * 10)).join('');
    let within = 0;
    let beyond = 0;
    for (let k = 0; k < 4000; k++) {
      const maxJump = new Decimal(['0.1', '0.05', '0.000001', '0.3333333333333333333'][k % 4]!);
      const previous = new Decimal(
        `${1 + Math.floor(generator() * 9)}${digits(Math.floor(generator() * 6))}.${digits(1 + Math.floor(generator() * 30))}`,
      );
      // Right at maxJump, a hair (relative 10^-1…10^-39) either side of it, or anywhere around.
      const edge = previous.times(Decimal.add(1, maxJump));
      const hair = new Decimal(`1e-${1 + Math.floor(generator() * 39)}`);
      const rate = [
        edge,
        edge.times(Decimal.add(1, hair)),
        edge.times(Decimal.sub(1, hair)),
        previous.times(generator() * 2).toSignificantDigits(20),
      ][Math.floor(generator() * 4)]!;
      const moved = rate.minus(previous).abs();
      const divided = !moved.div(previous).greaterThan(maxJump);
      if (withinJump(moved, previous, maxJump)) {
        expect(divided, `${rate.toString()} from ${previous.toString()}`).toBe(true);
        within++;
      } else beyond++;
      if (!divided) expect(withinJump(moved, previous, maxJump)).toBe(false);
    }
    expect(within).toBeGreaterThan(1000);
    expect(beyond).toBeGreaterThan(500);
  });

  it('guards every direction exactly as it is guarded alone', async () => {
    const config = await configOf(sampleConfig);
    const generator = random(9);
    const now = friday;
    // Rates moved a little, a lot, or not; last published rates and pending confirmations for some.
    const factors = ['1', '1.01', '1.3', '0.7', '1.3'];
    const priced = factors.flatMap((factor, k) =>
      priceDirections(
        config.directions,
        sampleBook(now, factor, k === 4 ? { btc: { time: new Date(now.getTime() - 3_600_000), source: 'feed' } } : {}),
      ).priced.map((p, j) => ({
        ...p,
        direction: { ...p.direction, id: `${p.direction.id}#${k}${j}` },
      })),
    );
    const base = priceDirections(config.directions, sampleBook(now)).priced;
    const state: GuardState = { published: {}, pending: {} };
    for (const p of priced) {
      const last = base.find((b) => p.direction.id.startsWith(`${b.direction.id}#`))!;
      if (generator() < 0.8) state.published[p.direction.id] = { rate: last.rate.toString(), at: 'then' };
      if (generator() < 0.3) state.pending[p.direction.id] = { rate: p.rate.toString(), builds: 1 };
    }
    state.published['GONE>AWAY'] = { rate: '1', at: 'then' };
    const accepted = new Set(priced.filter(() => generator() < 0.2).map((p) => p.direction.id));
    const input = {
      now,
      state,
      accepted,
      guards: defaultGuards,
      maxAgeMs: (source: string) => (source === 'feed' ? 60_000 : undefined),
    };
    const together = guardDirections({ ...input, priced });
    expect(together.published.length).toBeGreaterThan(5);
    expect(new Set(together.withheld.map((w) => w.kind))).toEqual(new Set(['jump', 'stale']));
    for (const p of priced) {
      const alone = guardDirections({ ...input, priced: [{ ...p }] });
      const { id } = p.direction;
      expect(together.published.includes(p)).toBe(alone.published.length === 1);
      expect(together.withheld.find((w) => w.direction.id === id)?.reason).toBe(alone.withheld[0]?.reason);
      expect(together.state.published[id]).toEqual(alone.state.published[id]);
      expect(together.state.pending[id]).toEqual(alone.state.pending[id]);
      expect(together.acceptedUsed.includes(id)).toBe(alone.acceptedUsed.includes(id));
    }
    expect(together.state.published['GONE>AWAY']).toEqual({ rate: '1', at: 'then' });
    expect(Object.keys(together.state.published).length).toBe(
      Object.keys({ ...state.published, ...Object.fromEntries(together.published.map((p) => [p.direction.id, 1])) })
        .length,
    );
  });
});

describe('staleHold: a direction only a stale quote would price (stale quotes are out of the book it is priced on)', () => {
  const now = new Date('2026-11-21T12:00:30Z');
  const old = new Date('2026-11-21T11:00:00Z');
  const maxAgeMs = () => 60_000;

  it("is held back for the stale quote in the guards' words; out of hours first; other reasons stay", async () => {
    const config = await configOf(sampleConfig);
    const btc = config.directions.find((d) => d.id === 'BTC>USDTTRC20')!;
    const withStale = sampleBook(now, '1', { btc: { time: old } });
    const unpriced = { direction: btc, kind: 'quote' as const, reason: 'no quotes lead from BTC to USDT' };
    expect(staleHold(unpriced, withStale, now, maxAgeMs)).toEqual({
      direction: btc,
      kind: 'stale',
      reason: 'quote BTC/USDT from backoffice is 3630 s old (limit 60 s)',
    });
    // Saturday noon is outside these hours: the guards tell hours before staleness, and so does this.
    const closed = {
      ...btc,
      hours: (await configOf(sampleConfig.replace('tags: [ref] }', 'tags: [ref], hours: "Mon-Fri 09:00-18:00 UTC" }')))
        .directions[1]!.hours!,
    };
    expect(staleHold({ ...unpriced, direction: closed }, withStale, now, maxAgeMs)).toMatchObject({
      kind: 'hours',
      reason: 'outside working hours (Mon-Fri 09:00-18:00 UTC)',
    });
    // Fresh quotes everywhere: the stale book is not why it is unpriced.
    expect(staleHold(unpriced, sampleBook(now), now, maxAgeMs)).toBeUndefined();
    // Not a missing quote: left as it is.
    expect(staleHold({ ...unpriced, kind: 'limits' }, withStale, now, maxAgeMs)).toBeUndefined();
  });
});
