// The safety net of a refactor that must not change one output byte: every shipped config (the demo, examples/*.yaml,
// the `ratefile init` starter) and bench/generate.js's projects built at one fixed clock against fixed inputs, each
// output file compared byte for byte with test/fixtures/golden/<case>/ (the big bench outputs by sha256, size and
// items in its manifest.json). `GOLDEN_UPDATE=1 npx vitest run test/integration/build/golden.test.ts` rewrites them:
// only for an intended change of output, said in the commit (test/fixtures/golden/README.md).
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, demoWith, goldenCases, type GoldenBuild } from '../../support/golden.js';
import { repoRoot } from '../../support/process.js';

const goldenDir = join(repoRoot, 'test/fixtures/golden');
const update = process.env.GOLDEN_UPDATE === '1';

interface Manifest {
  failing: string[];
  published: number;
  files: Record<string, { sha256: string; size: number; items: number }>;
}

function manifestOf(built: GoldenBuild): Manifest {
  const files: Manifest['files'] = {};
  for (const file of built.files)
    files[file.file] = {
      sha256: createHash('sha256').update(file.bytes).digest('hex'),
      size: file.bytes.length,
      items: file.items,
    };
  return { failing: built.failing, published: built.published, files };
}

const readManifest = async (name: string): Promise<Manifest> =>
  JSON.parse(await readFile(join(goldenDir, name, 'manifest.json'), 'utf8')) as Manifest;

/** How `built` differs from the golden files of `name`, one line per difference; none: the same bytes. */
async function differences(name: string, built: GoldenBuild, bytes: boolean): Promise<string[]> {
  const stored = await readManifest(name);
  const made = manifestOf(built);
  const lines: string[] = [];
  if (JSON.stringify(made.failing) !== JSON.stringify(stored.failing))
    lines.push(`failing sources: ${made.failing.join(', ')} instead of ${stored.failing.join(', ')}`);
  if (made.published !== stored.published)
    lines.push(`published ${made.published} directions instead of ${stored.published}`);
  for (const file of new Set([...Object.keys(stored.files), ...Object.keys(made.files)])) {
    const [was, now] = [stored.files[file], made.files[file]];
    if (!was || !now) lines.push(`${file}: ${was ? 'no longer written' : 'written, not in the golden files'}`);
    else if (was.sha256 !== now.sha256 || was.size !== now.size || was.items !== now.items)
      lines.push(
        `${file}: ${now.size} bytes, ${now.items} items, sha256 ${now.sha256} instead of ${was.size}, ${was.items}, ${was.sha256}`,
      );
  }
  if (bytes) {
    // The checked-in bytes themselves, not only their digest: a file edited by hand without its manifest shows here.
    const kept = (await readdir(join(goldenDir, name))).filter((file) => file !== 'manifest.json').sort();
    if (JSON.stringify(kept) !== JSON.stringify(Object.keys(stored.files).sort()))
      lines.push(`golden folder holds ${kept.join(', ')}, its manifest lists ${Object.keys(stored.files).join(', ')}`);
    for (const file of built.files) {
      const golden = await readFile(join(goldenDir, name, file.file)).catch(() => undefined);
      if (golden && !golden.equals(file.bytes)) lines.push(`${file.file}: bytes differ from the checked-in file`);
    }
  }
  return lines;
}

async function writeGolden(name: string, built: GoldenBuild, bytes: boolean): Promise<void> {
  const dir = join(goldenDir, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(manifestOf(built), null, 2)}\n`);
  if (bytes) for (const file of built.files) await writeFile(join(dir, file.file), file.bytes);
}

describe('golden outputs: every shipped and bench config, byte for byte', () => {
  afterAll(cleanUp);

  it.each(goldenCases.map((c) => [c.name, c] as const))(
    '%s builds the same bytes as its golden files',
    async (name, { bytes, build }) => {
      const built = await build();
      expect(built.files.length).toBeGreaterThan(0);
      if (update) return writeGolden(name, built, bytes);
      const lines = await differences(name, built, bytes);
      if (lines.length > 0) {
        // What this build wrote, kept for a diff against a regenerated folder (the bench cases have no files here).
        const kept = await mkdtemp(join(tmpdir(), `ratefile-golden-${name}-`));
        for (const file of built.files) await writeFile(join(kept, file.file), file.bytes);
        lines.push(`this build's files: ${kept}`);
      }
      if (bytes && lines.length > 0) {
        // The first differing file as text, so the failure shows the lines that changed.
        for (const file of built.files)
          expect(file.bytes.toString('utf8'), `${name}/${file.file}`).toBe(
            await readFile(join(goldenDir, name, file.file), 'utf8').catch(() => ''),
          );
      }
      expect(
        lines,
        `${name} differs from test/fixtures/golden/${name} (GOLDEN_UPDATE=1 only for an intended change)`,
      ).toEqual([]);
    },
  );

  it('has a case for every examples/*.yaml', async () => {
    const examples = (await readdir(join(repoRoot, 'examples'))).filter((file) => file.endsWith('.yaml'));
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples)
      expect(goldenCases.map((c) => c.name)).toContain(`examples-${basename(example, '.yaml')}`);
  });

  it.skipIf(update)(
    'tells a one-byte change of the demo config: one margin 0.8% → 0.9% changes the exports holding it',
    async () => {
      const built = await demoWith('margin: "0.8%"', 'margin: "0.9%"');
      const lines = await differences('demo', built, true);
      expect(lines.join('\n')).toMatch(/^parserfile\.xml: .* sha256 /m);
      expect(lines).toContain('parserfile.xml: bytes differ from the checked-in file');
      expect(lines.some((line) => line.startsWith('reffile.xml:'))).toBe(true);
    },
  );
});
