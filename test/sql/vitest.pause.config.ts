// The warm standby's pause trials (issues 33 and 45): `CI=1 npx vitest run --config test/sql/vitest.pause.config.ts`,
// after `npm run build`. Not part of `npm test` or `npm run test:sql`: it runs for minutes (test/sql/ha-pause.measure.ts,
// its modes and settings in the environment).
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
