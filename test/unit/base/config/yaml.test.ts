// readYamlFile reads with js-yaml (fast, light) and falls back to `yaml` (positions) for errors and lines:
// the two must agree on every document js-yaml accepts, or a config would mean different things.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CORE_SCHEMA, load } from 'js-yaml';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readYamlFile } from '../../../../src/base/config/yaml.js';
import { isRatefileError } from '../../../../src/base/errors.js';
import { makeProject, type Project } from '../../../support/project.js';

const repoFiles = [
  'ratefile.config.yaml',
  'examples/live.yaml',
  'templates/parserfile.yaml',
  'templates/reffile.yaml',
  'templates/affiliatefile.yaml',
  'test/fixtures/configs/broken.yaml',
];

/** YAML 1.1 leftovers, 1.2 core forms, anchors and the rest of what a hand-written config may hold. */
const snippets = [
  'a: 1\nb: 1.5\nc: "1.5%"\nd: -3\ne: 0o17\nf: 0x1F\ng: 017\nh: 1_000\ni: 1e3\nj: .inf\nk: -.Inf\nl: .nan',
  'yes: yes\nno: no\non: on\noff: off\ny: y\nt: true\nf: False\nn: ~\nnull_: null\nempty:',
  'when: 2024-01-01\nat: 2024-01-01T10:00:00Z\ntime: 12:30\nversion: 1.10',
  'base: &base { margin: 1.5%, min: "20 USDT" }\nuse: *base\nmerged: { <<: *base, margin: 2% }',
  'list: [a, b, "c, d", \'e\']\nblock:\n  - x\n  - { y: 1 }\n  -\n    z: [1, [2, 3]]',
  'text: |\n  line one\n  line two\nfolded: >\n  one\n  two\nplain: a b  c\nquoted: "tab\\there \\u00e9"',
  'tagged: !!str 12\nfloat: !!float 1\nkey with spaces: 1\n"quoted key": 2\n? complex\n: 3',
  '# only a comment\n',
  '',
  'a: 1\na: 2',
  'a: *missing',
  'a: [1, 2',
  'a:\n\tb: 1',
  '---\na: 1\n---\nb: 2',
  'a: b: c',
  '"a": 1\n\'a\': 2',
  'x: { a: 1, a: 2 }',
  '- top\n- level\n- list',
  'a: !!binary aGVsbG8=',
  'a: !custom 1',
];

function bothReadings(text: string): {
  jsYaml: { ok: true; data: unknown } | { ok: false };
  yaml: { ok: true; data: unknown } | { ok: false };
} {
  let jsYaml: { ok: true; data: unknown } | { ok: false };
  try {
    jsYaml = { ok: true, data: load(text, { schema: CORE_SCHEMA }) ?? null };
  } catch {
    jsYaml = { ok: false };
  }
  const document = parseDocument(text, { uniqueKeys: true });
  let yaml: { ok: true; data: unknown } | { ok: false } = { ok: false };
  try {
    if (document.errors.length === 0) yaml = { ok: true, data: document.toJS() ?? null };
  } catch {
    // An alias to no anchor fails only here.
  }
  return { jsYaml, yaml };
}

let project: Project;
beforeAll(async () => {
  project = await makeProject();
});
afterAll(() => project.remove());

