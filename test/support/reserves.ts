// The sample project with SBERRUB's reserve read from a reserve source named `office`, and what status.json says of
// a direction held back: shared by the reserve tests (file, http, sql).
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
