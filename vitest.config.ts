import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/browser/**', 'test/nginx/**', 'test/metrics/**', 'test/sql/**', 'node_modules/**'],
    // Vitest's default is one worker on a 2-core machine; most tests wait on child processes and sockets,
    // so three workers halve the suite's time without starving anyone.
    maxWorkers: 3,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
