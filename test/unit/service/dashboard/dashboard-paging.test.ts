// The dashboard at any size: pages of 200 rows with a pager and a count, sorting by each column (rates and reserves as
// Decimal, not text), the build line under the headline reading its level, a source's problem said once with what to
// do, a capped reserve saying so, and no Place column without `compete:`. A real build of a generated config.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import { build } from '../../../../src/io/build/build.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import type { Config } from '../../../../src/model/config.js';
import { dashboardModel, type DashboardInput } from '../../../../src/service/dashboard/model.js';
import { renderDashboard } from '../../../../src/service/dashboard/page.js';
import { normalizePaging, pageNumbers, pageOf, sortRows, thousands } from '../../../../src/service/dashboard/paging.js';
import { problemText } from '../../../../src/service/dashboard/problems.js';
import type { DirectionFacts } from '../../../../src/service/dashboard/rows.js';
import type { BuildReport, Status } from '../../../../src/pure/status/report.js';
import { makeProject, sampleTemplates, type Project } from '../../../support/project.js';
import { fixedNow } from '../../../support/run-cli.js';

// 18 codes, every ordered pair: 306 directions, two pages. Rates span 1e-7 … 1e7, so text order is not number order.
const codes = ['BTC', 'ETH', 'LTC', 'XMR', 'USDTTRC20', 'USDTERC20', 'SBERRUB', 'TCSBRUB', 'CARDUAH', 'WIREUSD']
  .concat(['CASHUSD', 'CASHEUR', 'DOGE', 'TRX', 'BNB', 'SOL', 'TON', 'DASH'])
  .slice(0, 18);
const prices: Record<string, string> = {
  BTC: '97012.3',
  ETH: '3400.5',
  LTC: '71.2',
  XMR: '160.4',
  RUB: '0.0108',
  UAH: '0.024',
  USD: '1',
  EUR: '1.08',
  DOGE: '0.1',
  TRX: '0.2',
  BNB: '600',
  SOL: '180',
  TON: '5.5',
  DASH: '30',
};
/** Every code declared with a reserve; SBERRUB's is capped (`reserveCap`), so its rows say so. */
const currencies = codes.map((code) =>
  code === 'SBERRUB'
    ? '  SBERRUB: { reserve: "5000000", reserveCap: "1000000" }'
    : `  ${code}: { reserve: "${code.startsWith('CASH') ? '100000' : '1000'}" }`,
);
const config = `sources:
  backoffice: { type: file, path: quotes.json }
currencies:
${currencies.join('\n')}
defaults:
  margin: 1.5%
directions:
${codes.map((from) => `  - { from: ${from}, to: [${codes.filter((to) => to !== from).join(', ')}] }`).join('\n')}
`;
const quotes = {
  quotes: Object.entries(prices)
    .filter(([asset]) => asset !== 'USD')
    .map(([asset, price]) => ({ pair: `${asset}/USDT`, bid: price, ask: new Decimal(price).times('1.001').toFixed() }))
    .concat([{ pair: 'USDT/USD', bid: '1', ask: '1.001' }]),
};

let made: Project;
let loaded: Config;
let report: BuildReport;
const view = (input: Partial<DashboardInput> = {}) =>
  dashboardModel({
    latest: { report, exports: loaded.exports, maxAgeMs: {}, files: {} },
    now: fixedNow(),
    redaction: { roots: [made.dir], secrets: [] },
    ...input,
  });
const textOf = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');

beforeAll(async () => {
  made = await makeProject({
    'ratefile.config.yaml': config,
    'quotes.json': JSON.stringify(quotes),
    ...Object.fromEntries(Object.entries(sampleTemplates).map(([name, text]) => [`templates/${name}`, text])),
  });
  loaded = await loadConfig(made.configPath, made.dir);
  report = (await build(loaded, { now: fixedNow })).report;
});
afterAll(() => made.remove());

