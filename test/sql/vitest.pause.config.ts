// The warm standby's pause measurement (issue 33): `CI=1 npx vitest run --config test/sql/vitest.pause.config.ts`,
// after `npm run build`. Not part of `npm test` or `npm run test:sql`: it runs for minutes (test/sql/ha-pause.measure.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/sql/ha-pause.measure.ts'],
    testTimeout: 3_600_000,
    hookTimeout: 120_000,
  },
});
