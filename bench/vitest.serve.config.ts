// `npm run bench:serve`: the serving benchmark runs under vitest only to reuse the TypeScript nginx runner of the tests.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['bench/serve.bench.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    silent: false,
  },
});
