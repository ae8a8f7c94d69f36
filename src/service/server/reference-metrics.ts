// The metrics of the independent reference (src/pure/guards/reference.ts): per pair of assets, so 10,000 directions
// make as many series as the config has asset pairs, and a count of the directions one source alone sets.
import { Gauge, type Registry } from 'prom-client';
import type { ReferenceCheck } from '../../model/priced.js';
import type { SoleSource } from '../../pure/guards/reference.js';
import { marketOf } from '../../pure/rates/book.js';

export function referenceInstruments(registers: Registry[]) {
  return {
    referenceDeviation: new Gauge({
      name: 'ratefile_reference_deviation_ratio',
      help: 'Directions one source alone sets: |market - reference| / reference, the largest among the directions between the two assets (pair: the assets sorted).',
      labelNames: ['pair'],
      registers,
    }),
    referenceBand: new Gauge({
      name: 'ratefile_reference_band_ratio',
      help: 'The band the direction of ratefile_reference_deviation_ratio is held to: past it, withheld (kind reference).',
      labelNames: ['pair'],
      registers,
    }),
    soleSource: new Gauge({
      name: 'ratefile_sole_source_directions',
      help: 'Directions priced by the last build whose market one source alone sets, by whether a reference checked them (checked, none).',
      labelNames: ['reference'],
      registers,
    }),
  };
}

/** Reset first: a pair no longer checked must not keep its last reading. Per pair: the largest deviation and its band. */
export function recordReferences(m: ReturnType<typeof referenceInstruments>, sole: readonly SoleSource[]): void {
  m.referenceDeviation.reset();
  m.referenceBand.reset();
  const largest = new Map<string, ReferenceCheck>();
  let [checked, none] = [0, 0];
  // A group is one chain (so one pair of assets) and one check.
  for (const { directions, reference } of sole) {
    if (!reference) {
      none += directions.length;
      continue;
    }
    checked += directions.length;
    const { from, to } = directions[0]!.direction;
    const pair = marketOf({ base: from.asset, quote: to.asset });
    const known = largest.get(pair);
    if (!known || reference.deviation.greaterThan(known.deviation)) largest.set(pair, reference);
  }
  for (const [pair, reference] of largest) {
    m.referenceDeviation.set({ pair }, reference.deviation.toNumber());
    m.referenceBand.set({ pair }, reference.band.toNumber());
  }
  m.soleSource.set({ reference: 'checked' }, checked);
  m.soleSource.set({ reference: 'none' }, none);
}
