// `npm run test:shells`: every argument the completion scripts complete, in bash, zsh and fish themselves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionCases, projectFiles } from './cases.js';
import { harness, type Harness } from './harness.js';

let shells: Harness;
beforeAll(async () => {
  shells = await harness();
});
afterAll(() => shells.close());

const cases = await completionCases();

describe.each(['bash', 'zsh', 'fish'] as const)('%s', (shell) => {
  it('reads the whole script without a syntax error', async () => {
    expect(await shells.syntaxCheck(shell)).toBe('');
  });

  it.each(cases)('"%s" offers %j', async (line, offered) => {
    const got = await shells.complete(shell, line);
    if (offered === 'files') expect(got).toEqual(expect.arrayContaining(projectFiles));
    else expect(got).toEqual(offered);
  });

  it('completes the commands and their options as before', async () => {
    expect(await shells.complete(shell, 'ratefile ex')).toEqual(['explain']);
    expect(await shells.complete(shell, 'ratefile build --dr')).toEqual(['--dry-run']);
  });
});
