// `npm run test:shells`: the completion scripts in the real bash, zsh and fish (Debian's packages in CI's apt line);
// kept out of `npm test`, which needs only Node.js (bash alone runs there: test/integration/cli/completion-bash.test.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/shells/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