describe('pages', () => {
  it('shows 200 rows a page with a pager and the count, the next page the rest, a page past the last the last', () => {
    const first = view();
    expect(first.total).toBe(306);
    expect(first.directions).toHaveLength(200);
    expect(first.paging).toMatchObject({ page: 1, pages: 2, first: 1, last: 200, sort: 'config' });
    const second = view({ paging: { page: '2' } });
    expect(second.directions).toHaveLength(106);
    expect(second.paging).toMatchObject({ page: 2, first: 201, last: 306 });
    // Config order, continued: page 2 starts with the 201st direction of page 1's order.
    const all = view({ filter: { q: '' }, paging: {} });
    expect(second.directions[0]!.id).not.toBe(all.directions[0]!.id);
    expect(new Set([...first.directions, ...second.directions].map((d) => d.id)).size).toBe(306);
    expect(view({ paging: { page: '99' } }).paging.page).toBe(2);
    const text = textOf(renderDashboard(second));
    expect(text).toContain('306 directions of 306 match: rows 201–306, page 2 of 2.');
    expect(text).toContain('rows 201–306 of 306');
    const html = renderDashboard(second);
    expect(html).toContain('<a data-nav href="./" rel="prev">‹ Previous</a>');
    expect(html).toContain('<strong aria-current="page">2</strong>');
  });

  it('keeps the filters in every pager and sort link, and the sort in the filter form', () => {
    const html = renderDashboard(view({ filter: { currency: 'BTC' }, paging: { sort: 'rate', order: 'desc' } }));
    expect(html).toContain(
      'href="./?currency=BTC&amp;sort=rate" aria-label="Rate (in : out): sort by rate (out per in), ascending"',
    );
    expect(html).toContain(
      '<input type="hidden" name="sort" value="rate"><input type="hidden" name="order" value="desc">',
    );
    expect(html).toContain('<th scope="col" class="num" aria-sort="descending">');
    // 34 directions with BTC: one page, no pager.
    expect(html).not.toContain('class="pager"');
  });

  it('bounds the query: an unknown sort is the config order, a page below 1 the first', () => {
    expect(normalizePaging({ sort: 'DROP TABLE', order: 'sideways', page: '-3' })).toEqual({
      sort: 'config',
      order: 'asc',
      page: 1,
    });
    expect(normalizePaging({ sort: 'Rate', order: 'DESC', page: '7' })).toEqual({
      sort: 'rate',
      order: 'desc',
      page: 7,
    });
  });

  it('at 10,000 rows, page 2 is rows 201–400 of 50 pages; the pager links the pages around it', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => i + 1);
    const { rows: shown, page } = pageOf(rows, { sort: 'config', order: 'asc', page: 2 });
    expect(shown[0]).toBe(201);
    expect(shown.at(-1)).toBe(400);
    expect(page).toMatchObject({ pages: 50, first: 201, last: 400 });
    expect(pageNumbers(2, 50)).toEqual([1, 2, 3, 4, null, 50]);
    expect(pageNumbers(25, 50)).toEqual([1, null, 23, 24, 25, 26, 27, null, 50]);
    expect(pageNumbers(4, 50)).toEqual([1, 2, 3, 4, 5, 6, null, 50]);
    expect(thousands(10_000)).toBe('10,000');
  });
});

describe('sorting', () => {
  it('by rate: numerically, out per in, whichever side carries the 1; unpublished rows last either way', () => {
    const rates = (order: 'asc' | 'desc') =>
      view({ paging: { sort: 'rate', order } })
        .directions.filter((d) => d.rate)
        .map((d) => new Decimal(d.rate!.out).div(d.rate!.in));
    for (const order of ['asc', 'desc'] as const) {
      const shown = rates(order);
      expect(shown.length).toBeGreaterThan(100);
      for (let i = 1; i < shown.length; i++)
        expect(order === 'asc' ? shown[i]!.gte(shown[i - 1]!) : shown[i]!.lte(shown[i - 1]!)).toBe(true);
    }
    // Text order would put "1 : 100" before "1 : 9": the rows here compare as numbers.
    const row = (id: string, rate?: [string, string]): DirectionFacts => ({
      id,
      from: id,
      to: 'X',
      state: rate ? 'published' : 'withheld',
      ...(rate ? { rate: { in: rate[0], out: rate[1], export: 'parserfile.xml' } } : {}),
      quotes: [],
      reserveFrom: 'config',
      fees: [],
      labels: [],
      cities: [],
      exports: [],
      search: '',
    });
    const rows = [row('A', ['1', '100']), row('B'), row('C', ['1', '9']), row('D', ['100000', '1'])];
    expect(sortRows(rows, { sort: 'rate', order: 'asc' }).map((r) => r.id)).toEqual(['D', 'C', 'A', 'B']);
    expect(sortRows(rows, { sort: 'rate', order: 'desc' }).map((r) => r.id)).toEqual(['A', 'C', 'D', 'B']);
  });

  it('by place, quote age and state: rows without a place or a quote last, the faults first', () => {
    const base = { to: 'X', reserveFrom: 'config', fees: [], labels: [], cities: [], exports: [], search: '' };
    const row = (id: string, extra: Partial<DirectionFacts>): DirectionFacts => ({
      id,
      from: id,
      state: 'published',
      quotes: [],
      ...base,
      ...extra,
    });
    const compete = (place: number) => ({ place, target: '2', basis: 'place' as const, competitors: 5 });
    const quote = (at: number) => ({ pair: 'A/B', side: 'bid' as const, source: 's', at });
    const rows = [
      row('A', { compete: compete(3), quotes: [quote(1_000), quote(5_000)] }),
      row('B', { state: 'withheld', kind: 'stale', reason: 'old quotes' }),
      row('C', { compete: compete(1), quotes: [quote(9_000)] }),
      row('D', { state: 'paused', quotes: [quote(500)] }),
    ];
    const ids = (sort: 'place' | 'age' | 'state', order: 'asc' | 'desc' = 'asc') =>
      sortRows(rows, { sort, order }).map((r) => r.id);
    expect(ids('place')).toEqual(['C', 'A', 'B', 'D']);
    expect(ids('place', 'desc')).toEqual(['A', 'C', 'B', 'D']);
    // Age: the oldest quote a row uses; A's oldest is at 1,000, D's at 500 (older still).
    expect(ids('age')).toEqual(['C', 'A', 'D', 'B']);
    expect(ids('age', 'desc')).toEqual(['D', 'A', 'C', 'B']);
    expect(ids('state')).toEqual(['B', 'D', 'A', 'C']);
    expect(sortRows(rows, { sort: 'config', order: 'desc' }).map((r) => r.id)).toEqual(['D', 'C', 'B', 'A']);
  });

  it('by reserve, direction and state; ties keep the config order', () => {
    const reserves = view({ paging: { sort: 'reserve', order: 'desc' } }).directions.map(
      (d) => new Decimal(d.reserve!),
    );
    for (let i = 1; i < reserves.length; i++) expect(reserves[i]!.lte(reserves[i - 1]!)).toBe(true);
    const names = view({ paging: { sort: 'direction' } }).directions.map((d) => `${d.from} → ${d.to}`);
    expect(names).toEqual([...names].sort());
    const config = view().directions.map((d) => d.id);
    const byState = view({ paging: { sort: 'state' } }).directions.map((d) => d.id);
    // All published alike: the state sort is the config order.
    expect(byState).toEqual(config);
  });
});

