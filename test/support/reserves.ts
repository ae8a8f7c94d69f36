// The sample project with SBERRUB's reserve read from a reserve source named `office` (or BTC → SBERRUB's labels and
// switch), and what status.json says of a direction held back: shared by the reserve tests (file, http, sql).
import { sampleConfig } from './project.js';

/** The sample config with `office: <source>` under `reserves:` and SBERRUB taking its reserve from it. */
export const withReserves = (source: string) =>
  sampleConfig
    .replace('SBERRUB: { reserve: "5000000" }', 'SBERRUB: { reserveFrom: office }')
    .replace('currencies:\n', `reserves:\n  office: ${source}\ncurrencies:\n`);

/** A direction in status.json's `heldBack`. */
export interface Held {
  direction: string;
  kind: string;
  reason: string;
}

/**
 * The sample config with BTC → SBERRUB (configured `params: [verifying]`) switched by `office: <source>`
 * (`switchesFrom:`), and manualHours open at the tests' clock (Saturday noon UTC).
 */
export const withSwitches = (source: string) =>
  sampleConfig
    .replace(
      '  - { from: BTC, to: [SBERRUB, USDTTRC20], min: 0.001, max: "500000 RUB", tags: [ref] }',
      '  - { from: BTC, to: SBERRUB, min: 0.001, max: "500000 RUB", tags: [ref], params: [verifying], switchesFrom: office }\n  - { from: BTC, to: USDTTRC20, tags: [ref] }',
    )
    .replace('currencies:\n', `reserves:\n  office: ${source}\ncurrencies:\n`)
    .concat('manualHours: "Mon-Sun 09:00-21:00 UTC"\n');
