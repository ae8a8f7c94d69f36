// The competing directions' charts (src/service/dashboard/compete-chart.ts): points made from the compete step's real
// result (published, market, floor, ceiling, the competitor at the target place, our place), one per minute, 24
// hours, at most MAX_CHARTED directions with a note beyond; the SVG has a line for each; the file written and read back.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { competeHistoryPath, openCompeteStore } from '../../../../src/service/dashboard/compete-store.js';
import { parseFeed } from '../../../../src/pure/bestchange/feed.js';
import { competeDirections } from '../../../../src/pure/compete/price.js';
import { Decimal } from '../../../../src/base/decimal.js';
import {
  CompeteHistory,
  competeSection,
  competeSectionView,
  MAX_CHARTED,
} from '../../../../src/service/dashboard/compete-chart.js';
import type { Direction } from '../../../../src/model/config.js';
import { priceDirection } from '../../../../src/pure/pricing/price.js';
import type { Quote, QuoteBook } from '../../../../src/model/source.js';
import { base, dump } from '../../../support/bestchange.js';
import { competeCurrency, competeRule, competingDirection } from '../../../support/compete.js';

const t0 = Date.parse('2026-11-21T12:00:00Z');
const BTC = competeCurrency('BTC', 'BTC', 8);
const SBER = competeCurrency('SBERRUB', 'RUB', 2);
const feed = parseFeed(
  dump({
    ...base,
    'bm_rates.dat': ['2;1;20;1;4950000;900000;0.1;0;0.01;1;0', '2;1;30;1;4940000.5;900000;0.1;0;0.01;1;0'].join('\n'),
  }),
);

/** A build at `ms` after t0 with the market at `market`, of `directions` (all BTC → SBERRUB, place 2). */
function report(ms: number, market: string, directions: Direction[] = [competingDirection(BTC, SBER, competeRule())]) {
  const quote: Quote = {
    pair: 'BTC/RUB',
    base: 'BTC',
    quote: 'RUB',
    bid: new Decimal(market),
    ask: new Decimal(market),
    time: new Date(t0 + ms),
    source: 'test',
  };
  const book: QuoteBook = new Map([['BTC/RUB', quote]]);
  const priced = directions.map((d) => {
    const p = priceDirection(d, book);
    if ('reason' in p) throw new Error(p.reason);
    return p;
  });
  const competed = competeDirections({
    priced,
    book,
    feeds: new Map([['bc', { feed, ageSeconds: 0, fetchedAt: new Date(t0 + ms) }]]),
    now: new Date(t0 + ms),
  });
  return { startedAt: new Date(t0 + ms), competition: competed.details, priced: competed.priced, maintenance: false };
}

