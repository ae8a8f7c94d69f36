// docs/exports.md's PHP verify snippet, as the page shows it, run by a real `php` against a real signed quote: it
// accepts the quote, refuses a forged one, one signed by another key and one cut, and says when it has expired —
// the same answers the JavaScript snippet gives in test/unit/pure/archive/quote.test.ts.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { projectsPerTest } from '../support/project.js';
import { docsSnippet, signedQuote, verifyCases } from '../support/signed-quote.js';

const project = projectsPerTest();
const run = promisify(execFile);

// The page's function, then a driver: each case from stdin's JSON, its answer on one line.
const driver = `
foreach (json_decode(stream_get_contents(STDIN), true) as $case) {
    echo ratefile_verify_quote($case['quote'], $case['publicKey'], $case['now']), "\\n";
}
`;

it("docs/exports.md's PHP snippet verifies a quote, and refuses a forged or an expired one", async () => {
  const signed = await signedQuote(project);
  const made = await project({});
  const script = join(made.dir, 'verify.php');
  await writeFile(script, docsSnippet('quote-verify-php', 'php') + driver);
  const cases = verifyCases(signed);
  const input = JSON.stringify(
    cases.map(({ quote, publicKey, now }) => ({ quote, publicKey, now: Math.floor(now.getTime() / 1000) })),
  );
  const child = run('php', [script]);
  child.child.stdin!.end(input);
  const { stdout } = await child;
  expect(stdout.trimEnd().split('\n')).toEqual(cases.map((c) => c.expected));
});
