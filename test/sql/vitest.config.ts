// `npm run test:sql`: the sql reserve source and the warm standby's lock (ha-*.test.ts) against a real PostgreSQL and MariaDB,
// and the S3 lease against Ceph's radosgw (ha-s3.test.ts) (kept out of `npm test`, which
// needs only Node.js); each test file starts its own server on loopback.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/sql/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
