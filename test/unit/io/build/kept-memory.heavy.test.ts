// What a build keeps for the next one, per direction (issue 28: 50,000–100,000 directions in a few hundred MB): the
// heap still live after two builds once their results are let go, against the config alone. Everything kept then is
// a cache (plans, the classic writer's text, chains) or the guard state; each must cost a direction little.
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import { exportWriter } from '../../../../src/pure/exports/renderers.js';
import { emptyGuardState, guardDirections, type GuardState } from '../../../../src/pure/guards/guards.js';
import type { Label } from '../../../../src/base/config/fields.js';
import type { Currency, Direction, ExportTemplate } from '../../../../src/model/config.js';
import { priceDirections } from '../../../../src/pure/pricing/price.js';
import { quoteBook, testCurrency, testDirection } from '../../../support/model.js';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
/** The live heap: collected twice, so that what the first collection found dead is swept before counting. */
const liveHeap = () => {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
};

const count = 20_000;
const time = new Date('2026-11-26T12:00:00Z');

/** `count` directions between 150 currencies of 15 assets, each quoted against USDT; a third are cash in 3 cities. */
function exchanger(): { directions: Direction[]; book: () => ReturnType<typeof quoteBook> } {
  const currencies: Currency[] = Array.from({ length: 150 }, (_, i) =>
    testCurrency(
      `C${i}`,
      i % 15 === 0 ? 'USDT' : `A${i % 15}`,
      i % 2 === 0 ? 8 : 2,
      i % 2 === 0 ? '1000' : '50000000',
      4,
    ),
  );
  const rows = Array.from({ length: 14 }, (_, i): [string, string, string] => [
    `A${i + 1}/USDT`,
    `${1 + i / 7}`,
    `${(1 + i / 7) * 1.0005}`,
  ]);
  const directions: Direction[] = [];
  for (const from of currencies)
    for (const to of currencies) {
      if (from === to || directions.length >= count) continue;
      const cash = directions.length % 3 === 0;
      directions.push(
        testDirection(from, to, {
          margin: new Decimal('0.015'),
          min: { value: new Decimal(20), asset: 'USDT' },
          params: ['verifying'] as unknown as Label[],
          cities: cash ? ['MSK', 'SPB', 'EKB'] : [],
          tags: ['main'],
        }),
      );
    }
  return { directions, book: () => quoteBook(time, 'feed', ...rows) };
}

const template = (name: string, url?: string): ExportTemplate => ({
  name,
  file: `${name}.xml`,
  format: 'classic',
  excludeTags: [],
  aliases: {},
  markup: new Decimal(url ? '0.005' : 0),
  ...(url ? { url } : {}),
});

/**
 * One build's pure steps on a new book, as every build's quotes are; only the guard state is returned, as the service
 * keeps it. The book is made here, not by the caller: a value the caller's frame held would stay live with it.
 */
function build(
  directions: readonly Direction[],
  book: () => ReturnType<typeof quoteBook>,
  state: GuardState,
): GuardState {
  const { priced } = priceDirections(directions, book());
  const guarded = guardDirections({
    priced,
    now: time,
    state,
    accepted: new Set(),
    guards: { maxJump: new Decimal('0.1'), hardJump: new Decimal('0.3'), confirmAnswers: 2 },
    maxAgeMs: () => undefined,
  });
  const templates = [template('parserfile'), template('affiliate', 'https://x.example/?from={from}&to={to}')];
  const write = exportWriter(guarded.published, templates, directions);
  for (let index = 0; index < templates.length; index++) expect(write(index).items).toBeGreaterThan(count);
  return guarded.state;
}

describe('what a build keeps for the next one', () => {
  it(`is under 450 bytes a direction at ${count.toLocaleString('en')} directions`, () => {
    const { directions, book } = exchanger();
    const before = liveHeap();
    const state = build(directions, book, build(directions, book, emptyGuardState()));
    const kept = (liveHeap() - before) / directions.length;
    expect(Object.keys(state.published)).toHaveLength(count);
    expect(kept).toBeLessThan(450);
  });
});
