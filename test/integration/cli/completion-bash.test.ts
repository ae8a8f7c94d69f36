// The bash completion script in bash itself, inside `npm test` (bash is everywhere); zsh and fish, with the same
// cases, are in `npm run test:shells`.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { completionCases, projectFiles } from '../../shells/cases.js';
import { harness, type Harness } from '../../shells/harness.js';

let shells: Harness;
beforeAll(async () => {
  shells = await harness();
});
afterAll(() => shells.close());

it.each(await completionCases())('bash: "%s" offers %j', async (line, offered) => {
  const got = await shells.complete('bash', line);
  if (offered === 'files') expect(got).toEqual(expect.arrayContaining(projectFiles));
  else expect(got).toEqual(offered);
});
