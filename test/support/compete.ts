// A `compete:` rule as the config loader makes it, for the compete tests: place 2 (or `worst`) on source `bc`,
// floor 0.5%, ceiling 3%, a 10% deviation limit; `extra` overrides any field.
import { Decimal } from '../../src/base/decimal.js';
import type { CompeteRule, Currency, Direction } from '../../src/model/config.js';
import { testDirection } from './model.js';

export const competeRule = (extra: Partial<CompeteRule> = {}): CompeteRule => ({
  source: 'bc',
  target: String(extra.worst ?? 2),
  best: extra.worst ?? 2,
  worst: 2,
  step: new Decimal(0),
  floor: new Decimal('0.005'),
  ceiling: new Decimal('0.03'),
  deviation: new Decimal('0.1'),
  ignore: [],
  ignoreNames: new Set(),
  ignoreIds: new Set(),
  ...extra,
});

/** A currency with its rate precision equal to its amount precision and a reserve no test runs out of. */
export const competeCurrency = (code: string, asset: string, precision: number): Currency => ({
  code,
  asset,
  precision,
  ratePrecision: precision,
  reserve: new Decimal('100000000'),
});

/** A direction at a 2% margin competing by `compete`; `extra` overrides any field (id, cities, limits…). */
export const competingDirection = (
  from: Currency,
  to: Currency,
  compete: CompeteRule,
  extra: Partial<Direction> = {},
): Direction => testDirection(from, to, { compete, ...extra });
