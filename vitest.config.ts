import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/browser/**', 'test/nginx/**', 'test/metrics/**', 'test/sql/**', 'node_modules/**'],
    // Vitest's default is one worker on a 2-core machine; most tests wait on child processes and sockets,
    // so three workers halve the suite's time without starving anyone.
    // Waits are generous (a loaded CI machine stretches child start-up several times); no test times speed.
    maxWorkers: 3,
    testTimeout: 45_000,
    hookTimeout: 45_000,
  },
});
