// `npm run test:nginx`: the nginx tests only, against a real nginx (kept out of `npm test`, which needs only Node.js).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/nginx/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
