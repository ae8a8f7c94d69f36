// `npm run test:sql`: the sql reserve source and the warm standby's lock (ha-*.test.ts) against a real PostgreSQL and MariaDB,
// and the S3 lease against Ceph's radosgw (ha-s3.test.ts) (kept out of `npm test`, which
// needs only Node.js); each test file starts its own server on loopback.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/sql/**/*.test.ts'],
    // Vitest's default on a 2-core machine is one worker, and these files mostly wait (on leases running out, on
    // builds): one after another they took six minutes of CI's twenty. Each file starts its own servers on ports of
    // its own, so three run side by side.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
