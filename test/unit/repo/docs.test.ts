// The docs stay true to the code: the generated references are what the program and the schema say today,
// every relative link in the Markdown resolves (file and heading), and every path AGENTS.md names exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateDocs } from '../../../docs/generate.js';
import { run } from '../../../src/cli.js';
import { configJsonSchema } from '../../../src/io/config/schema.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The Markdown a reader of the repository opens: README, AGENTS, docs/ and bench/. */
function markdownFiles(): string[] {
  const inDocs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', 'AGENTS.md', 'bench/README.md', ...inDocs];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Links outside code: `[text](target)`, without the web ones. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^(https?|mailto):/.test(target));
}

describe('generated references', () => {
  it('docs/cli-reference.md and docs/config-reference.md are what `npm run docs` writes today', async () => {
    const pages = await generateDocs({ run, configJsonSchema });
    for (const [path, text] of Object.entries(pages)) {
      expect(read(path), `${path} is stale: run npm run docs`).toBe(text);
    }
  });

  it('the CLI reference has every command, and the config reference every top-level key', async () => {
    const pages = await generateDocs({ run, configJsonSchema });
    for (const command of ['build', 'start', 'serve', 'check', 'explain', 'pause', 'completion']) {
      expect(pages['docs/cli-reference.md']).toContain(`## ratefile ${command}\n`);
    }
    for (const key of Object.keys((configJsonSchema() as { properties: object }).properties)) {
      expect(pages['docs/config-reference.md']).toContain(`## \`${key}\`\n`);
    }
  });
});

describe('links', () => {
  it('every relative link in README, AGENTS, bench/ and docs/ reaches a file, and its #heading when it names one', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      for (const link of relativeLinks(read(file))) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? join(root, file) : resolve(root, dirname(file), decodeURI(path));
        if (!existsSync(target)) broken.push(`${file}: ${link} (no such file)`);
        else if (
          anchor !== undefined &&
          target.endsWith('.md') &&
          !anchorsOf(readFileSync(target, 'utf8')).has(anchor)
        ) {
          broken.push(`${file}: ${link} (no heading #${anchor} in ${relative(root, target)})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('the link check sees a broken link and a missing heading', () => {
    expect(relativeLinks('see [a](docs/nowhere.md) and `[b](c.md)`')).toEqual(['docs/nowhere.md']);
    expect(anchorsOf('# The build, step by step\n## `sources`\n## Top level\n## Top level')).toEqual(
      new Set(['the-build-step-by-step', 'sources', 'top-level', 'top-level-1']),
    );
  });
});

describe('AGENTS.md', () => {
  it.each(['AGENTS.md', 'docs/architecture.md'])('%s names only paths that exist', (file) => {
    const agents = read(file);
    const paths = [...agents.matchAll(/`((?:src|test|bench|docs|deploy|data|examples|templates|bin)\/[^`\s]*)`/g)].map(
      (m) => m[1]!,
    );
    expect(paths.length).toBeGreaterThan(20);
    // Patterns (`src/commands/*.ts`, `test/fixtures/sources/<type>/`) name a family, not one file.
    const missing = paths.filter((path) => !/[*<]/.test(path) && !existsSync(join(root, path)));
    expect(missing).toEqual([]);
  });

  it('stays short enough to read whole', () => {
    expect(read('AGENTS.md').split('\n').length).toBeLessThanOrEqual(110);
  });

  it('the README stays an entry page', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(210);
  });
});
