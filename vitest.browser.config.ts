// `npm run test:browser`: the preview page in headless Chromium (the Debian package at /usr/bin/chromium, driven by playwright-core).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
