// `npm run test:php`: docs/exports.md's PHP snippet run by a real PHP (Debian's php-cli, with sodium), kept out of
// `npm test`, which needs only Node.js.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/php/**/*.test.ts'],
  },
});
