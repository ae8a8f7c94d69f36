// `npm run test:metrics`: /metrics checked by Prometheus's own parser, `promtool check metrics` (Debian's
// prometheus package); kept out of `npm test`, which needs only Node.js.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/metrics/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