describe('js-yaml and yaml read configs alike', () => {
  it('on the repo files and on every edge case js-yaml accepts (texts with explicit `!` tags never go to js-yaml)', async () => {
    const texts = [...(await Promise.all(repoFiles.map((file) => readFile(file, 'utf8')))), ...snippets].filter(
      (text) => !text.includes('!'),
    );
    let agreed = 0;
    for (const text of texts) {
      const { jsYaml, yaml } = bothReadings(text);
      if (!jsYaml.ok) continue;
      expect({ text, yaml }).toEqual({ text, yaml: { ok: true, data: jsYaml.data } });
      agreed++;
    }
    expect(agreed).toBeGreaterThan(12);
  });

  it("readYamlFile gives the same data as yaml, and yaml's error lines when the text is not valid", async () => {
    for (const [index, text] of snippets.entries()) {
      const path = join(project.dir, `snippet-${index}.yaml`);
      await writeFile(path, text);
      const { yaml } = bothReadings(text);
      const read = await readYamlFile(path, `snippet-${index}.yaml`).then(
        (file) => ({ ok: true as const, data: file.data ?? null }),
        (error: unknown) => {
          expect(isRatefileError(error, 'E_CONFIG')).toBe(true);
          expect((error as Error).message).toBe(`snippet-${index}.yaml: not valid YAML`);
          return { ok: false as const };
        },
      );
      expect({ text, read }).toEqual({ text, read: yaml });
    }
  });

  it('finds the line of a value only when asked, from the same text', async () => {
    const path = join(project.dir, 'lines.yaml');
    await writeFile(path, 'a: 1\nlist:\n  - x\n  - { deep: 2 }\n');
    const file = await readYamlFile(path, 'lines.yaml');
    expect(file.data).toEqual({ a: 1, list: ['x', { deep: 2 }] });
    expect(file.lineOf(['list', 1, 'deep'])).toBe(4);
    expect(file.lineOf(['list', 7])).toBe(3);
  });
});

/** A full collection, in a worker started without --expose-gc: the flag set now, `gc` taken from a new context. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('the tree js-yaml reads is compacted as it is read', () => {
  it('an anchor and its aliases stay one object (so aliases are measured as before); equal lists apart stay apart', async () => {
    const path = join(project.dir, 'anchors.yaml');
    await writeFile(path, 'a: &x [1, 2]\nb: *x\nc: [&y [3], *y]\ne: &m { k: [1] }\nf: *m\ng: [[5], [5]]\n');
    const data = (await readYamlFile(path, 'anchors.yaml')).data as Record<string, unknown[] & Record<string, unknown>>;
    expect(data).toEqual({ a: [1, 2], b: [1, 2], c: [[3], [3]], e: { k: [1] }, f: { k: [1] }, g: [[5], [5]] });
    expect(data.b).toBe(data.a);
    expect(data.c![1]).toBe(data.c![0]);
    expect(data.f).toBe(data.e);
    expect(data.f!.k).toBe(data.e!.k);
    expect(data.g![1]).not.toBe(data.g![0]);
  });

  it('holds 20,000 directions in under 250 bytes each: lists at their size, each text once (read as written: 375)', async () => {
    const codes = ['SBERRUB', 'TCSBRUB', 'ACRUB', 'BTC', 'ETH', 'USDTTRC20', 'CASHRUB', 'CASHUSD'];
    const lines = ['directions:'];
    for (let index = 0; lines.length <= 20_000; index++) {
      const [from, to] = [codes[index % codes.length], codes[Math.floor(index / codes.length) % codes.length]];
      if (from !== to) lines.push(`  - { from: ${from}, to: ${to}, tags: [${index % 3 === 0 ? 'ref' : 'main'}] }`);
    }
    const path = join(project.dir, 'directions.yaml');
    await writeFile(path, `${lines.join('\n')}\n`);
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    const { data } = await readYamlFile(path, 'directions.yaml');
    collectGarbage();
    const perDirection = (process.memoryUsage().heapUsed - before) / 20_000;
    expect((data as { directions: unknown[] }).directions).toHaveLength(20_000);
    expect(perDirection).toBeLessThan(250);
  });
});

describe('what js-yaml reads keeps nothing of the file alive', () => {
  it('a long text in the data is its own string, not a view into the 4 MB file it was read from', async () => {
    const path = join(project.dir, 'long-text.yaml');
    const comment = `# ${'padding '.repeat(100)}\n`.repeat(5_000);
    await writeFile(path, `${comment}url: "https://rates.example/export?from={from}&to={to}"\nshort: abc\n`);
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    // Read in a function of its own: the YamlFile (which keeps the text for line numbers) ends with it.
    const data = await (async () => (await readYamlFile(path, 'long-text.yaml')).data)();
    collectGarbage();
    const kept = process.memoryUsage().heapUsed - before;
    expect(data).toEqual({ url: 'https://rates.example/export?from={from}&to={to}', short: 'abc' });
    expect(kept).toBeLessThan(1_000_000);
  });
});
