// What a hostile JSON answer costs (issue 33 item 5), measured where it is robust on a loaded machine: the peak RSS
// of a child process reading it (bench/hostile-json.js, on dist/), never its time. The 10,000,010 bytes of
// nesting cost 0.6–0.9 GB before the bound; bounded, the answer is dropped at its first chunk past 64 levels.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { serversPerTest } from '../../support/listen.js';
import { assertBuilt, repoRoot } from '../../support/process.js';

const listen = serversPerTest();

/** Run one measuring child of bench/hostile-json.js; its one JSON line. */
async function measure(shape: string, reader: 'json' | 'file', url = '') {
  assertBuilt();
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', `${repoRoot}bench/hostile-json.js`, shape, reader, url],
    { cwd: repoRoot, timeout: 120_000 },
  );
  return JSON.parse(stdout) as { rssRiseMb: number; stallMs: number; outcome: string };
}

const body = (text: string) => Buffer.from(text.padEnd(10_000_010, ' '));

describe('a hostile 10 MB JSON answer', () => {
  it.each([
    ['deep', `{"rates":${'['.repeat(4_999_995)}${']'.repeat(4_999_995)}}`, /JSON nested more than 64 levels deep/],
    ['wide-numbers', `{"rates":[${'12,'.repeat(3_333_330)}1]}`, /JSON of more than 500,000 values/],
  ])(
    '%s: refused before parsing, the peak RSS of the reading process up by less than 100 MB',
    async (shape, text, says) => {
      const bytes = body(text);
      const url = await listen(() => bytes);
      for (const result of [await measure(shape, 'json', `${url}/rates`), await measure(shape, 'file')]) {
        expect(result.outcome).toMatch(/refused before parsing/);
        expect(result.outcome).toMatch(says);
        expect(result.rssRiseMb).toBeLessThan(100);
      }
    },
    300_000,
  );
});
