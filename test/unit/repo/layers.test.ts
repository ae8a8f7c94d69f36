// The layering rule where dependency-cruiser cannot see it: an import of Node's I/O modules in src/model or src/pure
// is refused by `npm run lint:deps` (.dependency-cruiser.cjs, `pure-and-model-no-node-io`), but the global `fetch` is
// no import. No module of those layers calls it, the global or an injected one (`deps.fetch(…)`): I/O lives in src/io.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/process.js';

/** Every .ts file under a folder of the repository, relative to its root. */
function sources(folder: string): string[] {
  return readdirSync(join(repoRoot, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)));
}

/** The code of a module without its comments, so a comment that says "fetch (" is no call. */
const code = (text: string) => text.replace(/\/\*[^]*?\*\//g, '').replace(/(^|[^:\\])\/\/.*$/gm, '$1');

/** The lines of `text` that call fetch: `fetch(…)`, `globalThis.fetch(…)`, `deps.fetch(…)`. */
const fetchCalls = (text: string) =>
  code(text)
    .split('\n')
    .filter((line) => /(^|[^\w$])fetch\s*\(/.test(line));

describe('the layers without I/O', () => {
  it('no module of src/model or src/pure calls fetch', () => {
    const calling = [...sources('src/model'), ...sources('src/pure')].filter(
      (file) => fetchCalls(readFileSync(join(repoRoot, file), 'utf8')).length > 0,
    );
    expect(calling).toEqual([]);
  });

  it('the test sees a call, and not a comment or a type', () => {
    expect(fetchCalls('const r = await deps.fetch(url, {});')).toHaveLength(1);
    expect(fetchCalls('await fetch (url)')).toHaveLength(1);
    expect(fetchCalls('// we fetch (once) here\n/** fetch(x) */\ntype F = typeof globalThis.fetch;')).toEqual([]);
  });
});