describe('what each line says', () => {
  it('a capped reserve says it was capped, by which field', () => {
    const row = view({ filter: { q: 'btc>sberrub' } }).directions.find((d) => d.id === 'BTC>SBERRUB')!;
    expect(row.reserve).toBe('1000000');
    expect(row.reserveMade).toEqual(['capped at 1000000 SBERRUB by reserveCap']);
    expect(textOf(renderDashboard(view({ filter: { q: 'btc>sberrub' } })))).toContain(
      '1000000 from config capped at 1000000 SBERRUB by reserveCap',
    );
  });

  it('has no Place column without compete:', () => {
    const html = renderDashboard(view());
    expect(html).not.toContain('data-label="Place"');
    expect(html).not.toContain('>Place<');
    expect(html).toContain('data-label="Reserve"');
  });

  it('under a red headline the build line does not say ok in green', () => {
    const status: Status = {
      version: 1,
      lastBuild: { at: '2026-11-21T12:00:00.000Z', durationMs: 3, ok: true },
      lastSuccessAt: '2026-11-21T12:00:00.000Z',
      schedulePeriodMs: 30_000,
      maintenance: false,
      sources: [],
      exports: [],
      published: [],
      heldBack: [{ direction: 'BTC>SBERRUB', reason: 'no quotes', kind: 'stale' }],
    };
    const failing = view({ status, now: new Date('2026-11-21T12:00:01Z') });
    expect(failing.head.health.level).toBe('failing');
    expect(failing.head.build?.outcome).toBe('problems');
    const html = renderDashboard(failing);
    expect(html).toContain('headline failing');
    expect(html).toContain('finished, with the problems above');
    expect(html).not.toContain('<span class="good">ok</span>, 3 ms');
    const ok = view({
      status: { ...status, heldBack: [], published: ['BTC>SBERRUB'] },
      now: new Date('2026-11-21T12:00:01Z'),
    });
    expect(ok.head.health.level).toBe('ok');
    expect(renderDashboard(ok)).toContain('<span class="good">ok</span>, 3 ms');
  });

  it('a missing quotes file is said once, with what should write it', async () => {
    await rm(join(made.dir, 'quotes.json'));
    const missing = (await build(loaded, { now: fixedNow })).report;
    const shown = view({ latest: { report: missing, exports: loaded.exports, maxAgeMs: {}, files: {} } });
    const problem = shown.sources[0]!.problem!;
    expect(problem).toBe(
      'quotes.json is missing: the `file` source `backoffice` reads it; create it (your back office (or a cron job) writes it, atomically: a temporary name, then a rename) or correct its `path:`',
    );
    const html = renderDashboard(shown);
    expect(html.match(/quotes\.json is missing/g)).toHaveLength(1);
    expect(html).not.toContain('ENOENT');
  });

  it('says other errors of a file in words, and leaves other problems as they are but for the name', () => {
    const source = { name: 'office', type: 'reserves/file' };
    expect(
      problemText(
        source,
        "office: cannot read reserves file /srv/r.json: EACCES: permission denied, open '/srv/r.json'",
      ),
    ).toBe(
      "/srv/r.json cannot be read by ratefile's user (permission denied): check its owner and mode (the `file` reserve source `office` reads it)",
    );
    expect(problemText(source, 'office: HTTP 502 from https://x.example')).toBe('HTTP 502 from https://x.example');
  });
});
