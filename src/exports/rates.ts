// A rate as every export prints it. The type lives with the other published shapes in src/priced.ts; named here too
// for the writers that import it from the exports.
export type { RateEntry } from '../priced.js';