describe('the competing directions’ charts', () => {
  it('makes a point of the published rate, market, floor, ceiling, target and place', () => {
    const history = new CompeteHistory();
    history.record(report(0, '5000000'));
    expect(history.series.get('BTC>SBERRUB')).toEqual([
      // Place 2 is Gamma's 4,940,000.5: one step better; floor 0.5%, ceiling 3% of 5,000,000.
      { at: t0, published: 4940000.51, market: 5000000, floor: 4975000, ceiling: 4850000, target: 4940000.5, place: 2 },
    ]);
  });

  it('keeps one point per minute (the last build of it) for 24 hours', () => {
    const history = new CompeteHistory();
    for (let s = 0; s < 180; s += 10) history.record(report(s * 1000, String(5000000 + s)));
    const points = history.series.get('BTC>SBERRUB')!;
    expect(points.map((p) => p.at - t0)).toEqual([50_000, 110_000, 170_000]);
    expect(points.map((p) => p.market)).toEqual([5000050, 5000110, 5000170]);
    history.record(report(24 * 3600_000 + 60_000, '5000000'));
    expect(history.series.get('BTC>SBERRUB')!.map((p) => p.at - t0)).toEqual([
      110_000,
      170_000,
      24 * 3600_000 + 60_000,
    ]);
  });

  it(`charts at most ${MAX_CHARTED} directions and says how many more there are`, () => {
    const directions = Array.from({ length: MAX_CHARTED + 3 }, (_, i) =>
      competingDirection(BTC, SBER, competeRule(), { id: `BTC>SBERRUB@${i}`, index: i }),
    );
    const history = new CompeteHistory();
    history.record(report(0, '5000000', directions));
    expect(history.series.size).toBe(MAX_CHARTED);
    expect(history.uncharted).toBe(3);
    const html = competeSection(competeSectionView(history, []), { from: t0 - 60_000, to: t0 + 60_000 });
    expect(html).toContain('3 more competing directions not charted (the first 12 are).');
    expect(html.match(/<figure class="compete-chart"/g)).toHaveLength(MAX_CHARTED);
  });

  it('draws a line for each series and the place, and nothing without a competing direction', () => {
    const history = new CompeteHistory();
    history.record(report(0, '5000000'));
    history.record(report(120_000, '5010000'));
    const html = competeSection(competeSectionView(history, []), { from: t0 - 60_000, to: t0 + 180_000 });
    for (const name of ['ceiling', 'floor', 'market', 'target', 'published', 'place'])
      expect(html).toMatch(new RegExp(`<path class="${name}" d="M[^"]+"/>`));
    expect(html).toContain('<text class="axis" x="6" y="11">place 2</text>');
    expect(competeSection(competeSectionView(new CompeteHistory(), []), { from: 0, to: 1 })).toBe('');
  });

  it('keeps its past in maintenance (no point, nothing dropped)', () => {
    const history = new CompeteHistory();
    history.record(report(0, '5000000'));
    history.record({ ...report(60_000, '5000000'), competition: new Map(), maintenance: true });
    expect(history.series.get('BTC>SBERRUB')).toHaveLength(1);
  });
});

describe('the compete chart file', () => {
  const folders: string[] = [];
  afterEach(async () => {
    await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  const warnings: string[] = [];
  const log = { warn: (text: string) => void warnings.push(text) };

  it('is written on flush and read back on start, malformed and day-old points skipped with one warning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-compete-'));
    folders.push(dir);
    const store = await openCompeteStore(dir, log, new Date(t0));
    store.history.record(report(0, '5000000'));
    store.recorded(new Date(t0));
    store.history.record(report(60_000, '5010000'));
    store.recorded(new Date(t0 + 60_000));
    await store.flush();
    const written = JSON.parse(await readFile(competeHistoryPath(dir), 'utf8')) as {
      series: Record<string, unknown[][]>;
    };
    expect(written.series['BTC>SBERRUB']).toEqual([
      [t0, 4940000.51, 5000000, 4975000, 4850000, 4940000.5, 2],
      [t0 + 60_000, 4940000.51, 5010000, 4984950, 4859700, 4940000.5, 2],
    ]);
    const again = await openCompeteStore(dir, log, new Date(t0 + 120_000));
    expect(again.history.series.get('BTC>SBERRUB')).toEqual(store.history.series.get('BTC>SBERRUB'));
    expect(warnings).toEqual([]);

    written.series['BTC>SBERRUB']!.unshift([t0 - 25 * 3600_000, 1, 1, 1, 1, 1, 1]);
    written.series['BTC>SBERRUB']!.push(['x', 1, 1, 1, 1, 1, 1], [t0 + 90_000, 1, 'a', 1, 1, 1, 1]);
    await writeFile(competeHistoryPath(dir), JSON.stringify(written));
    const read = await openCompeteStore(dir, log, new Date(t0 + 120_000));
    expect(read.history.series.get('BTC>SBERRUB')).toHaveLength(2);
    expect(warnings).toEqual([`history: ${competeHistoryPath(dir)}: 3 malformed or old points skipped`]);
  });
});
