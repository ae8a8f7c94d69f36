import { defineConfig } from 'vitest/config';

// Three projects: `unit` (test/unit/, mirrors src/: no child process, no listening socket, refused by
// test/support/quick-guard.ts) is `npm run test:quick`; `heavy` (test/unit/**/*.heavy.test.ts: the same rules, but
// CPU-bound work a loaded machine stretches many times, like 100,000 config problems or 20,000 directions' memory)
// and `integration` (test/integration/: the real binary, the service, loopback servers) run beside it in `npm test`.
const waits = {
  // Waits are generous (a loaded CI machine stretches child start-up several times); no test times speed.
  testTimeout: 45_000,
  hookTimeout: 45_000,
};

export default defineConfig({
  test: {
    // Vitest's default is one worker on a 2-core machine; most integration tests wait on child processes and
    // sockets, so three workers halve the suite's time without starving anyone.
    maxWorkers: 3,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/support/**/*.test.ts'],
          exclude: ['test/unit/**/*.heavy.test.ts'],
          setupFiles: ['test/support/quick-guard.ts'],
          // Unit tests keep no state between files, so a worker reuses the modules it has loaded rather than loading
          // src/ again for each file (most of the project's time was imports).
          isolate: false,
          ...waits,
        },
      },
      {
        test: {
          name: 'heavy',
          include: ['test/unit/**/*.heavy.test.ts'],
          setupFiles: ['test/support/quick-guard.ts'],
          isolate: false,
          // Finite CPU-bound work, nothing to wait on: the limit only stops a hang, never a machine under load.
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          ...waits,
        },
      },
    ],
  },
});
